// Rules come only from entries (issue 15 item 3): every decision must name the chain and policy set
// the newest `policy` entry before it activated (issue 35), and every payload an entry names must be stored unless
// an `erasure` entry removed it. `vouch log verify` (verifyLog's `checks`) and replay use these.
import { digestBytes, isDigest, type Digest } from '../canonical/index.js';
import type { Entry } from './entry.js';
import { HeadsRebuild, STATE_INDEX, type StateType } from './state-heads.js';

/** What an entry check reports; verifyLog turns it into a Finding with this kind. */
export interface RuleFinding {
  kind: 'activation' | 'payload' | 'key' | 'heads' | 'index';
  seq: number;
  message: string;
}

/** A check over the decoded entries in log order (verifyLog calls visit for each, then end). */
export interface EntryCheck {
  visit(entry: Entry): RuleFinding | undefined;
  end?(): RuleFinding[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The (chain, policy set) pairs a `policy` entry puts in force: its chain and, for a gateway, its
 * mirror chain (requests from the server run the same policy set). undefined for any other entry.
 */
export function pairsInForce(e: { type: string; chain?: unknown; policySet?: unknown; mirror?: unknown }): string[] | undefined {
  if (e.type !== 'policy') return undefined;
  if (!isDigest(e.chain) || !isDigest(e.policySet)) return [];
  return isDigest(e.mirror) ? [`${e.chain} ${e.policySet}`, `${e.mirror} ${e.policySet}`] : [`${e.chain} ${e.policySet}`];
}

/** The (chain, policy set) a decision names, or undefined when it names none. */
export function decisionPair(e: { [field: string]: unknown }): { chain: Digest; policySet: Digest } | undefined {
  const p = e.policy;
  return isRecord(p) && isDigest(p.chain) && isDigest(p.policySet) ? { chain: p.chain, policySet: p.policySet } : undefined;
}

/**
 * Every decision must be made under the policy in force: the pair the newest `policy` entry before
 * it activated, not any pair ever activated (issue 35: a log whose newest activation was hidden
 * from the service decided under an older one). The appender refuses to write such a decision
 * (ERR_POLICY_CHANGED: a request that was still running on the old policy when a new one came in),
 * so a log that holds one was not written by this service as it is.
 */
export class ActivationTracker implements EntryCheck {
  private inForce: string[] | undefined;
  private readonly activated = new Set<string>();
  /** Pairs already reported: one finding per pair, so a flood cannot crowd out other findings. */
  private readonly reported = new Set<string>();

  /** Record a policy entry, or check a decision; a finding when the decision's rules were not in force. */
  visit(e: Entry): RuleFinding | undefined {
    const pairs = pairsInForce(e);
    if (pairs) {
      this.inForce = pairs;
      for (const p of pairs) this.activated.add(p);
      return undefined;
    }
    if (e.type !== 'decision') return undefined;
    const p = decisionPair(e);
    if (!p) return { kind: 'activation', seq: e.seq, message: `decision ${e.seq} names no chain and policy-set digests` };
    return this.check(e.seq, p.chain, p.policySet);
  }

  /** undefined when (chain, policySet) is what the newest policy entry visited before put in force. */
  check(seq: number, chain: Digest, policySet: Digest): RuleFinding | undefined {
    const key = `${chain} ${policySet}`;
    if (this.inForce?.includes(key)) return undefined;
    const reportKey = `${key} ${this.inForce?.join(' ') ?? ''}`;
    if (this.reported.has(reportKey)) return undefined;
    this.reported.add(reportKey);
    const why = this.activated.has(key) ? 'which an earlier policy entry activated but a newer one replaced' : 'which no earlier policy entry activated';
    return { kind: 'activation', seq, message: `decision ${seq} was made under chain ${chain} and policy set ${policySet}, ${why} (later decisions like it are not listed again)` };
  }

  /** Visit only the policy entries of a prefix the caller does not check (replay --from). */
  learn(e: Entry): void {
    if (e.type === 'policy') this.visit(e);
  }
}

/**
 * The key of a decision's state under which the enrichment band records, per enricher, the digest
 * of what it added (interceptors/_enrich-band.ts writes it; defined here, where the log checks it).
 */
export const ENRICH_STATE_KEY = '(enrichment)';

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

/**
 * Payloads that entries name but the store lacks, unless an erasure entry (before or after) names
 * them: a missing payload with no erasure is a finding, never "benign". A stored payload must hash
 * to its digest (a rewritten one is a finding). A retention erasure (`digests` with `before`: only
 * payloads no entry at or after seq `before` names) that took a payload a newer entry still names
 * is a finding too: someone moved the store's retention index to make it erase early. A retention
 * erasure excuses only the copy it took: a payload named again after it (stored again by that
 * entry) and now missing was deleted by someone else. An erasure on request excuses the digest at
 * any seq (a decision can commit between its entry and the delete). `get` is the store's lookup.
 */
export class PayloadPresenceCheck implements EntryCheck {
  private readonly missing = new Map<Digest, number>();
  /** Erased on request (or by a batch with no `before`): absent at any seq is accounted for. */
  private readonly erased = new Set<Digest>();
  /** Erased by retention: digest -> the highest `before`; only namings below it are accounted for. */
  private readonly retainedBefore = new Map<Digest, { before: number; seq: number }>();
  /** digest -> the newest seq naming it so far. */
  private readonly lastNamed = new Map<Digest, number>();

  constructor(private readonly get: (digest: Digest) => Uint8Array | undefined) {}

  visit(e: Entry): RuleFinding | undefined {
    if (e.type === 'erasure') return this.erasure(e);
    let finding: RuleFinding | undefined;
    for (const d of payloadDigestsOf(e)) {
      const seen = this.lastNamed.has(d);
      this.lastNamed.set(d, e.seq);
      if (seen) continue;
      const bytes = this.get(d);
      if (!bytes) this.missing.set(d, e.seq);
      else if (digestBytes(bytes) !== d) finding ??= { kind: 'payload', seq: e.seq, message: `payload ${d} named by entry ${e.seq} is stored with bytes that hash to ${digestBytes(bytes)}: it was rewritten` };
    }
    return finding;
  }

  /** One digest (on request) or a batch (retention): entries/erasure.ts. */
  private erasure(e: Entry): RuleFinding | undefined {
    if (isDigest(e.digest)) this.erased.add(e.digest);
    if (!Array.isArray(e.digests)) return undefined;
    const before = Number.isSafeInteger(e.before) ? (e.before as number) : undefined;
    let finding: RuleFinding | undefined;
    for (const d of e.digests) {
      if (!isDigest(d)) continue;
      if (before === undefined) this.erased.add(d);
      else if ((this.retainedBefore.get(d)?.before ?? -1) < before) this.retainedBefore.set(d, { before, seq: e.seq });
      const named = this.lastNamed.get(d);
      if (before !== undefined && named !== undefined && named >= before && !this.get(d)) {
        finding ??= { kind: 'payload', seq: e.seq, message: `payload ${d} is gone under retention erasure ${e.seq} (payloads no entry since seq ${before} names), yet entry ${named} names it: the store's retention index was moved` };
      }
    }
    return finding;
  }

  end(): RuleFinding[] {
    const out: RuleFinding[] = [];
    for (const [digest, seq] of this.missing) {
      if (this.erased.has(digest)) continue;
      const last = this.lastNamed.get(digest) ?? seq;
      const retained = this.retainedBefore.get(digest);
      if (retained && last < retained.before) continue;
      out.push({
        kind: 'payload',
        seq: last,
        message: retained
          ? `payload ${digest} named by entry ${last} is not stored; retention erasure ${retained.seq} took only a copy no entry since seq ${retained.before} named, and no erasure entry removed this one`
          : `payload ${digest} named by entry ${seq} is not stored, and no erasure entry removed it`,
      });
    }
    return out;
  }
}

/** Each entry's `heads` must be the state the entries before it make (state-heads.ts). */
export class HeadsCheck implements EntryCheck {
  private readonly rebuild: HeadsRebuild;
  constructor(from = 0) {
    this.rebuild = new HeadsRebuild(from);
  }
  visit(e: Entry): RuleFinding | undefined {
    const why = this.rebuild.visit(e);
    return why === undefined ? undefined : { kind: 'heads', seq: e.seq, message: why };
  }
}

/** What a store's indexes return (SQLite's partial indexes); each optional. */
export interface IndexedReads {
  latestPolicyEntry?(): { seq: number } | undefined;
  pinEntries?(): Iterable<{ seq: number }>;
  keyEntries?(): Iterable<{ seq: number }>;
}

/**
 * What the store's indexes return must be what a scan of the entries finds: an index rebuilt
 * without some rows (issue 35) is named, though the service no longer takes its word for anything.
 */
export class IndexCheck implements EntryCheck {
  private readonly seen: Record<'pin' | 'key' | 'policy', number[]> = { pin: [], key: [], policy: [] };
  constructor(private readonly store: IndexedReads) {}

  visit(e: Entry): RuleFinding | undefined {
    if (e.type === 'pin' || e.type === 'key' || e.type === 'policy') this.seen[e.type].push(e.seq);
    return undefined;
  }

  end(): RuleFinding[] {
    const out: RuleFinding[] = [];
    const compare = (type: StateType, indexed: number[] | undefined, scanned: number[]) => {
      if (!indexed) return;
      const missing = scanned.filter((s) => !indexed.includes(s));
      const extra = indexed.filter((s) => !scanned.includes(s));
      if (missing.length || extra.length) {
        const say = (what: string, l: number[]) => (l.length ? `${what} ${l.slice(0, 10).join(', ')}${l.length > 10 ? ', …' : ''}` : '');
        out.push({ kind: 'index', seq: missing[0] ?? extra[0], message: `the index ${STATE_INDEX[type]} disagrees with the entries: ${[say('it hides', missing), say('it adds', extra)].filter(Boolean).join('; ')} (restore the file from a backup, or REINDEX ${STATE_INDEX[type]}, and find out who edited it)` });
      }
    };
    const seqs = (it: Iterable<{ seq: number }> | undefined) => (it ? [...it].map((r) => r.seq) : undefined);
    try {
      compare('pin', seqs(this.store.pinEntries?.()), this.seen.pin);
      compare('key', seqs(this.store.keyEntries?.()), this.seen.key);
      if (this.store.latestPolicyEntry) {
        const newest = this.store.latestPolicyEntry()?.seq;
        compare('policy', newest === undefined ? [] : [newest], this.seen.policy.slice(-1));
      }
    } catch (e) {
      out.push({ kind: 'index', seq: 0, message: `the indexes cannot be read: ${(e as Error).message}` });
    }
    return out;
  }
}

/** The checks `vouch log verify` runs over a store's entries. */
export function ruleChecks(store: { payload(digest: Digest): Uint8Array | undefined } & IndexedReads): EntryCheck[] {
  return [new ActivationTracker(), new PayloadPresenceCheck((d) => store.payload(d)), new HeadsCheck(), new IndexCheck(store)];
}
