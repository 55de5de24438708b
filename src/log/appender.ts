// Group commit, durable before signed (DESIGN.md section 6): appends that arrive together commit
// as one transaction (one fsync) and are durable then; a checkpoint signed a little later covers
// every entry committed before it, as in certificate-transparency logs. Callers wait for either
// (`appendDurable` / `append`). One pacing policy (pacing.ts) for every deployment shape: commit
// at once, sign the newest tree whenever the signer is free, and under load no more often than
// `minIntervalMs`; when the oldest unsigned entry is older than `maxCoverageMs`, appends are
// refused (ERR_STORE_BEHIND) until signing catches up. A store that cannot commit unsigned
// entries (no `appendEntries`) commits each checkpoint with its entries: durable means signed.
import { toHex } from '../canonical/index.js';
import { StoreError, VouchError } from '../errors.js';
import { signCheckpoint } from './checkpoint.js';
import { encodeEntry, type EntryBody } from './entry.js';
import { NOT_FOLLOWED, type Appended, type BatchStats, type Durable, type DurableOptions, type LogAppender, type LogHealth, type SignedTree } from './appending.js';
import { appendLeaf, cachedReader, hashLeaf, inclusionProof, rangeRoot, type CompactRange, type Hash } from './merkle.js';
import type { NoteSigner, NoteVerifier } from './note.js';
import { checkSignedTree, inconsistent } from './open-check.js';
import { commitTag } from './commit-tag.js';
import { pacingOf, signDelay, type Pacing } from './pacing.js';
import type { Attachment, EntryBatch, LogStorage, StoredEntry } from './storage.js';
import { nextHeads, type Heads } from './heads.js';
import { committedHeads, committedNewest } from './committed-state.js';
import { decisionPair, pairsInForce } from './activation-check.js';

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

interface Pending {
  body: EntryBody;
  attachments: Attachment[];
  /** Its caller waits for the signed checkpoint (append), not only for the commit: pacing signs sooner. */
  signedWanted?: boolean;
  /** false: nobody reads `signed` (DurableOptions): no proof is made, `signed` is NOT_FOLLOWED. */
  follow?: boolean;
  /** A key rotation (key-history.ts): committed alone, signed by the current keys, then these sign. */
  rotateTo?: NoteSigner[];
  /** With rotateTo: the incoming keys' commit key (commits after the handover are tagged under it). */
  rotateKey?: Uint8Array;
  resolve: (d: Durable) => void;
  reject: (e: unknown) => void;
}

/** A committed entry waiting for its checkpoint. */
interface Waiter extends StoredEntry {
  /** Set once the caller has its durable answer (at commit, or with the checkpoint on a store that signs first). */
  told: boolean;
  item: Pending;
  /** Kept until the caller is told (a store that signs first). */
  signedPromise?: Promise<Appended>;
  resolve: (a: Appended) => void;
  reject: (e: unknown) => void;
}

/** A committed batch not yet covered by a signed checkpoint. */
interface Uncovered {
  size: number;
  entries: number;
  at: number;
  /** Held for a store that commits entries with their checkpoint only. */
  held?: EntryBatch;
}

/** Where the log ends: its tree, the next entry's prev, and the state its newest entry commits to. */
interface Tip {
  range: CompactRange;
  prev: string;
  heads: Heads;
  inForce: string[] | undefined;
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
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the armed timer fires (monotonic ms). */
  private timerDue: number | undefined;
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
    if (this.timer) clearTimeout(this.timer);
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
    let { range, prev, heads, inForce } = this;
    const batch: EntryBatch = { entries: [], nodes: [], payloads: [] };
    const accepted: Pending[] = [];
    for (const item of items) {
      let bytes: Uint8Array;
      const body = item.body;
      // A decision made under rules that are no longer in force (it was still running when a new
      // policy entry was written) is refused, not recorded: every decision in the log is under
      // the newest activation before it, which verifiers check.
      const pair = body.type === 'decision' && inForce ? decisionPair(body) : undefined;
      if (pair && !inForce!.includes(`${pair.chain} ${pair.policySet}`)) {
        item.reject(new StoreError('ERR_POLICY_CHANGED', 'the policy in force changed while this request was decided: nothing was recorded or allowed; send it again'));
        continue;
      }
      const nextState = nextHeads(heads, body.type, range.size);
      try {
        bytes = encodeEntry(origin, range.size, prev, body, nextState);
      } catch (e) {
        item.reject(e); // a bad body fails alone; it takes no seq
        continue;
      }
      heads = nextState;
      inForce = pairsInForce(body) ?? inForce;
      const leaf = hashLeaf(bytes);
      const next = appendLeaf(range, leaf);
      batch.entries.push({ seq: range.size, bytes, leaf });
      batch.nodes.push(...next.created);
      accepted.push(item);
      batch.payloads!.push(...item.attachments);
      range = next.range;
      prev = toHex(leaf);
    }
    if (accepted.length === 0) return;
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
      const e = batch.entries[i];
      const w = { ...e, told: false, item } as Waiter;
      let signed = NOT_FOLLOWED;
      if (item.follow === false) w.resolve = w.reject = () => undefined;
      else {
        signed = new Promise<Appended>((resolve, reject) => {
          w.resolve = resolve;
          w.reject = reject;
        });
        signed.catch(() => undefined); // a durable-only caller may never look
      }
      this.waiters.push(w);
      if (this.early) this.tell(w, signed);
      else w.signedPromise = signed;
    });
  }

  private tell(w: Waiter, signed: Promise<Appended>): void {
    w.told = true;
    w.item.resolve({ seq: w.seq, bytes: w.bytes, leaf: w.leaf, signed });
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
      // A caller that wants the signature may arrive while a longer (durable-only) wait is armed.
      const due = now + wait;
      if (this.timer && this.timerDue !== undefined && this.timerDue <= due) return;
      if (this.timer) clearTimeout(this.timer);
      this.timerDue = due;
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.timerDue = undefined;
        this.maybeSign();
      }, wait);
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
      else this.opts.storage.appendBatch({ ...merge(batches.map((b) => b.held!)), checkpoint: { size, root, note } });
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
    const reader = cachedReader(this.opts.storage);
    for (const w of done) {
      if (!w.told) this.tell(w, w.signedPromise!);
      if (w.item.follow === false) continue; // nobody reads it: no proof
      try {
        w.resolve({ seq: w.seq, bytes: w.bytes, leaf: w.leaf, size, proof: inclusionProof(w.seq, size, reader), checkpoint: note });
      } catch (err) {
        w.reject(err);
      }
    }
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
    for (const w of this.waiters.splice(0, n)) {
      if (w.told) w.reject(err);
      else w.item.reject(err);
    }
    if (!this.early) this.uncovered = [];
  }
}

function merge(held: EntryBatch[]): EntryBatch {
  if (held.length === 1) return held[0];
  return { entries: held.flatMap((h) => h.entries), nodes: held.flatMap((h) => h.nodes), payloads: held.flatMap((h) => h.payloads ?? []) };
}
