// The Cloudflare Workers entry (wrangler.toml `main`): the same app as Node, with each tenant's
// log in a Durable Object (VouchLog), the stateful built-ins' state in VouchState objects and the
// config embedded at build time (its settings resolved from the Worker's vars when an isolate
// starts). Nothing here imports node:*; test/workers/bundle.test.ts checks the built bundle for it.
import { WORKER_CONFIG } from './worker/config.js';
import { workerHandler } from './worker/entry.js';

export { VouchLog } from './worker/log-object.js';
export { VouchState } from './worker/state-object.js';

export default workerHandler(WORKER_CONFIG);
