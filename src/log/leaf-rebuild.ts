// Rebuild the tree from entry bytes one page at a time and compare it with what is stored: each
// entry's leaf hash, and every node it completes. Shared by the service's background audit
// (leaf-audit.ts) and `vouch log verify`; node reads go by level and index range, not one by one.
import { bytesEqual } from '../canonical/index.js';
import { hashChildren, hashLeaf, type Hash } from './merkle.js';
import type { LogStorage, StoredEntry } from './storage.js';

export type RebuildFinding =
  | { kind: 'entry'; seq: number; message: string }
  | { kind: 'leaf'; seq: number; message: string }
  | { kind: 'node'; seq: number; message: string };

/** The rebuilt tree so far: a compact range over [0, size), mutated in place. */
export interface RebuildState {
  size: number;
  hashes: Hash[];
}

export interface RebuildOptions {
  /** RFC 9162 leaf hash; Node passes a native one (several times the pure-JS rate). */
  hashLeaf?: (bytes: Uint8Array) => Hash;
  /** The leaf hash of page[i], where the caller has a cheaper way to it (verify-pages.ts: the prefix already in place). */
  leafAt?: (i: number, e: StoredEntry) => Hash;
  /** Sees each entry with its recomputed leaf once it is in the rebuilt tree (verify-log decodes it there). */
  onEntry?: (e: StoredEntry, leaf: Hash) => void;
}

/** Stored nodes of one level with lo <= index <= hi, in index order (holes as undefined). */
function nodesOf(storage: LogStorage, level: number, lo: number, hi: number): (Hash | undefined)[] {
  const out: (Hash | undefined)[] = new Array(hi - lo + 1);
  if (storage.nodeRange) {
    for (const n of storage.nodeRange(level, lo, hi)) out[n.index - lo] = n.hash;
    return out;
  }
  for (let i = lo; i <= hi; i++) {
    try {
      out[i - lo] = storage.node(level, i);
    } catch {
      out[i - lo] = undefined;
    }
  }
  return out;
}

/**
 * Feed entries (a page in seq order, starting at state.size) into the rebuilt tree, reporting
 * every mismatch. Leaf hashes are recomputed from the bytes; nodes are rebuilt from those.
 * Returns the number of nodes compared.
 */
export function rebuildPage(storage: LogStorage, state: RebuildState, page: StoredEntry[], report: (f: RebuildFinding) => void, opts: RebuildOptions = {}): number {
  const leafOf = opts.hashLeaf ?? hashLeaf;
  if (page.length === 0) return 0;
  let nodes = 0;
  const from = state.size;
  const to = from + page.length; // entries are expected at [from, to)
  // Nodes completed by entries [from, to): at level L, indices (from+1)/2^L - 1 .. to/2^L - 1.
  const stored: { lo: number; hashes: (Hash | undefined)[] }[] = [];
  for (let level = 0, width = 1; width <= to; level++, width *= 2) {
    const lo = Math.ceil((from + 1) / width) - 1;
    const hi = Math.floor(to / width) - 1;
    stored.push(hi >= lo ? { lo, hashes: nodesOf(storage, level, lo, hi) } : { lo, hashes: [] });
  }
  for (let i = 0; i < page.length; i++) {
    const e = page[i];
    const seq = state.size;
    if (e.seq !== seq) report({ kind: 'entry', seq: e.seq, message: `entry ${e.seq} stored where ${seq} was expected (gap)` });
    // A refused row (read-rows.ts) has no bytes to hash: its stored leaf keeps the tree going, and its caller names it.
    const leaf = e.refused ? e.leaf : opts.leafAt ? opts.leafAt(i, e) : leafOf(e.bytes);
    if (!e.refused && !bytesEqual(leaf, e.leaf)) report({ kind: 'leaf', seq: e.seq, message: `entry ${e.seq}: stored leaf hash does not match the entry bytes` });
    // Push the recomputed leaf: each trailing 1 bit of seq merges one subtree (merkle-range.ts).
    let hash = leaf;
    let level = 0;
    let index = seq;
    for (;;) {
      nodes++;
      const at = stored[level];
      const s = at && index - at.lo >= 0 ? at.hashes[index - at.lo] : undefined;
      if (!s || !bytesEqual(s, hash)) report({ kind: 'node', seq: e.seq, message: `tree node ${level}/${index} (completed by entry ${e.seq}) is ${s ? 'wrong' : 'missing'}` });
      if (index % 2 === 0) break;
      hash = hashChildren(state.hashes.pop() as Hash, hash);
      level++;
      index = Math.floor(index / 2);
    }
    state.hashes.push(hash);
    state.size++;
    opts.onEntry?.(e, leaf);
  }
  return nodes;
}
