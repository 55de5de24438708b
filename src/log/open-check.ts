// What a log must show before its appender signs anything, in work that does not grow with the
// log: the newest stored note verifies with the log's own keys (strictly), and the stored nodes
// reproduce that note's size and root; the newest entry is a leaf of that tree. O(log n) reads.
// Entries committed after it but not yet signed (durable before signed: appender.ts) must each
// chain onto it, name their own seq and log, and match their stored leaf and tree nodes; and,
// before they are signed, the tree they make must carry this service's commit tag
// (commit-tag.ts): links and nodes anyone can recompute, the tag only the holder of the key.
import { bytesEqual, toHex } from '../canonical/index.js';
import { isArchiveRefusal, StoreError } from '../errors.js';
import { openStrict } from './open-strict.js';
import { decodeEntry, GENESIS_PREV } from './entry.js';
import { appendLeaf, compactRangeAt, emptyRange, hashLeaf, inclusionProof, rangeRoot, verifyInclusion, type CompactRange, type Hash } from './merkle.js';
import { commitTagValid } from './commit-tag.js';
import type { NoteVerifier } from './note.js';
import type { LogStorage } from './storage.js';

export interface OpenedTree {
  /** Compact range of the signed tree, read from stored nodes. */
  range: CompactRange;
  /** Leaf hash of the newest entry (hex), the next entry's prev. */
  prev: string;
  /** The signed root the stored tree reproduces (empty-tree root for an empty log). */
  root: Hash;
  /** Size of that signed tree: entries from here to range.size are committed but not yet signed. */
  signed: number;
  /** With entries after the signed tree: whether their commit tag was checked (a commit key was given). */
  tailTagged?: boolean;
}

export function inconsistent(why: string): StoreError {
  return new StoreError('ERR_STORE_INCONSISTENT', `refusing to sign: ${why}`);
}

/**
 * Throws ERR_STORE_INCONSISTENT saying why, unless the stored tree is the one the newest signed
 * note names. `commitKey`: with entries after that tree, their tree must carry a valid commit tag
 * under it (or under one of them: the keys of a rotation that stopped half way); without one (an offline verifier holds no secret) the tail is checked for links and
 * nodes only and `tailTagged` says false: such a tree must not be signed (Appender.open refuses).
 */
export function checkSignedTree(storage: LogStorage, origin: string, verifiers: NoteVerifier[] | undefined, commitKey?: Uint8Array | Uint8Array[]): OpenedTree {
  const stored = storage.size();
  const last = storage.latestCheckpoint();
  if (stored === 0) {
    if (last) throw inconsistent(`log is empty but a checkpoint of size ${last.size} exists`);
    const range = emptyRange();
    return { range, prev: GENESIS_PREV, root: rangeRoot(range), signed: 0 };
  }
  if (!last) throw inconsistent(`log holds ${stored} entries but no signed checkpoint`);
  if (!verifiers || verifiers.length === 0) throw inconsistent("no verification keys given: the newest checkpoint cannot be checked against this log's keys");
  let cp;
  try {
    cp = openStrict(last.note, verifiers).checkpoint;
  } catch (e) {
    throw inconsistent(`the newest stored checkpoint note (size ${last.size}) does not verify with this log's keys: ${(e as Error).message}`);
  }
  if (cp.origin !== origin) throw inconsistent(`the newest checkpoint is signed for origin ${JSON.stringify(cp.origin)}, not ${JSON.stringify(origin)}`);
  if (cp.size !== last.size) throw inconsistent(`the newest checkpoint's size column says ${last.size} but its signed note says ${cp.size}`);
  if (cp.size > stored) throw inconsistent(`log holds ${stored} entries but the newest signed checkpoint signs ${cp.size}`);
  const size = cp.size;
  let range: CompactRange;
  try {
    range = compactRangeAt(size, storage);
  } catch (e) {
    if (isArchiveRefusal(e)) throw e;
    throw inconsistent(`the stored tree of ${size} entries cannot be read: ${(e as Error).message}`);
  }
  if (!bytesEqual(rangeRoot(range), cp.root)) throw inconsistent(`the stored tree of ${size} entries does not reproduce the root of the newest signed checkpoint`);
  const newest = storage.entry(size - 1);
  if (!newest) throw inconsistent(`newest entry ${size - 1} is not stored`);
  if (!bytesEqual(hashLeaf(newest.bytes), newest.leaf)) throw inconsistent(`stored leaf hash of newest entry ${size - 1} does not match its bytes`);
  let proven = false;
  try {
    proven = bytesEqual(storage.node(0, size - 1), newest.leaf) && verifyInclusion(size - 1, size, newest.leaf, inclusionProof(size - 1, size, storage), cp.root);
  } catch (e) {
    if (isArchiveRefusal(e)) throw e;
    proven = false;
  }
  if (!proven) throw inconsistent(`newest entry ${size - 1} is not the leaf the signed tree holds at that position`);
  try {
    const e = decodeEntry(newest.bytes);
    if (e.seq !== size - 1 || e.log !== origin) throw new Error(`its bytes say seq ${e.seq} of log ${JSON.stringify(e.log)}`);
  } catch (e) {
    throw inconsistent(`newest entry ${size - 1} is malformed: ${(e as Error).message}`);
  }
  if (stored === size) return { range, prev: toHex(newest.leaf), root: cp.root, signed: size };
  const tail = checkUnsignedTail(storage, origin, range, toHex(newest.leaf), stored);
  const keys = commitKey === undefined ? [] : Array.isArray(commitKey) ? commitKey : [commitKey];
  if (keys.length) checkTailTag(storage, origin, keys, tail.range, size);
  return { range: tail.range, prev: tail.prev, root: cp.root, signed: size, tailTagged: keys.length > 0 };
}

