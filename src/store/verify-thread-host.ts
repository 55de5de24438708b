// `vouch log verify`'s reading thread (NODE-ONLY, started by verify-thread.ts): opens the log file
// read-only on a connection of its own, reads its entries a page at a time, hashes them and rebuilds
// the tree (log/verify-pages.ts), and hands each page over transferred; at most `inflight` pages
// ahead of the main thread, which checks the entries meanwhile.
import { parentPort, workerData } from 'node:worker_threads';
import '../crypto/node-sha256.js'; // native SHA-256 for leaves and nodes, as on the main thread
import { verifyPages } from '../log/verify-pages.js';
import { codeOf } from '../errors.js';
import { openSqliteStore } from './sqlite.js';
import type { VerifyThreadData, VerifyThreadMessage } from './verify-thread.js';

const data = workerData as VerifyThreadData;
const consumed = new Int32Array(data.consumed);
const post = (m: VerifyThreadMessage, transfer: ArrayBuffer[] = []) => parentPort!.postMessage(m, transfer);

try {
  const store = openSqliteStore(data.path, { readonly: true, archive: data.archive, skipArchiveCheck: true });
  try {
    let sent = 0;
    for (const page of verifyPages(store, data.size, data.page)) {
      post({ type: 'page', page }, [page.data.buffer as ArrayBuffer, page.offsets.buffer as ArrayBuffer, page.leaves.buffer as ArrayBuffer]);
      sent++;
      // A bounded queue: never more than `inflight` pages the main thread has not finished.
      for (let done = Atomics.load(consumed, 0); sent - done >= data.inflight; done = Atomics.load(consumed, 0)) Atomics.wait(consumed, 0, done, 1000);
    }
  } finally {
    store.close();
  }
  post({ type: 'done' });
} catch (e) {
  post({ type: 'error', code: codeOf(e), message: (e as Error).message });
}
