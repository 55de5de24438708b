// Reading the state a log commits to (state-heads.ts) without trusting an index: the heads of the
// entry at size-1, that entry a leaf of the signed tree (O(log n)); the policy in force read by the
// seq those heads name; pin and key rows as an index returns them, each a leaf of the signed tree,
// and exactly as many as the heads commit to. A log written before heads existed is counted once by
// a scan of its entries (never through an index); its next entry carries heads.
import { bytesEqual } from '../canonical/index.js';
import { isArchiveRefusal, StoreError } from '../errors.js';
import { decodeEntry, type Entry } from './entry.js';
import { parseCheckpoint } from './checkpoint.js';
import { parseNote } from './note.js';
import { hashLeaf, inclusionProof, verifyInclusion, type Hash } from './merkle.js';
import { checkStateRows, EMPTY_HEADS, headsOf, nextHeads, type Heads, type StateType } from './state-heads.js';
import type { LogStorage } from './storage.js';

type Reader = Pick<LogStorage, 'size' | 'entry' | 'entries' | 'node' | 'latestCheckpoint'>;
type Row = { seq: number; bytes: Uint8Array };

const inconsistent = (why: string) => new StoreError('ERR_STORE_INCONSISTENT', why);

/** The signed tree rows are checked against: the newest checkpoint's size and the root its note signs. */
function signedTree(storage: Reader): { size: number; root: Hash } {
  const cp = storage.latestCheckpoint();
  if (!cp) return { size: 0, root: new Uint8Array(32) };
  let root: Hash;
  try {
    root = parseCheckpoint(parseNote(cp.note).text).root;
  } catch (e) {
    throw inconsistent(`the newest checkpoint note cannot be read: ${(e as Error).message}`);
  }
  if (!bytesEqual(root, cp.root)) throw inconsistent(`the newest checkpoint's root column disagrees with its signed note: the log was altered`);
  return { size: cp.size, root };
}

/**
 * Row `r` is the leaf at its seq: under the signed tree by an inclusion proof from stored nodes;
 * past it (committed, not yet signed: the appender's open check verified that tail and its
 * commit tag), its bytes hash to the stored leaf node.
 */
function assertLeaf(storage: Reader, tree: { size: number; root: Hash }, r: Row, what: string): void {
  const leaf = hashLeaf(r.bytes);
  let ok: boolean;
  try {
    ok = r.seq < tree.size ? verifyInclusion(r.seq, tree.size, leaf, inclusionProof(r.seq, tree.size, storage), tree.root) : bytesEqual(storage.node(0, r.seq), leaf);
  } catch (e) {
    if (isArchiveRefusal(e)) throw e;
    ok = false;
  }
  if (!ok) throw inconsistent(`${what} ${r.seq} is not the leaf the signed tree holds at that position: the log was altered`);
}

function decoded(r: Row, what: string): Entry {
  let e: Entry;
  try {
    e = decodeEntry(r.bytes);
  } catch (err) {
    throw inconsistent(`${what} ${r.seq} is malformed: ${(err as Error).message}`);
  }
  if (e.seq !== r.seq) throw inconsistent(`${what} ${r.seq} says it is entry ${e.seq}: the log was altered`);
  return e;
}

/** Heads counted by one pass over entries [0, size): for logs written before heads existed. */
function scanHeads(storage: Reader, size: number): Heads {
  let h = EMPTY_HEADS;
  let seq = 0;
  for (const r of storage.entries(0, size)) {
    if (r.seq !== seq) throw inconsistent(`entry ${seq} is missing`);
    h = nextHeads(h, decoded(r, 'entry').type, r.seq);
    seq++;
  }
  if (seq !== size) throw inconsistent(`entry ${seq} is missing`);
  return h;
}

/**
 * The state the first `size` entries commit to (default: every stored entry): the heads of entry
 * size-1, which must be a leaf of the signed tree (or of the committed tail). A log whose newest
 * entry predates heads is counted by a scan (once: the next entry written carries them).
 */
export function committedHeads(storage: Reader, size = storage.size()): Heads {
  if (size === 0) return EMPTY_HEADS;
  const tree = signedTree(storage);
  const row = storage.entry(size - 1);
  if (!row) throw inconsistent(`entry ${size - 1} is not stored`);
  assertLeaf(storage, tree, row, 'entry');
  const h = headsOf(decoded(row, 'entry'));
  return h ?? scanHeads(storage, size);
}

/**
 * Rows of one state type among the first `size` entries, as `indexed` (an index query) returns
 * them, or by a scan when the store has no index: each checked to be a leaf of the signed tree,
 * and all of them exactly the rows the heads commit to. Throws ERR_STORE_INCONSISTENT otherwise.
 */
export function committedRows(storage: Reader, type: StateType, indexed: Iterable<Row> | undefined, size = storage.size(), heads = committedHeads(storage, size)): Row[] {
  const source = indexed ?? scanType(storage, type, size);
  const rows = checkStateRows(type, [...source].filter((r) => r.seq < size), heads);
  const tree = signedTree(storage);
  for (const r of rows) assertLeaf(storage, tree, r, `${type} entry`);
  return rows;
}

function* scanType(storage: Reader, type: StateType, size: number): Iterable<Row> {
  const mark = `"type":"${type}"`;
  const text = new TextDecoder();
  for (const r of storage.entries(0, size)) if (text.decode(r.bytes).includes(mark) && decoded(r, 'entry').type === type) yield r;
}

/** The newest entry of `type` the log commits to (read by its seq, no index), or undefined when it holds none. */
export function committedNewest(storage: Reader, type: StateType, size = storage.size(), heads = committedHeads(storage, size)): { row: Row & { leaf: Uint8Array }; entry: Entry } | undefined {
  const head = heads[type];
  if (!head) return undefined;
  const row = storage.entry(head[1]);
  if (!row) throw inconsistent(`${type} entry ${head[1]}, which the log commits to, is not stored`);
  assertLeaf(storage, signedTree(storage), row, `${type} entry`);
  const entry = decoded(row, `${type} entry`);
  if (entry.type !== type) throw inconsistent(`entry ${head[1]}, which the log commits to as its newest ${type} entry, is a ${entry.type} entry: the log was altered`);
  return { row, entry };
}
