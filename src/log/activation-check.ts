// Rules come only from entries (issue 15 item 3): every decision must name a chain and policy set
// that an earlier `policy` entry activated, and every payload an entry names must be stored unless
// an `erasure` entry removed it. `vouch log verify` (verifyLog's `checks`) and replay use these.
import { digestBytes, isDigest, type Digest } from '../canonical/index.js';
import type { Entry } from './entry.js';

/** What an entry check reports; verifyLog turns it into a Finding with this kind. */
export interface RuleFinding {
  kind: 'activation' | 'payload' | 'key';
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
 * The (chain, policy set) pairs activated so far. A gateway's `policy` entry names its mirror chain
 * (requests from the server) as `mirror`: that chain runs the same policy set, so it is activated too.
 */
export class ActivationTracker implements EntryCheck {
  private readonly activated = new Set<string>();
  /** Unactivated pairs already reported: one finding per pair, so a flood cannot crowd out other findings. */
  private readonly reported = new Set<string>();

  /** Record a policy entry, or check a decision; a finding when the decision's rules were never activated. */
  visit(e: Entry): RuleFinding | undefined {
    if (e.type === 'policy') {
      if (isDigest(e.chain) && isDigest(e.policySet)) {
        this.activated.add(`${e.chain} ${e.policySet}`);
        if (isDigest(e.mirror)) this.activated.add(`${e.mirror} ${e.policySet}`);
      }
      return undefined;
    }
    if (e.type !== 'decision') return undefined;
    const p = e.policy;
    if (!isRecord(p) || !isDigest(p.chain) || !isDigest(p.policySet)) {
      return { kind: 'activation', seq: e.seq, message: `decision ${e.seq} names no chain and policy-set digests` };
    }
    return this.check(e.seq, p.chain, p.policySet);
  }

  /** undefined when (chain, policySet) was activated by a policy entry visited before. */
  check(seq: number, chain: Digest, policySet: Digest): RuleFinding | undefined {
    const key = `${chain} ${policySet}`;
    if (this.activated.has(key) || this.reported.has(key)) return undefined;
    this.reported.add(key);
    return { kind: 'activation', seq, message: `decision ${seq} was made under chain ${chain} and policy set ${policySet}, which no earlier policy entry activated (later decisions under it are not listed again)` };
  }

  /** Visit only the policy entries of a prefix the caller does not check (replay --from). */
  learn(e: Entry): void {
    if (e.type === 'policy') this.visit(e);
  }
}

/** The payload digests an entry names and expects stored: a decision's input and intent, an execution's parameters. */
export function payloadDigestsOf(e: Entry): Digest[] {
  const out: Digest[] = [];
  const add = (v: unknown) => {
    if (isRecord(v) && isDigest(v.digest) && !out.includes(v.digest)) out.push(v.digest);
  };
  if (e.type === 'decision') {
    add(e.input);
    add(e.intent);
  } else if (e.type === 'execution') add(e.executed);
  return out;
}

/**
 * Payloads that entries name but the store lacks, unless an erasure entry (before or after) names
 * them: a missing payload with no erasure is a finding, never "benign". A stored payload must hash
 * to its digest (a rewritten one is a finding). `get` is the store's lookup.
 */
export class PayloadPresenceCheck implements EntryCheck {
  private readonly missing = new Map<Digest, number>();
  private readonly erased = new Set<Digest>();
  private readonly seen = new Set<Digest>();

  constructor(private readonly get: (digest: Digest) => Uint8Array | undefined) {}

  visit(e: Entry): RuleFinding | undefined {
    if (e.type === 'erasure') {
      if (isDigest(e.digest)) this.erased.add(e.digest);
      return undefined;
    }
    let finding: RuleFinding | undefined;
    for (const d of payloadDigestsOf(e)) {
      if (this.seen.has(d)) continue;
      this.seen.add(d);
      const bytes = this.get(d);
      if (!bytes) this.missing.set(d, e.seq);
      else if (digestBytes(bytes) !== d) finding ??= { kind: 'payload', seq: e.seq, message: `payload ${d} named by entry ${e.seq} is stored with bytes that hash to ${digestBytes(bytes)}: it was rewritten` };
    }
    return finding;
  }

  end(): RuleFinding[] {
    const out: RuleFinding[] = [];
    for (const [digest, seq] of this.missing) {
      if (!this.erased.has(digest)) out.push({ kind: 'payload', seq, message: `payload ${digest} named by entry ${seq} is not stored, and no erasure entry removed it` });
    }
    return out;
  }
}

/** The checks `vouch log verify` runs over a store's entries. */
export function ruleChecks(store: { payload(digest: Digest): Uint8Array | undefined }): EntryCheck[] {
  return [new ActivationTracker(), new PayloadPresenceCheck((d) => store.payload(d))];
}
