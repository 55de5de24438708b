// A page of entry rows for the whole-log checks (verify-log.ts, leaf-audit.ts): a row the store
// refuses to give back (ERR_STORE_INCONSISTENT: a compact row that does not decode, docs/storage.md)
// becomes a marker for that seq, so the check names it and goes on with the next rows.
import { codeOf } from '../errors.js';
import type { Hash } from './merkle.js';
import type { LogStorage, StoredEntry } from './storage.js';

const NO_BYTES = new Uint8Array(0);
const NO_LEAF: Hash = new Uint8Array(32);

const refusal = (e: unknown): boolean => codeOf(e) === 'ERR_STORE_INCONSISTENT';

/**
 * Entries with from <= seq < to, as `storage.entries` gives them; if the store refuses a row, the
 * page is read again row by row and each refused row is `{ seq, bytes: empty, leaf, refused }`
 * with the stored level-0 node as its leaf (zeros if none), so the rebuilt tree goes on past it.
 * Other errors (closed store, archive missing) still throw.
 */
export function readRows(storage: LogStorage, from: number, to: number): StoredEntry[] {
  try {
    return [...storage.entries(from, to)];
  } catch (e) {
    if (!refusal(e)) throw e;
  }
  const out: StoredEntry[] = [];
  for (let seq = from; seq < to; seq++) {
    try {
      const e = storage.entry(seq);
      if (e) out.push(e);
    } catch (e) {
      if (!refusal(e)) throw e;
      out.push({ seq, bytes: NO_BYTES, leaf: storedLeaf(storage, seq), refused: e as Error });
    }
  }
  return out;
}

function storedLeaf(storage: LogStorage, seq: number): Hash {
  try {
    return storage.node(0, seq);
  } catch {
    return NO_LEAF;
  }
}
