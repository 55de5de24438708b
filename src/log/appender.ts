// Group commit (DESIGN.md section 6): decisions that arrive while a batch is being signed wait
// for the next batch; each batch is one transaction and one signed checkpoint, and every entry
// in it gets its inclusion proof to that checkpoint. Under light load a batch is one entry.
// No I/O of its own: storage and signers come in as arguments.
import { bytesEqual, toHex } from '../canonical/index.js';
import { StoreError, VouchError } from '../errors.js';
import { signCheckpoint } from './checkpoint.js';
import { encodeEntry, GENESIS_PREV, type EntryBody } from './entry.js';
import { appendLeaf, emptyRange, extendRange, hashLeaf, inclusionProof, rangeRoot, type CompactRange, type Hash, type NodeReader, type TreeNode } from './merkle.js';
import type { NoteSigner } from './note.js';
import type { Attachment, LogStorage, StoredEntry } from './storage.js';

export interface Appended {
  seq: number;
  bytes: Uint8Array;
  leaf: Hash;
  /** Tree size of the checkpoint that covers this entry. */
  size: number;
  proof: Hash[];
  /** The signed checkpoint note covering this entry. */
  checkpoint: string;
}

export interface BatchStats {
  entries: number;
  size: number;
  signMs?: number;
}

export interface AppenderOptions {
  origin: string;
  storage: LogStorage;
  /** Checkpoint signers: the ML-DSA-65 key first, optionally an Ed25519 co-signer. */
  signers: NoteSigner[];
  /** Largest batch: bounds the latency one batch adds and the memory it holds. */
  maxBatch?: number;
  onBatch?: (stats: BatchStats) => void;
  /** Monotonic milliseconds, for batch statistics only (never part of an entry). */
  monotonic?: () => number;
}

interface Pending {
  body: EntryBody;
  attachments: Attachment[];
  resolve: (a: Appended) => void;
  reject: (e: unknown) => void;
}

export class Appender {
  private range: CompactRange;
  private prev: string;
  private queue: Pending[] = [];
  private running: Promise<void> | undefined;
  private closed = false;
  private readonly maxBatch: number;

  private constructor(private readonly opts: AppenderOptions, range: CompactRange, prev: string) {
    this.range = range;
    this.prev = prev;
    this.maxBatch = opts.maxBatch ?? 4096;
  }

  /**
   * Recompute the tree from every stored leaf and compare it with the last signed checkpoint
   * before signing anything: a store that was cut back, rewritten or half-written must never
   * make us sign a checkpoint inconsistent with one already published.
   */
  static open(opts: AppenderOptions): Appender {
    const { storage } = opts;
    const size = storage.size();
    const last = storage.latestCheckpoint();
    let prevLeaf = GENESIS_PREV;
    let range = emptyRange();
    for (const e of storage.entries(0, size)) {
      if (e.seq !== range.size) throw inconsistent(`entry seq ${e.seq} found where ${range.size} was expected`);
      if (!bytesEqual(hashLeaf(e.bytes), e.leaf)) throw inconsistent(`stored leaf hash of entry ${e.seq} does not match its bytes`);
      range = extendRange(range, [e.leaf]);
      prevLeaf = toHex(e.leaf);
    }
    if (size === 0 && last) throw inconsistent(`log is empty but a checkpoint of size ${last.size} exists`);
    if (last) {
      if (last.size !== size) throw inconsistent(`log holds ${size} entries but the last checkpoint signs ${last.size}`);
      if (!bytesEqual(rangeRoot(range), last.root)) {
        throw inconsistent(`root recomputed from ${size} stored leaves differs from the last signed checkpoint`);
      }
    } else if (size !== 0) {
      throw inconsistent(`log holds ${size} entries but no signed checkpoint`);
    }
    return new Appender(opts, range, prevLeaf);
  }

  get size(): number {
    return this.range.size;
  }

  get origin(): string {
    return this.opts.origin;
  }

  /** Append one entry; `attachments` (payloads it names by digest) commit in the same transaction. */
  append(body: EntryBody, attachments: Attachment[] = []): Promise<Appended> {
    if (this.closed) return Promise.reject(new StoreError('ERR_STORE_CLOSED', 'log is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ body, attachments, resolve, reject });
      this.pump();
    });
  }

  /** Stop taking appends, finish what is queued and in flight. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.running) await this.running;
  }

  private pump(): void {
    if (this.running) return;
    this.running = (async () => {
      try {
        while (this.queue.length > 0) {
          const items = this.queue.splice(0, this.maxBatch);
          await this.commit(items);
        }
      } finally {
        this.running = undefined;
      }
    })();
  }

  private async commit(items: Pending[]): Promise<void> {
    const { origin, storage, signers } = this.opts;
    let range = this.range;
    let prev = this.prev;
    const entries: StoredEntry[] = [];
    const nodes: TreeNode[] = [];
    const accepted: Pending[] = [];
    const payloads: Attachment[] = [];
    for (const item of items) {
      let bytes: Uint8Array;
      try {
        bytes = encodeEntry(origin, range.size, prev, item.body);
      } catch (e) {
        item.reject(e); // a bad body fails alone; it takes no seq
        continue;
      }
      const leaf = hashLeaf(bytes);
      const next = appendLeaf(range, leaf);
      entries.push({ seq: range.size, bytes, leaf });
      nodes.push(...next.created);
      accepted.push(item);
      payloads.push(...item.attachments);
      range = next.range;
      prev = toHex(leaf);
    }
    if (accepted.length === 0) return;
    const root = rangeRoot(range);
    let note: string;
    let signMs: number | undefined;
    try {
      const t0 = this.opts.monotonic?.();
      note = await signCheckpoint({ origin, size: range.size, root, extensions: [] }, signers);
      signMs = t0 === undefined ? undefined : this.opts.monotonic!() - t0;
      storage.appendBatch({ entries, nodes, checkpoint: { size: range.size, root, note }, payloads });
    } catch (e) {
      // Nothing was written (the batch is one transaction): every caller gets the failure,
      // and the next batch reuses these seqs.
      const err = e instanceof VouchError ? e : new StoreError('ERR_STORE', `batch failed: ${(e as Error)?.message ?? e}`, { cause: e });
      for (const item of accepted) item.reject(err);
      return;
    }
    this.range = range;
    this.prev = prev;
    this.opts.onBatch?.({ entries: accepted.length, size: range.size, signMs });
    const reader = overlay(nodes, storage);
    accepted.forEach((item, i) => {
      const e = entries[i];
      try {
        item.resolve({ seq: e.seq, bytes: e.bytes, leaf: e.leaf, size: range.size, proof: inclusionProof(e.seq, range.size, reader), checkpoint: note });
      } catch (err) {
        item.reject(err);
      }
    });
  }
}

function inconsistent(why: string): StoreError {
  return new StoreError('ERR_STORE_INCONSISTENT', `refusing to sign: ${why}`);
}

/** Proofs for a fresh batch read mostly its own nodes: look there before the store. */
function overlay(created: TreeNode[], storage: NodeReader): NodeReader {
  const map = new Map<string, Hash>();
  for (const n of created) map.set(`${n.level}/${n.index}`, n.hash);
  // Proofs of one batch share most of their left-side nodes: read each from the store once.
  return {
    node: (level, index) => {
      const key = `${level}/${index}`;
      let h = map.get(key);
      if (!h) map.set(key, (h = storage.node(level, index)));
      return h;
    },
  };
}
