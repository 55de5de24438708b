// Group commit (DESIGN.md section 6): decisions that arrive while batches are being signed wait
// for the next batch; each batch is one transaction and one signed checkpoint, and every entry
// in it gets its inclusion proof to that checkpoint. Under light load a batch is one entry. Up to
// `maxInFlight` batches are signed at once and commit strictly in order (measured: signing
// latency, not CPU, capped HTTP throughput with one batch at a time). No I/O of its own.
import { toHex } from '../canonical/index.js';
import { StoreError, VouchError } from '../errors.js';
import { signCheckpoint } from './checkpoint.js';
import { encodeEntry, type EntryBody } from './entry.js';
import { appendLeaf, hashLeaf, inclusionProof, rangeRoot, type CompactRange, type Hash, type NodeReader, type TreeNode } from './merkle.js';
import type { NoteSigner, NoteVerifier } from './note.js';
import { checkSignedTree } from './open-check.js';
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

/** What a service needs of a log's appender: this Appender, or the log thread's proxy of one (store/log-thread.ts). */
export interface LogAppender {
  readonly origin: string;
  /** Entries committed. */
  readonly size: number;
  append(body: EntryBody, attachments?: Attachment[]): Promise<Appended>;
  /** Sign a fresh checkpoint over everything committed (after what is queued): shutdown and idle checkpoints. */
  checkpointNow?(): Promise<SignedTree>;
  /** Whether it can sign now, and how far the background audit of its stored leaves has got. */
  health?(): LogHealth;
  close(): Promise<void>;
}

export interface LogHealth {
  /** Why it refuses to sign (every append fails with this). */
  halted?: VouchError;
  audit?: { checked: number; total: number; complete: boolean };
}

export interface SignedTree {
  size: number;
  note: string;
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
  /**
   * The log's own public keys (every key in `signers`): the newest stored checkpoint note must
   * verify with all of them before anything is signed. Without them a non-empty log is refused.
   */
  verifiers?: NoteVerifier[];
  /** Largest batch: bounds the latency one batch adds and the memory it holds. */
  maxBatch?: number;
  /**
   * Batches signed at once (default 2): while one signature is in the worker thread the next batch
   * is already being signed, so signing latency does not cap throughput. They commit in order.
   */
  maxInFlight?: number;
  /**
   * Under concurrent load, least time between the starts of two batches (default 0: start as soon
   * as a slot is free). Signing at once means signing small batches back to back, which keeps a
   * core busy on signatures; waiting a few ms lets the next batch grow and leaves that core to the
   * requests. "Under load" means the last batch held at least LOADED_BATCH entries, so a lone or
   * sequential caller never waits. Needs `monotonic`.
   */
  minIntervalMs?: number;
  onBatch?: (stats: BatchStats) => void;
  /** Monotonic milliseconds, for batch statistics and `minIntervalMs` only (never part of an entry). */
  monotonic?: () => number;
}

interface Pending {
  body: EntryBody;
  attachments: Attachment[];
  resolve: (a: Appended) => void;
  reject: (e: unknown) => void;
}

export class Appender implements LogAppender {
  private range: CompactRange;
  private prev: string;
  private queue: Pending[] = [];
  /** Batches being signed or waiting to commit, oldest first. */
  private inflight: InFlight[] = [];
  /** The tree and prev link as the newest prepared batch leaves them (ahead of the committed state). */
  private tip: { range: CompactRange; prev: string };
  private idleWaiters: (() => void)[] = [];
  /** When the last batch started and how many entries waited then (for `minIntervalMs`). */
  private last: { at: number; size: number } | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  /** Set once the log was found inconsistent after open (background audit): every append fails with it. */
  private haltedBy: StoreError | undefined;
  /** The signed tree the store reproduced at open (what the background audit checks leaves against). */
  readonly opened: { size: number; root: Hash };
  private readonly maxBatch: number;
  private readonly maxInFlight: number;

  private constructor(private readonly opts: AppenderOptions, range: CompactRange, prev: string, root: Hash) {
    this.opened = { size: range.size, root };
    this.range = range;
    this.prev = prev;
    this.tip = { range, prev };
    this.maxBatch = opts.maxBatch ?? 4096;
    this.maxInFlight = opts.maxInFlight ?? 2;
  }

  /**
   * Check the store against the newest signed checkpoint before signing anything, in O(log n)
   * reads (open-check.ts): a store that was cut back, rewritten or half-written must never make
   * us sign a checkpoint over a tree our keys did not sign. Leaf bytes are audited afterwards,
   * in the background (leaf-audit.ts), which halts this appender on a mismatch.
   */
  static open(opts: AppenderOptions): Appender {
    const { range, prev, root } = checkSignedTree(opts.storage, opts.origin, opts.verifiers);
    return new Appender(opts, range, prev, root);
  }

  /** Why this appender refuses to sign, if it does. */
  get halted(): StoreError | undefined {
    return this.haltedBy;
  }

  health(): LogHealth {
    return { halted: this.haltedBy };
  }

  /** Stop signing for good: queued appends and every later one fail with `why`; nothing more commits. */
  halt(why: StoreError): void {
    this.haltedBy ??= why;
    this.pump(); // rejects what is queued; batches in flight fail at commit
  }

