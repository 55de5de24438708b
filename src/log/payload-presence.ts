// `vouch log verify`'s payload check (issue 40) in memory that does not grow with the log: what it
// must remember about each payload the store lacks goes to a ledger (the verifier's own scratch
// SQLite, store/payload-ledger.ts), written as it reads the entries and resolved once at the end.
import { digestBytes, isDigest, type Digest } from '../canonical/index.js';
import type { EntryCheck, RuleFinding } from './activation-check.js';
import type { Entry } from './entry.js';

/**
 * The key of a decision's state under which the enrichment band records, per enricher, the digest
 * of what it added (interceptors/_enrich-band.ts writes it; defined here, where the log checks it).
 */
export const ENRICH_STATE_KEY = '(enrichment)';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The payload digests an entry names and expects stored: a decision's input and intent, what its
 * enrichers added (the model was given those bytes), an execution's parameters.
 */
export function payloadDigestsOf(e: Entry): Digest[] {
  const out: Digest[] = [];
  const push = (d: unknown) => {
    if (isDigest(d) && !out.includes(d)) out.push(d);
  };
  if (e.type === 'decision') {
    for (const v of [e.input, e.intent]) if (isRecord(v)) push(v.digest);
    const band = isRecord(e.state) ? e.state[ENRICH_STATE_KEY] : undefined;
    if (Array.isArray(band)) for (const r of band) if (isRecord(r)) push(r.enrichment);
  } else if (e.type === 'execution' && isRecord(e.executed)) push(e.executed.digest);
  return out;
}

/** A retention erasure that took a payload an entry between its `before` and itself names. */
export interface MovedErasure {
  erasure: number;
  before: number;
  digest: Digest;
  /** The newest entry before the erasure naming the payload. */
  named: number;
}

/** A missing payload no erasure accounts for. */
export interface UnexcusedPayload {
  digest: Digest;
  first: number;
  last: number;
  /** The retention erasure with the highest `before` that named it (it took an older copy only). */
  retained?: { before: number; seq: number };
}

/**
 * What the check remembers about payloads the store lacks, entries' facts only (never the store's
 * word): which entries name each, which erasure entries removed it. It lives outside the JS heap
 * (the verifier's own scratch file): a log whose payloads retention erased names millions.
 */
export interface PayloadLedger {
  /** Entry `seq` names `digest`, which the store lacks. */
  named(digest: Digest, seq: number): void;
  /** An erasure entry at `seq` removed `digest` on request (or in a batch without `before`): absent at any seq is accounted for. */
  requested(digest: Digest, seq: number): void;
  /** A retention erasure at `seq` took `digest`'s copy that no entry at or after `before` named. */
  retained(digest: Digest, before: number, seq: number): void;
  /** After the last entry: each retention erasure (one line each) that took a payload named at or after its `before`, in seq order. */
  moved(): Iterable<MovedErasure>;
  /** After the last entry: every missing payload no erasure accounts for, in the order first named. */
  unexcused(): Iterable<UnexcusedPayload>;
  /** Rows written so far (what the scratch holds instead of the heap). */
  readonly rows: number;
  close(): void;
}

/** Digests whose presence (and, when stored, hash) is remembered, so a payload named again and again is looked up once. */
export const PRESENCE_CACHE = 4096;
/** Findings of one kind listed at most; past it, one finding says how many more. */
export const MAX_LISTED = 10_000;

/**
 * Payloads that entries name but the store lacks, unless an erasure entry (before or after) names
 * them: a missing payload with no erasure is a finding, never "benign". A stored payload must hash
 * to its digest (a rewritten one is a finding). A retention erasure (`digests` with `before`: only
 * payloads no entry at or after seq `before` names) that took a payload a newer entry still names
 * is a finding too: someone moved the store's retention index to make it erase early. A retention
 * erasure excuses only the copy it took: a payload named again after it (stored again by that
 * entry) and now missing was deleted by someone else. An erasure on request excuses the digest at
 * any seq (a decision can commit between its entry and the delete). `get` is the store's lookup.
 *
 * Memory: a fixed-size presence cache and the findings listed; everything per payload goes to the
 * ledger, and only for payloads the store lacks (a store that holds them all writes nothing).
 */
