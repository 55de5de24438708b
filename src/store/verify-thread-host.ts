// `vouch log verify`'s reading thread (NODE-ONLY, started by verify-thread.ts): opens the log file
// read-only on a connection of its own, reads its entries a page at a time, hashes them and rebuilds
// the tree (log/verify-pages.ts), and hands each page over transferred; at most `inflight` pages
// ahead of the main thread, which checks the entries meanwhile.
import { parentPort, workerData } from 'node:worker_threads';
import '../crypto/node-sha256.js'; // native SHA-256 for leaves and nodes, as on the main thread
import '../crypto/node-bytes.js'; // native comparison of a row with its archived copy
import '../crypto/node-utf8.js'; // the strict native UTF-8 decoder for the canonical scan, as on the main thread
import { markCanonical, verifyPages } from '../log/verify-pages.js';
import { codeOf, StoreError } from '../errors.js';
import { openSqliteStore } from './sqlite.js';
import { openArchiveView, type ArchiveFinding } from './archive-read.js';
import type { VerifyThreadData, VerifyThreadMessage } from './verify-thread.js';

const data = workerData as VerifyThreadData;
const consumed = new Int32Array(data.consumed);
const post = (m: VerifyThreadMessage, transfer: ArrayBuffer[] = []) => parentPort!.postMessage(m, transfer);

try {
  const store = openSqliteStore(data.path, { readonly: true, archive: data.archive, skipArchiveCheck: true });
  let archive: ArchiveFinding[] = [];
  try {
    // The archive the main thread opened and checked: the same files, read here (a checkpoint that changed meanwhile is an error, not another view).
    const view = data.view && data.archive ? openArchiveView(data.archive, store, { origin: data.view.origin, rowsFrom: data.view.rowsFrom }) : undefined;
    if (data.view && view?.size !== data.view.size) {
      throw new StoreError('ERR_VERIFY_THREAD', `the archive's checkpoint changed while log verify ran (size ${data.view.size}, now ${view?.size ?? 'none'}): run it again`);
    }
    let sent = 0;
    for (const page of verifyPages(view?.storage ?? store, data.size, data.page)) {
      // The checks have a page waiting besides the one they are on (they are behind this thread):
      // the canonical scan, a third of their work, is done here instead. Otherwise they scan it.
      if (sent - Atomics.load(consumed, 0) >= 2) markCanonical(page);
      const transfer = [page.data.buffer as ArrayBuffer, page.offsets.buffer as ArrayBuffer, page.leaves.buffer as ArrayBuffer];
      if (page.canonical) transfer.push(page.canonical.buffer as ArrayBuffer);
      post({ type: 'page', page }, transfer);
      sent++;
      // A bounded queue: never more than `inflight` pages the main thread has not finished.
      for (let done = Atomics.load(consumed, 0); sent - done >= data.inflight; done = Atomics.load(consumed, 0)) Atomics.wait(consumed, 0, done, 1000);
    }
    archive = view?.findings ?? [];
  } finally {
    store.close();
  }
  post({ type: 'done', archive });
} catch (e) {
  post({ type: 'error', code: codeOf(e), message: (e as Error).message });
}