/** The unsigned tail's tree must be the one this service's last commit tagged. */
function checkTailTag(storage: LogStorage, origin: string, keys: Uint8Array[], range: CompactRange, signed: number): void {
  const n = range.size - signed;
  const what = `${n} entr${n === 1 ? 'y' : 'ies'} after the newest signed checkpoint (size ${signed})`;
  let tag;
  try {
    tag = storage.commitTag?.();
  } catch (e) {
    throw inconsistent(`${what}: the commit tag cannot be read: ${(e as Error).message}`);
  }
  if (!tag) throw inconsistent(`${what} carry no commit tag: they were not committed by this service with its current keys (written into the file, or left by a version or a key rotation that stopped half way)`);
  if (tag.size !== range.size) throw inconsistent(`${what}: the commit tag names a tree of ${tag.size} entries, the store holds ${range.size}`);
  const root = rangeRoot(range);
  if (!keys.some((k) => commitTagValid(k, origin, tag, root))) throw inconsistent(`${what}: the commit tag does not match the stored tree (entries written or changed without the signing key)`);
}

/** The committed, unsigned entries after the signed tree: each one the next link, leaf and node set. */
function checkUnsignedTail(storage: LogStorage, origin: string, range: CompactRange, prev: string, stored: number): { range: CompactRange; prev: string } {
  let seq = range.size;
  for (const e of storage.entries(range.size, stored)) {
    const at = `unsigned entry ${seq} (after the newest signed checkpoint, size ${range.size})`;
    if (e.seq !== seq) throw inconsistent(`${at} is missing`);
    if (!bytesEqual(hashLeaf(e.bytes), e.leaf)) throw inconsistent(`${at}: stored leaf hash does not match its bytes`);
    let d;
    try {
      d = decodeEntry(e.bytes);
    } catch (err) {
      throw inconsistent(`${at} is malformed: ${(err as Error).message}`);
    }
    if (d.seq !== seq || d.log !== origin || d.prev !== prev) throw inconsistent(`${at} does not chain onto the log: its bytes say seq ${d.seq} of log ${JSON.stringify(d.log)}`);
    const next = appendLeaf(range, e.leaf);
    for (const n of next.created) {
      let h: Hash | undefined;
      try {
        h = storage.node(n.level, n.index);
      } catch {
        h = undefined;
      }
      if (!h || !bytesEqual(h, n.hash)) throw inconsistent(`${at}: stored tree node ${n.level}/${n.index} does not match`);
    }
    range = next.range;
    prev = toHex(e.leaf);
    seq++;
  }
  if (seq !== stored) throw inconsistent(`unsigned entry ${seq} is missing (log holds ${stored})`);
  return { range, prev };
}
