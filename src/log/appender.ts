// Group commit, durable before signed (DESIGN.md section 6): appends that arrive together commit
// as one transaction (one fsync) and are durable then; a checkpoint signed a little later covers
// every entry committed before it, as in certificate-transparency logs. Callers wait for either
// (`appendDurable` / `append`). One pacing policy (pacing.ts) for every deployment shape: commit
// at once, sign the newest tree whenever the signer is free, and under load no more often than
// `minIntervalMs`; when the oldest unsigned entry is older than `maxCoverageMs`, appends are
// refused (ERR_STORE_BEHIND) until signing catches up. A store that cannot commit unsigned
// entries (no `appendEntries`) commits each checkpoint with its entries: durable means signed.
import { StoreError, VouchError } from '../errors.js';
import { signCheckpoint } from './checkpoint.js';
import type { EntryBody } from './entry.js';
import type { Appended, BatchStats, Durable, DurableOptions, LogAppender, LogHealth, SignedTree } from './appending.js';
import { rangeRoot, type CompactRange, type Hash } from './merkle.js';
import type { NoteSigner, NoteVerifier } from './note.js';
import { checkSignedTree, inconsistent } from './open-check.js';
import { commitTag } from './commit-tag.js';
import { pacingOf, signDelay, type Pacing } from './pacing.js';
import type { Attachment, EntryBatch, LogStorage } from './storage.js';
import type { Heads } from './heads.js';
import { committedHeads, committedNewest } from './committed-state.js';
import { pairsInForce } from './activation-check.js';
import { buildBatch, mergeBatches, type Pending, type Tip } from './_append-batch.js';
import { answerCovered, failWaiters, tellDurable, waiterFor, type Waiter } from './_append-waiters.js';
import { SignTimer } from './_sign-timer.js';

export interface AppenderOptions extends Partial<Pacing> {
  origin: string;
  storage: LogStorage;
  /** Checkpoint signers: the ML-DSA-65 key first, optionally an Ed25519 co-signer. */
  signers: NoteSigner[];
  /**
   * The log's own public keys (every key in `signers`): the newest stored checkpoint note must
   * verify with all of them before anything is signed. Without them a non-empty log is refused.
   */
  verifiers?: NoteVerifier[];
  /**
   * Key of the commit tags (commit-tag.ts; `commitKeyOf` the ML-DSA-65 seed). Each early commit is
   * tagged under it, and entries a crash left committed but unsigned are signed at open only if
   * their tag verifies. Without it such entries are refused (they could be anyone's).
   */
  commitKey?: Uint8Array;
  /** Further keys an unsigned tail's tag may verify under at open (a key rotation that stopped half way). */
  formerCommitKeys?: Uint8Array[];
  /** Largest batch: bounds the memory one commit holds. */
  maxBatch?: number;
  onBatch?: (stats: BatchStats) => void;
  /** Monotonic milliseconds (pacing, coverage bound and statistics; never part of an entry). */
  monotonic?: () => number;
}

/** A committed batch not yet covered by a signed checkpoint. */
interface Uncovered {
  size: number;
  entries: number;
  at: number;
  /** Held for a store that commits entries with their checkpoint only. */
  held?: EntryBatch;
}

const schedule: (f: () => void) => void = typeof setImmediate === 'function' ? (f) => void setImmediate(f) : (f) => void setTimeout(f, 0);

export class Appender implements LogAppender {
  private range: CompactRange;
  private prev: string;
  /** The state the newest committed entry commits to (heads.ts): every entry written carries its own. */
  private heads: Heads;
  /** The (chain, policy set) pairs the newest policy entry put in force (a decision under another is refused); undefined: none yet. */
  private inForce: string[] | undefined;
  /** The signed tree (rewind point for a store that commits entries with their checkpoint). */
  private signed: Tip;
  private queue: Pending[] = [];
  private waiters: Waiter[] = [];
  private uncovered: Uncovered[] = [];
  private signing = false;
  /** Set when the last signature failed: the next waits `retryMs`; close gives up on the tail. */
  private signFailedAt: number | undefined;
  private flushing = false;
  private idleWaiters: (() => void)[] = [];
  /** When the last signature started and how many entries it covered (pacing.ts). */
  private last: { at: number; entries: number; signMs?: number } | undefined;
  /** Recent signature time (a moving average, ms): a slow signer stretches the interval under load (pacing.ts signShare). */
  private signMs: number | undefined;
  private timer = new SignTimer();
  private closed = false;
  /** Set once the log was found inconsistent after open (background audit): every append fails with it. */
  private haltedBy: StoreError | undefined;
  /** The signed tree the store reproduced at open (what the background audit checks leaves against). */
  readonly opened: { size: number; root: Hash };
  private readonly maxBatch: number;
  private readonly pacing: Pacing;
  private readonly now: () => number;
  private readonly early: boolean;
  /** A committed key rotation waiting for its handover checkpoint (exactly its size, signed by the outgoing keys): nothing more commits until then. */
  private handover: { size: number; signers: NoteSigner[]; commitKey?: Uint8Array } | undefined;

