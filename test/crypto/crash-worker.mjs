// Test double for worker-signer: announces a key, then dies on the first request, as a worker
// that hits an out-of-memory or a native fault would.
import { parentPort } from 'node:worker_threads';

parentPort.postMessage({ type: 'ready', publicKey: new Uint8Array(1952) });
parentPort.on('message', () => process.exit(3));