export class PayloadPresenceCheck implements EntryCheck {
  /** digest -> stored (and hashed to itself); insertion order is eviction order. */
  private readonly present = new Map<Digest, boolean>();
  /** Rewritten digests already listed: one finding per payload, however often it is named. */
  private readonly rewritten = new Set<Digest>();
  private closed = false;

  constructor(
    private readonly get: (digest: Digest) => Uint8Array | undefined,
    private readonly ledger: PayloadLedger,
  ) {}

  visit(e: Entry): RuleFinding | undefined {
    if (e.type === 'erasure') return this.erasure(e), undefined;
    let finding: RuleFinding | undefined;
    for (const d of payloadDigestsOf(e)) {
      const stored = this.isStored(d, e.seq);
      if (stored === false) this.ledger.named(d, e.seq);
      else if (typeof stored === 'string') finding ??= { kind: 'payload', seq: e.seq, message: stored };
    }
    return finding;
  }

  /**
   * true when stored (hash checked), false when missing, or the rewritten finding's message the
   * first time a rewritten payload is met. Presence does not change while verify reads the file.
   */
  private isStored(d: Digest, seq: number): boolean | string {
    const known = this.present.get(d);
    if (known !== undefined) return known;
    const bytes = this.get(d);
    let result: boolean | string = bytes !== undefined;
    if (bytes) {
      const actual = digestBytes(bytes);
      if (actual !== d && !this.rewritten.has(d)) {
        if (this.rewritten.size < MAX_LISTED) this.rewritten.add(d);
        result = `payload ${d} named by entry ${seq} is stored with bytes that hash to ${actual}: it was rewritten`;
      }
    }
    if (this.present.size >= PRESENCE_CACHE) this.present.delete(this.present.keys().next().value!);
    this.present.set(d, bytes !== undefined);
    return result;
  }

  /** Whether the store lacks `d`, without hashing it (an entry naming it does that). */
  private isMissing(d: Digest): boolean {
    const known = this.present.get(d);
    return known === undefined ? this.get(d) === undefined : !known;
  }

  /** One digest (on request) or a batch (retention): entries/erasure.ts. Only payloads the store lacks matter. */
  private erasure(e: Entry): void {
    if (isDigest(e.digest) && this.isMissing(e.digest)) this.ledger.requested(e.digest, e.seq);
    if (!Array.isArray(e.digests)) return;
    const before = Number.isSafeInteger(e.before) ? (e.before as number) : undefined;
    for (const d of e.digests) {
      if (!isDigest(d) || !this.isMissing(d)) continue;
      if (before === undefined) this.ledger.requested(d, e.seq);
      else this.ledger.retained(d, before, e.seq);
    }
  }

  end(): RuleFinding[] {
    const out: RuleFinding[] = [];
    try {
      let more = 0;
      for (const m of this.ledger.moved()) {
        if (out.length >= MAX_LISTED) more++;
        else out.push({ kind: 'payload', seq: m.erasure, message: `payload ${m.digest} is gone under retention erasure ${m.erasure} (payloads no entry since seq ${m.before} names), yet entry ${m.named} names it: the store's retention index was moved` });
      }
      const listed = out.length;
      for (const u of this.ledger.unexcused()) {
        if (out.length - listed >= MAX_LISTED) more++;
        else
          out.push({
            kind: 'payload',
            seq: u.last,
            message: u.retained
              ? `payload ${u.digest} named by entry ${u.last} is not stored; retention erasure ${u.retained.seq} took only a copy no entry since seq ${u.retained.before} named, and no erasure entry removed this one`
              : `payload ${u.digest} named by entry ${u.first} is not stored, and no erasure entry removed it`,
          });
      }
      if (more) out.push({ kind: 'payload', seq: out[out.length - 1].seq, message: `${more} more payload findings like these are not listed` });
    } finally {
      this.close();
    }
    return out;
  }

  /** Drops the ledger's scratch (end does; call it when verify stops before the end). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.ledger.close();
  }

  /** What the check holds in the heap: bounded by PRESENCE_CACHE and MAX_LISTED, whatever the log's size. */
  get heldInMemory(): number {
    return this.present.size + this.rewritten.size;
  }
}