  private constructor(private readonly opts: AppenderOptions, tip: Tip, root: Hash, signedSize: number) {
    const { range, prev } = tip;
    this.opened = { size: signedSize, root };
    this.range = range;
    this.prev = prev;
    this.heads = tip.heads;
    this.inForce = tip.inForce;
    this.signed = tip;
    this.maxBatch = opts.maxBatch ?? 4096;
    this.pacing = pacingOf(opts);
    this.now = opts.monotonic ?? (() => performance.now());
    this.early = typeof opts.storage.appendEntries === 'function' && typeof opts.storage.putCheckpoint === 'function';
    // Entries a crash left committed but unsigned (open-check.ts checked them): sign them first.
    if (range.size > signedSize) {
      this.uncovered.push({ size: range.size, entries: range.size - signedSize, at: this.now() });
      schedule(() => this.maybeSign());
    }
  }

  /**
   * Check the store against the newest signed checkpoint before signing anything, in O(log n)
   * reads plus the unsigned tail (open-check.ts): a store that was cut back, rewritten or
   * half-written must never make us sign a checkpoint over a tree our keys did not sign. Leaf
   * bytes are audited afterwards, in the background (leaf-audit.ts), which halts this appender.
   */
  static open(opts: AppenderOptions): Appender {
    const { range, prev, root, signed, tailTagged } = checkSignedTree(opts.storage, opts.origin, opts.verifiers, opts.commitKey && [opts.commitKey, ...(opts.formerCommitKeys ?? [])]);
    if (range.size > signed && !tailTagged) throw inconsistent(`${range.size - signed} entries after the newest signed checkpoint (size ${signed}) and no commit key to check that this service committed them`);
    // The state the log commits to (O(log n); a log from before heads is counted once), and the policy in force by its seq.
    const heads = committedHeads(opts.storage, range.size);
    const policy = committedNewest(opts.storage, 'policy', range.size, heads);
    return new Appender(opts, { range, prev, heads, inForce: policy && pairsInForce(policy.entry) }, root, signed);
  }

  get halted(): StoreError | undefined {
    return this.haltedBy;
  }

  health(): LogHealth {
    return { halted: this.haltedBy };
  }

  /** Stop signing for good: queued appends, waiting callers and every later append fail with `why`. */
  halt(why: StoreError): void {
    this.haltedBy ??= why;
    for (const item of this.queue.splice(0)) item.reject(why);
    this.failWaiters(this.waiters.length, why);
    this.wake();
  }

