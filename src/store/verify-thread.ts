// `vouch log verify` on two cores (NODE-ONLY): a thread of its own reads the log file's pages, hashes
// them and rebuilds the tree (verify-thread-host.ts), while this thread checks the entries in order
// (log/verify-log.ts verifyLogPages). Pages cross transferred, a bounded number at a time; a thread
// that fails to load, throws or stops early is a coded error, never a hang.
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { PageOptions, VerifyPage } from '../log/index.js';
import { StoreError, type ErrorCode } from '../errors.js';
import type { ArchiveFinding } from './archive-view.js';

/** Pages the reading thread may be ahead of the checks: memory stays a few pages whatever the log's size. */
export const VERIFY_INFLIGHT = 3;

/** The archive view the main thread opened (its checkpoint verified there, strictly): the thread reads through the same one. */
export interface VerifyThreadView {
  origin: string;
  /** The archive checkpoint's size the main thread found: the thread's view must find the same. */
  size: number;
  rowsFrom: number;
}

export interface VerifyThreadData {
  path: string;
  archive?: string;
  /** Read the sealed part through the archive (archive-view.ts), comparing it with the rows; without, the rows alone. */
  view?: VerifyThreadView;
  size: number;
  page: PageOptions;
  inflight: number;
  /** Int32 [0]: pages the main thread has finished (the thread waits on it). */
  consumed: SharedArrayBuffer;
}

/** `done` carries what the archive view found (empty without a view). */
export type VerifyThreadMessage = { type: 'page'; page: VerifyPage } | { type: 'done'; archive: ArchiveFinding[] } | { type: 'error'; code: ErrorCode; message: string };

/** Compiled: the bundled host when the build made one (scripts/bundle-dist.mjs), else its .js; from the sources, the tsx entry. */
function hostUrl(): URL {
  if (!import.meta.url.endsWith('.js')) return new URL('./verify-thread-worker.mjs', import.meta.url);
  const bundled = new URL('../.bundle/verify-thread-host.mjs', import.meta.url);
  return existsSync(bundled) ? bundled : new URL('./verify-thread-host.js', import.meta.url);
}

const stopped = (why: string) => new StoreError('ERR_VERIFY_THREAD', `log verify's reading thread ${why}: run again with --threads 1 to verify on this thread alone`);

/**
 * The pages of the log file at `path` (read-only, its own connection), for verifyLogPages; with
 * `view`, its sealed part read through the archive, whose findings go to `onArchive` at the end.
 * The thread is ended when the pages are (or the caller stops early or throws).
 */
export async function* threadPages(
  file: { path: string; archive?: string; view?: VerifyThreadView },
  size: number,
  page: PageOptions,
  opts: { hostUrl?: URL; onArchive?: (findings: ArchiveFinding[]) => void } = {},
): AsyncGenerator<VerifyPage> {
  const consumed = new SharedArrayBuffer(4);
  const counter = new Int32Array(consumed);
  const data: VerifyThreadData = { ...file, size, page, inflight: VERIFY_INFLIGHT, consumed };
  const worker = new Worker(opts.hostUrl ?? hostUrl(), { workerData: data });
  const queue: VerifyThreadMessage[] = [];
  let failed: Error | undefined;
  let exited: number | undefined;
  let wake: (() => void) | undefined;
  const poke = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  worker.on('message', (m: VerifyThreadMessage) => (queue.push(m), poke()));
  worker.on('error', (e) => ((failed ??= stopped(`failed: ${e.message}`)), poke()));
  worker.on('exit', (code) => ((exited = code), poke()));
  try {
    for (;;) {
      while (queue.length === 0 && !failed && exited === undefined) await new Promise<void>((r) => (wake = r));
      const m = queue.shift();
      if (!m) throw failed ?? stopped(`stopped (exit code ${exited}) before the end of the log`);
      if (m.type === 'done') return opts.onArchive?.(m.archive);
      if (m.type === 'error') throw new StoreError(m.code, m.message);
      yield m.page;
      Atomics.add(counter, 0, 1);
      Atomics.notify(counter, 0);
    }
  } finally {
    await worker.terminate();
  }
}
