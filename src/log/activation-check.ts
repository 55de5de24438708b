// Rules come only from entries (issue 15 item 3): every decision must name the chain and policy set
// the newest `policy` entry before it activated (issue 35), and every payload an entry names must be stored unless
// an `erasure` entry removed it. `vouch log verify` (verifyLog's `checks`) and replay use these.
import { isDigest, type Digest } from '../canonical/index.js';
import type { Entry } from './entry.js';
import { PayloadPresenceCheck, type PayloadLedger } from './payload-presence.js';
import { HeadsRebuild, STATE_INDEX, type StateType } from './state-heads.js';

export { ENRICH_STATE_KEY, MAX_LISTED, PayloadPresenceCheck, payloadDigestsOf, PRESENCE_CACHE, type MovedErasure, type PayloadLedger, type UnexcusedPayload } from './payload-presence.js';

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
  /** Releases what the check holds outside the heap (a scratch file), when verify stops before end. */
  close?(): void;
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
  /** Pin and key entries (state changes, not decisions: they grow with an operator's acts, not with traffic). */
  private readonly seen: Record<'pin' | 'key', number[]> = { pin: [], key: [] };
  /** Only the newest policy entry is compared (the index is read for it alone). */
  private newestPolicy: number | undefined;
  constructor(private readonly store: IndexedReads) {}

  visit(e: Entry): RuleFinding | undefined {
    if (e.type === 'pin' || e.type === 'key') this.seen[e.type].push(e.seq);
    else if (e.type === 'policy') this.newestPolicy = e.seq;
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
        compare('policy', newest === undefined ? [] : [newest], this.newestPolicy === undefined ? [] : [this.newestPolicy]);
      }
    } catch (e) {
      out.push({ kind: 'index', seq: 0, message: `the indexes cannot be read: ${(e as Error).message}` });
    }
    return out;
  }
}

/**
 * The checks `vouch log verify` runs over a store's entries. `ledger` holds the payload check's
 * per-payload state outside the heap (store/payload-ledger.ts); close the checks when done.
 */
export function ruleChecks(store: { payload(digest: Digest): Uint8Array | undefined } & IndexedReads, ledger: PayloadLedger): EntryCheck[] {
  return [new ActivationTracker(), new PayloadPresenceCheck((d) => store.payload(d), ledger), new HeadsCheck(), new IndexCheck(store)];
}
