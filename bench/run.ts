// `npm run bench [-- --json] [--only NAME] [--quick]`: every bench/*.bench.ts module (bench/_harness.ts).
// Exits 1 when any module failed, naming it. Exits explicitly: a module that leaves a server or
// worker open must not hang the run.
import { runBench } from './_harness.js';

process.exit(await runBench(process.argv.slice(2)));
