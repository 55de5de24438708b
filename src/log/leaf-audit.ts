// The service's background audit of a log it opened: every entry's bytes against its leaf hash
// and every stored node, rebuilt up to the signed tree the open check accepted, in small pages
// that yield between them, off the decision path. A mismatch halts the appender (fails closed).
import { bytesEqual } from '../canonical/index.js';
import { StoreError } from '../errors.js';
import { rebuildPage, type RebuildFinding, type RebuildState } from './leaf-rebuild.js';
import { rangeRoot, type Hash } from './merkle.js';
import type { LogStorage } from './storage.js';
import { HeadsRebuild } from './state-heads.js';

export interface AuditProgress {
  /** Entries checked so far, of `total` (the signed tree size at open). */
  checked: number;
  total: number;
  complete: boolean;
  /** Set when the audit found a mismatch (and stopped). */
  error?: StoreError;
}

export interface LeafAuditOptions {
  /** Entries per page (default 2048): one synchronous read and rehash between yields. */
  page?: number;
  onProgress?: (p: AuditProgress) => void;
  /** Called once with the mismatch; the caller halts signing. */
  onMismatch: (e: StoreError) => void;
  /** Give the event loop back between pages (default: setImmediate). */
  pause?: () => Promise<void>;
  /** RFC 9162 leaf hash (Node passes a native one). */
  hashLeaf?: (bytes: Uint8Array) => Hash;
  /** Stop early (the log is closing); the promise then resolves incomplete. */
  stopped?: () => boolean;
  /** The error a mismatch is reported (progress) and halted with, from the audit's own (e.g. naming a tile archive it read). */
  explain?: (e: StoreError) => StoreError;
}

const immediate = (): Promise<void> => new Promise((r) => setImmediate(r));

/** Audit entries [0, size) of `storage` against the signed `root` of that size. */
/** How long after a log opens its background audit starts, by default (log-thread-host.ts). */
export const DEFAULT_AUDIT_DELAY_MS = 1000;

export async function auditLeaves(storage: LogStorage, signed: { size: number; root: Hash }, opts: LeafAuditOptions): Promise<AuditProgress> {
  const page = opts.page ?? 2048;
  const pause = opts.pause ?? immediate;
  const state: RebuildState = { size: 0, hashes: [] };
  // The state every entry commits to, rebuilt from the entries themselves (issue 35): the start-up
  // check trusted the newest entry's heads; here every entry's are recomputed and compared.
  const heads = new HeadsRebuild();
  const text = new TextDecoder();
  const progress: AuditProgress = { checked: 0, total: signed.size, complete: false };
  const fail = (message: string): AuditProgress => {
    const error = new StoreError('ERR_STORE_INCONSISTENT', `refusing to sign: background audit: ${message}`);
    progress.error = opts.explain ? opts.explain(error) : error;
    opts.onProgress?.(progress);
    opts.onMismatch(progress.error);
    return progress;
  };
  opts.onProgress?.(progress);
  while (state.size < signed.size) {
    await pause(); // before every page, the first included: whatever is waiting (appends) goes first
    if (opts.stopped?.()) return progress;
    const from = state.size;
    const to = Math.min(signed.size, from + page);
    let first: RebuildFinding | undefined;
    let rows;
    try {
      rows = [...storage.entries(from, to)];
      if (rows.length !== to - from) return fail(`entries ${from}..${to - 1}: ${rows.length} of ${to - from} are stored (gap)`);
      rebuildPage(storage, state, rows, (f) => void (first ??= f), { hashLeaf: opts.hashLeaf });
    } catch (e) {
      return fail(`entries ${from}..${to - 1}: ${(e as Error).message}`);
    }
    if (first) return fail(first.message);
    for (const r of rows) {
      let why: string | undefined;
      try {
        // JSON.parse only: the bytes were just checked against their leaf, so they are the signed ones.
        const e = JSON.parse(text.decode(r.bytes)) as { type: string; heads?: unknown };
        why = heads.visit({ seq: r.seq, type: e.type, heads: e.heads });
      } catch (e) {
        why = `entry ${r.seq} is not JSON: ${(e as Error).message}`;
      }
      if (why) return fail(why);
    }
    progress.checked = state.size;
    opts.onProgress?.(progress);
  }
  if (!bytesEqual(rangeRoot(state), signed.root)) return fail(`the root rebuilt from ${signed.size} entries differs from the signed root`);
  progress.complete = true;
  opts.onProgress?.(progress);
  return progress;
}
