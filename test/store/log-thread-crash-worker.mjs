// Test double for the log thread: starts like the real host, opens logs, then dies on the first
// append, as a thread that hits an out-of-memory or a native fault in SQLite would.
import { parentPort } from 'node:worker_threads';

parentPort.postMessage({ t: 'ready' });
parentPort.on('message', (m) => {
  if (m.t === 'open') parentPort.postMessage({ t: 'opened', tenant: m.tenant });
  else if (m.t === 'append' || m.t === 'appends') process.exit(3); // one append, or a turn's appends together
});