  /** Sign the committed tree again once the queue is drained (shutdown and idle checkpoints). */
  async checkpointNow(): Promise<SignedTree> {
    while (this.queue.length > 0 || this.inflight.length > 0) await new Promise<void>((r) => this.idleWaiters.push(r));
    if (this.haltedBy) throw this.haltedBy;
    const size = this.range.size;
    const note = await signCheckpoint({ origin: this.opts.origin, size, root: rangeRoot(this.range), extensions: [] }, this.opts.signers);
    return { size, note };
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
    if (this.haltedBy) return Promise.reject(this.haltedBy);
    return new Promise((resolve, reject) => {
      this.queue.push({ body, attachments, resolve, reject });
      this.pump();
    });
  }

  /** Stop taking appends, finish what is queued and in flight. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.queue.length > 0 || this.inflight.length > 0) await new Promise<void>((r) => this.idleWaiters.push(r));
  }

  /**
   * Prepare and start signing batches while fewer than `maxInFlight` are being signed. Each
   * batch is built on the tree as the batches before it will leave it; they commit strictly in
   * order, so a signature never covers a tree that does not extend the last committed one.
   */
  private pump(): void {
    if (this.haltedBy) for (const item of this.queue.splice(0)) item.reject(this.haltedBy);
    while (this.queue.length > 0 && this.inflight.length < this.maxInFlight) {
      const now = this.opts.monotonic?.();
      const wait = this.waitBeforeBatch(now);
      if (wait > 0) {
        this.timer ??= setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, wait);
        break;
      }
      if (now !== undefined) this.last = { at: now, size: Math.min(this.queue.length, this.maxBatch) };
      const batch = this.prepare(this.queue.splice(0, this.maxBatch));
      if (!batch) continue;
      this.inflight.push(batch);
      batch.signing!.then(() => this.settle());
    }
    if (this.queue.length === 0 && this.inflight.length === 0) for (const r of this.idleWaiters.splice(0)) r();
  }

  /** Milliseconds before the next batch may start (see `minIntervalMs`); 0: start now. */
  private waitBeforeBatch(now: number | undefined): number {
    const { minIntervalMs } = this.opts;
    if (!minIntervalMs || now === undefined || !this.last) return 0;
    const loaded = this.last.size >= LOADED_BATCH || this.queue.length >= LOADED_BATCH;
    const since = now - this.last.at;
    return loaded && since < minIntervalMs ? minIntervalMs - since : 0;
  }

  private prepare(items: Pending[]): InFlight | undefined {
    const { origin, signers } = this.opts;
    let { range, prev } = this.tip;
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
    if (accepted.length === 0) return undefined;
    this.tip = { range, prev };
    const root = rangeRoot(range);
    const t0 = this.opts.monotonic?.();
    const batch: InFlight = { items: accepted, entries, nodes, payloads, range, prev, root, state: 'signing' };
    batch.signing = signCheckpoint({ origin, size: range.size, root, extensions: [] }, signers).then(
      (note) => {
        batch.note = note;
        batch.signMs = t0 === undefined ? undefined : this.opts.monotonic!() - t0;
        batch.state = 'signed';
      },
      (e) => {
        batch.error = e;
        batch.state = 'failed';
      },
    );
    return batch;
  }

  /** Commit every signed batch at the head of the line, in order. */
  private settle(): void {
    while (this.inflight.length > 0 && this.inflight[0].state !== 'signing') {
      const batch = this.inflight.shift()!;
      if (batch.state === 'signed' && this.haltedBy) {
        batch.error = this.haltedBy;
        batch.state = 'failed';
      }
      if (batch.state === 'signed') {
        try {
          this.opts.storage.appendBatch({ entries: batch.entries, nodes: batch.nodes, checkpoint: { size: batch.range.size, root: batch.root, note: batch.note! }, payloads: batch.payloads });
        } catch (e) {
          batch.error = e;
          batch.state = 'failed';
        }
      }
      if (batch.state === 'failed') {
        this.fail(batch);
        continue;
      }
      this.range = batch.range;
      this.prev = batch.prev;
      this.opts.onBatch?.({ entries: batch.items.length, size: batch.range.size, signMs: batch.signMs });
      const reader = overlay(batch.nodes, this.opts.storage);
      batch.items.forEach((item, i) => {
        const e = batch.entries[i];
        try {
          item.resolve({ seq: e.seq, bytes: e.bytes, leaf: e.leaf, size: batch.range.size, proof: inclusionProof(e.seq, batch.range.size, reader), checkpoint: batch.note! });
        } catch (err) {
          item.reject(err);
        }
      });
    }
    this.pump();
  }

  /**
   * Nothing of a failed batch was written (one transaction): its callers get the failure. The
   * batches signed after it were built on its tree, so they go back to the front of the queue,
   * in order, to be rebuilt on what is committed; their seqs are reused.
   */
  private fail(batch: InFlight): void {
    const e = batch.error;
    const err = e instanceof VouchError ? e : new StoreError('ERR_STORE', `batch failed: ${(e as Error)?.message ?? e}`, { cause: e });
    for (const item of batch.items) item.reject(err);
    const later = this.inflight.splice(0);
    for (const b of later) b.state = 'abandoned';
    this.queue.unshift(...later.flatMap((b) => b.items));
    this.tip = { range: this.range, prev: this.prev };
  }
}

interface InFlight {
  items: Pending[];
  entries: StoredEntry[];
  nodes: TreeNode[];
  payloads: Attachment[];
  range: CompactRange;
  prev: string;
  root: Hash;
  state: 'signing' | 'signed' | 'failed' | 'abandoned';
  signing?: Promise<void>;
  note?: string;
  error?: unknown;
  signMs?: number;
}

/** A batch this large means callers are arriving concurrently: see `minIntervalMs`. */
const LOADED_BATCH = 4;

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