  /** Sign the committed tree again once everything is committed and covered (shutdown and idle checkpoints). */
  async checkpointNow(): Promise<SignedTree> {
    await this.idle();
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

  /** Append one entry and wait for the signed checkpoint that covers it. */
  append(body: EntryBody, attachments: Attachment[] = []): Promise<Appended> {
    return this.appendDurable(body, attachments, { signed: true }).then((d) => d.signed);
  }

  /** Append one entry; `attachments` (payloads it names by digest) commit in the same transaction. */
  appendDurable(body: EntryBody, attachments: Attachment[] = [], opts: { signed?: boolean } & DurableOptions = {}): Promise<Durable> {
    if (this.closed) return Promise.reject(new StoreError('ERR_STORE_CLOSED', 'log is closed'));
    if (this.haltedBy) return Promise.reject(this.haltedBy);
    const behind = this.behind();
    if (behind) return Promise.reject(behind);
    return new Promise((resolve, reject) => {
      this.queue.push({ body, attachments, resolve, reject, signedWanted: opts.signed === true && opts.follow !== false, ...(opts.follow === false && { follow: false }) });
      if (!this.flushing) {
        this.flushing = true;
        schedule(() => this.flush());
      }
    });
  }

  /**
   * Key rotation: `body` (a `key` rotate entry) is committed alone and covered by a checkpoint of
   * exactly its size signed by the current keys (the handover); every later checkpoint is signed
   * by `signers`. Appends queued meanwhile commit after the handover.
   */
  rotate(body: EntryBody, signers: NoteSigner[], commitKey?: Uint8Array): Promise<Appended> {
    if (this.closed) return Promise.reject(new StoreError('ERR_STORE_CLOSED', 'log is closed'));
    if (this.haltedBy) return Promise.reject(this.haltedBy);
    return new Promise<Durable>((resolve, reject) => {
      this.queue.push({ body, attachments: [], rotateTo: signers, rotateKey: commitKey, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        schedule(() => this.flush());
      }
    }).then((d) => d.signed);
  }

  /** Stop taking appends, commit what is queued and wait for its checkpoint. */
  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
    this.timer.cancel();
  }

  /** Coverage bound: refuse new entries while the oldest unsigned one is older than `maxCoverageMs`. */
  private behind(): StoreError | undefined {
    const oldest = this.uncovered[0];
    if (!oldest) return undefined;
    const age = this.now() - oldest.at;
    if (age <= this.pacing.maxCoverageMs) return undefined;
    return new StoreError('ERR_STORE_BEHIND', `checkpoint signing is behind: entry ${oldest.size - oldest.entries} has waited ${Math.round(age)} ms for a signed checkpoint (bound ${this.pacing.maxCoverageMs} ms); no decision is made until it catches up`);
  }

  private idle(): Promise<void> {
    return this.isIdle() ? Promise.resolve() : new Promise<void>((r) => this.idleWaiters.push(r));
  }

  private isIdle(): boolean {
    if (this.queue.length > 0 || this.flushing || this.signing) return false;
    return this.uncovered.length === 0 || this.haltedBy !== undefined || this.signFailedAt !== undefined;
  }

  private wake(): void {
    if (this.isIdle()) for (const r of this.idleWaiters.splice(0)) r();
  }

  /** Commit everything queued, `maxBatch` at a time, each batch one transaction. */
  private flush(): void {
    this.flushing = false;
    while (this.queue.length > 0 && !this.haltedBy && !this.handover) {
      const r = this.queue.findIndex((q) => q.rotateTo);
      const items = this.queue.splice(0, r === 0 ? 1 : r > 0 ? Math.min(r, this.maxBatch) : this.maxBatch);
      this.commit(items);
      if (r === 0 && this.waiters[this.waiters.length - 1]?.item === items[0]) this.handover = { size: this.range.size, signers: items[0].rotateTo!, commitKey: items[0].rotateKey };
    }
    if (this.haltedBy) for (const item of this.queue.splice(0)) item.reject(this.haltedBy);
    this.maybeSign();
    this.wake();
  }

  private commit(items: Pending[]): void {
    const { origin, storage } = this.opts;
    const { batch, accepted, tip } = buildBatch(origin, { range: this.range, prev: this.prev, heads: this.heads, inForce: this.inForce }, items);
    if (accepted.length === 0) return;
    const { range, prev, heads, inForce } = tip;
    if (this.early) {
      if (this.opts.commitKey) batch.tag = commitTag(this.opts.commitKey, origin, range.size, rangeRoot(range));
      try {
        storage.appendEntries!(batch);
      } catch (e) {
        const err = e instanceof VouchError ? e : new StoreError('ERR_STORE', `batch failed: ${(e as Error)?.message ?? e}`, { cause: e });
        for (const item of accepted) item.reject(err); // nothing of it was written: the next batch reuses its seqs
        return;
      }
    }
    this.range = range;
    this.prev = prev;
    this.heads = heads;
    this.inForce = inForce;
    this.uncovered.push({ size: range.size, entries: accepted.length, at: this.now(), held: this.early ? undefined : batch });
    accepted.forEach((item, i) => {
      const { w, signed } = waiterFor(batch.entries[i], item);
      this.waiters.push(w);
      if (this.early) tellDurable(w, signed);
      else w.signedPromise = signed;
    });
  }

  /** Sign the newest committed tree if nothing is being signed and pacing allows. */
  private maybeSign(): void {
    if (this.signing || this.haltedBy || this.uncovered.length === 0) return;
    const now = this.now();
    const pending = this.range.size - this.signed.range.size;
    // A store that commits entries with their checkpoint (the Durable Object) makes every caller
    // wait for the signature, durable or not: only where entries commit first may signing slow down.
    const signedWaiting = !this.early || this.waiters.some((w) => w.item.signedWanted !== false);
    const wait = signDelay(this.pacing, now, this.last, pending, this.signFailedAt, signedWaiting);
    if (wait > 0) {
      this.timer.arm(now, wait, () => this.maybeSign());
      return;
    }
    const tip: Tip = { range: this.range, prev: this.prev, heads: this.heads, inForce: this.inForce };
    const range = tip.range;
    const root = rangeRoot(range);
    this.signing = true;
    this.last = { at: now, entries: pending, signMs: this.signMs };
    signCheckpoint({ origin: this.opts.origin, size: range.size, root, extensions: [] }, this.opts.signers).then(
      (note) => this.covered(tip, root, note, this.now() - now),
      (e) => this.signFailed(e),
    );
  }

  /** A checkpoint over `range` is signed: store it, then answer every entry it covers. */
  private covered(tip: Tip, root: Hash, note: string, signMs: number): void {
    const range = tip.range;
    this.signing = false;
    // One slow signature (a pause of the signing thread) moves the average a quarter of the way;
    // a reading that is not a finite, non-negative time (a clock gone wrong) is not folded in.
    if (Number.isFinite(signMs) && signMs >= 0) this.signMs = this.signMs === undefined ? signMs : 0.75 * this.signMs + 0.25 * signMs;
    if (this.last) this.last.signMs = this.signMs;
    const size = range.size;
    const count = this.uncovered.findIndex((u) => u.size > size);
    const batches = this.uncovered.splice(0, count < 0 ? this.uncovered.length : count);
    try {
      if (this.haltedBy) throw this.haltedBy;
      if (this.early) this.opts.storage.putCheckpoint!({ size, root, note });
      else this.opts.storage.appendBatch({ ...mergeBatches(batches.map((b) => b.held!)), checkpoint: { size, root, note } });
    } catch (e) {
      this.uncovered.unshift(...batches);
      return this.signFailed(e, true);
    }
    this.signed = tip;
    this.signFailedAt = undefined;
    if (this.handover && size >= this.handover.size) {
      this.opts.signers = this.handover.signers; // the handover is signed and stored: the incoming keys sign from here
      if (this.handover.commitKey) this.opts.commitKey = this.handover.commitKey;
      this.handover = undefined;
      if (this.queue.length > 0 && !this.flushing) (this.flushing = true), schedule(() => this.flush());
    }
    const at = this.now();
    for (const b of batches) this.opts.onBatch?.({ entries: b.entries, size: b.size, signMs, coverMs: at - b.at });
    const n = this.waiters.findIndex((w) => w.seq >= size);
    const done = this.waiters.splice(0, n < 0 ? this.waiters.length : n);
    answerCovered(done, size, note, this.opts.storage);
    this.maybeSign();
    this.wake();
  }

  /**
   * A signature (or storing it) failed. Entries already durable stay committed and the next
   * checkpoint covers them; the callers waiting now are told. A store that commits entries with
   * their checkpoint wrote nothing: its tree goes back to the signed one and its callers fail.
   */
  private signFailed(e: unknown, stored = false): void {
    this.signing = false;
    this.signFailedAt = this.now();
    const err = e instanceof VouchError ? e : new StoreError('ERR_STORE', `${stored ? 'storing' : 'signing'} the checkpoint failed: ${(e as Error)?.message ?? e}`, { cause: e });
    this.failWaiters(this.waiters.length, err);
    if (!this.early) {
      this.uncovered = [];
      ({ range: this.range, prev: this.prev, heads: this.heads, inForce: this.inForce } = this.signed);
      if (this.handover) {
        this.handover = undefined; // the rotation entry was not written: its caller failed above
        if (this.queue.length > 0 && !this.flushing) (this.flushing = true), schedule(() => this.flush());
      }
    }
    this.maybeSign();
    this.wake();
  }

  private failWaiters(n: number, err: unknown): void {
    failWaiters(this.waiters.splice(0, n), err);
    if (!this.early) this.uncovered = [];
  }
}
