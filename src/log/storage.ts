// What the log core needs from storage: a synchronous reader of entries, nodes and checkpoints,
// and an atomic batch write. The store port (src/store/port.ts) extends this; the log never
// imports a store.
import type { CommitTag } from './commit-tag.js';
import type { Hash, NodeReader, TreeNode } from './merkle.js';

export interface StoredEntry {
  seq: number;
  bytes: Uint8Array;
  leaf: Hash;
  /**
   * Set only by readRows (read-rows.ts) for a row the store refused to decode: `bytes` are empty
   * and `leaf` is the stored tree's level-0 node. No store returns it.
   */
  refused?: Error;
}

export interface StoredCheckpoint {
  size: number;
  root: Hash;
  /** The signed note text, exactly as signed. */
  note: string;
}

/** One group commit of entries, the tree nodes they complete and their payloads (no checkpoint). */
export interface EntryBatch {
  entries: StoredEntry[];
  nodes: TreeNode[];
  /** Payloads the entries name by digest, written in the same transaction (no extra fsync). */
  payloads?: Attachment[];
  /** The tag of the tree after this batch (commit-tag.ts), replacing the stored one in the same transaction. */
  tag?: CommitTag;
}

/** One group commit with the checkpoint that signs it. */
export interface Batch extends EntryBatch {
  checkpoint: StoredCheckpoint;
}

/** A payload stored by digest beside an entry (input, intent, executed parameters). */
export interface Attachment {
  digest: string;
  bytes: Uint8Array;
}

/** Another copy of an entry, by seq, or undefined where there is none (LogStorage.entries). */
export type EntryCopies = (seq: number) => StoredEntry | undefined;

export interface LogStorage extends NodeReader {
  /** Number of entries (the next seq). */
  size(): number;
  entry(seq: number): StoredEntry | undefined;
  /**
   * Entries with from <= seq < to, in order, streamed. `copies`: another copy of entries by seq (the
   * tile archive's) that the caller hashes against their leaves itself: a compressed row equal to
   * its copy, bytes and leaf, is given as that copy, without a leaf hash of its own (entry-codec.ts).
   */
  entries(from: number, to: number, copies?: EntryCopies): Iterable<StoredEntry>;
  /** Stored nodes of one level with lo <= index <= hi, in index order (optional: one read instead of many). */
  nodeRange?(level: number, lo: number, hi: number): Iterable<TreeNode>;
  /**
   * Compares the stored nodes of one level from `lo` on with `hashes` (32 bytes each, in index order)
   * in the store, reading none of them back (optional: log verify compares every node with its
   * archived copy). `stored`: how many of those indexes have a node; `unlike`: those whose node differs.
   */
  nodesUnlike?(level: number, lo: number, hashes: Uint8Array): { stored: number; unlike: number[] };
  /** The newest checkpoint, or undefined for an empty log. */
  latestCheckpoint(): StoredCheckpoint | undefined;
  /** The checkpoint signed for exactly this tree size, if one was. */
  checkpointAt(size: number): StoredCheckpoint | undefined;
  /** Every checkpoint, oldest first, streamed. */
  checkpoints(): Iterable<StoredCheckpoint>;
  /** Write a whole batch in one transaction: all of it is durable, or none of it. */
  appendBatch(batch: Batch): void;
  /**
   * Durable before signed (optional): commit entries without a checkpoint, durably (fsync), and
   * store the checkpoint that covers them later. A store without these signs before it commits.
   */
  appendEntries?(batch: EntryBatch): void;
  putCheckpoint?(checkpoint: StoredCheckpoint): void;
  /** The newest commit's tag (stores that commit entries before signing them). */
  commitTag?(): CommitTag | undefined;
}
