// Run wrangler offline from Node-side tests: the dry-run build (what `npm run build:worker`
// does) and `wrangler dev --local` on a free loopback port. Shared with the bench (bench/workers.bench.ts).
export { buildWorker, freePort, OFFLINE_ENV, ROOT, startDev, type DevOptions, type DevServer, type Run } from '../../bench/_wrangler.js';
