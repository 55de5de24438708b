// What a log must show before its appender signs anything, in work that does not grow with the
// log: the newest stored note verifies with the log's own keys (strictly), and the stored nodes
// reproduce that note's size and root; the newest entry is a leaf of that tree. O(log n) reads.
import { bytesEqual, toHex } from '../canonical/index.js';
import { StoreError } from '../errors.js';
import { openCheckpoint } from './checkpoint.js';
import { decodeEntry, GENESIS_PREV } from './entry.js';
import { compactRangeAt, emptyRange, hashLeaf, inclusionProof, rangeRoot, verifyInclusion, type CompactRange, type Hash } from './merkle.js';
import type { NoteVerifier } from './note.js';
import type { LogStorage } from './storage.js';

export interface OpenedTree {
  /** Compact range of the signed tree, read from stored nodes. */
  range: CompactRange;
  /** Leaf hash of the newest entry (hex), the next entry's prev. */
  prev: string;
  /** The signed root the stored tree reproduces (empty-tree root for an empty log). */
  root: Hash;
}

export function inconsistent(why: string): StoreError {
  return new StoreError('ERR_STORE_INCONSISTENT', `refusing to sign: ${why}`);
}

/** Throws ERR_STORE_INCONSISTENT saying why, unless the stored tree is the one the newest signed note names. */
export function checkSignedTree(storage: LogStorage, origin: string, verifiers: NoteVerifier[] | undefined): OpenedTree {
  const size = storage.size();
  const last = storage.latestCheckpoint();
  if (size === 0) {
    if (last) throw inconsistent(`log is empty but a checkpoint of size ${last.size} exists`);
    const range = emptyRange();
    return { range, prev: GENESIS_PREV, root: rangeRoot(range) };
  }
  if (!last) throw inconsistent(`log holds ${size} entries but no signed checkpoint`);
  if (!verifiers || verifiers.length === 0) throw inconsistent("no verification keys given: the newest checkpoint cannot be checked against this log's keys");
  let cp;
  try {
    cp = openCheckpoint(last.note, verifiers, { strict: true });
  } catch (e) {
    throw inconsistent(`the newest stored checkpoint note (size ${last.size}) does not verify with this log's keys: ${(e as Error).message}`);
  }
  if (cp.origin !== origin) throw inconsistent(`the newest checkpoint is signed for origin ${JSON.stringify(cp.origin)}, not ${JSON.stringify(origin)}`);
  if (cp.size !== last.size) throw inconsistent(`the newest checkpoint's size column says ${last.size} but its signed note says ${cp.size}`);
  if (cp.size !== size) throw inconsistent(`log holds ${size} entries but the newest signed checkpoint signs ${cp.size}`);
  let range: CompactRange;
  try {
    range = compactRangeAt(size, storage);
  } catch (e) {
    throw inconsistent(`the stored tree of ${size} entries cannot be read: ${(e as Error).message}`);
  }
  if (!bytesEqual(rangeRoot(range), cp.root)) throw inconsistent(`the stored tree of ${size} entries does not reproduce the root of the newest signed checkpoint`);
  const newest = storage.entry(size - 1);
  if (!newest) throw inconsistent(`newest entry ${size - 1} is not stored`);
  if (!bytesEqual(hashLeaf(newest.bytes), newest.leaf)) throw inconsistent(`stored leaf hash of newest entry ${size - 1} does not match its bytes`);
  let proven = false;
  try {
    proven = bytesEqual(storage.node(0, size - 1), newest.leaf) && verifyInclusion(size - 1, size, newest.leaf, inclusionProof(size - 1, size, storage), cp.root);
  } catch {
    proven = false;
  }
  if (!proven) throw inconsistent(`newest entry ${size - 1} is not the leaf the signed tree holds at that position`);
  try {
    const e = decodeEntry(newest.bytes);
    if (e.seq !== size - 1 || e.log !== origin) throw new Error(`its bytes say seq ${e.seq} of log ${JSON.stringify(e.log)}`);
  } catch (e) {
    throw inconsistent(`newest entry ${size - 1} is malformed: ${(e as Error).message}`);
  }
  return { range, prev: toHex(newest.leaf), root: cp.root };
}
