// Deterministic replay (DESIGN.md section 4): load each decision's payload, chain config and
// policy set by digest, re-run the chain with the recorded context and state, and compare the
// canonical decision byte for byte. Portable: entries, payloads and documents come from a source.
import { digestBytes, digestJson, parseJson, utf8, type Digest } from '../canonical/index.js';
import { GUARD_STATE_KEY, mutatorsOf, planOf, UNCOVERED_KEY, uncoveredOf, VOUCH_ENGINE_VERSION, type ActivePolicy } from '../decide/index.js';
import { decisionTarget } from '../interceptors/target-of.js';
import type { ChainResult } from '../interceptors/types.js';
import { publicMessage } from '../errors.js';
import type { Entry } from '../log/index.js';
import { ActivationTracker } from '../log/activation-check.js';
import { cedarVersion } from '../policy/index.js';
import { parseDecisionFacts, type DecisionFacts } from './_decision-facts.js';
import { canonicalOf, readEntry } from '../log/fast-entry.js';
import { PolicyCache, type DocumentSource, type UnreplayableReason } from './_rebuild.js';
import { rerunDecision } from './_rerun.js';
import { loadEnrichments } from './_enrichments.js';
import { diffJson } from './diff.js';
import { inRecordedWording } from './_legacy-wording.js';

export type { UnreplayableReason } from './_rebuild.js';

export interface ReplaySource extends DocumentSource {
  /** Entries with from <= seq < to, exact bytes, in order. */
  entries(from: number, to: number): AsyncIterable<{ seq: number; bytes: Uint8Array }>;
  /** Number of entries in the log (or bundle end). */
  size(): Promise<number>;
  /** A payload by digest; `seq` is the entry asking (bundles keep payloads in entry order). */
  payload(digest: Digest, seq: number): Promise<Uint8Array | undefined>;
  /** The seq of the erasure entry that removed this payload, when the source knows of one. */
  erasedAt?(digest: Digest, seq: number): Promise<number | undefined>;
}

export type ReplayStatus = 'match' | 'mismatch' | 'unreplayable';

export interface ReplayResult {
  seq: number;
  status: ReplayStatus;
  event?: string;
  /** The recorded effect. */
  effect?: 'allow' | 'deny';
  /** mismatch: JSON Pointers into the entry where the replayed decision differs. */
  paths?: string[];
  reason?: UnreplayableReason;
  detail?: string;
  /** Interceptors whose recorded remote answer was used instead of calling their server. */
  remote?: string[];
}

/**
 * What replay finds besides mismatches (issue 15 item 3): a decision under rules no earlier
 * `policy` entry activated, or a payload missing with no erasure entry for it.
 */
export interface ReplayFinding {
  seq: number;
  kind: 'activation' | 'payload';
  detail: string;
}

export interface ReplayCounts {
  entries: number;
  decisions: number;
  match: number;
  mismatch: number;
  unreplayable: number;
  /** Decisions that used recorded remote answers. */
  remoteAnswers: number;
  byReason: Partial<Record<UnreplayableReason, number>>;
  /** Entries that are not decisions, by type (not replayed). */
  other: Record<string, number>;
}

export interface ReplayReport extends ReplayCounts {
  from: number;
  to: number;
  engines: Record<string, string>;
  /** Every mismatch and unreplayable decision (up to maxResults); matches too with includeMatches. */
  results: ReplayResult[];
  truncated: boolean;
  /** Activation and missing-payload findings (up to maxResults); any makes the replay fail. */
  findings: ReplayFinding[];
  /** Whether every decision's rules were checked against the policy entries before it (not for a bundle that starts after 0). */
  activation: 'checked' | 'not checked';
}

export interface ReplayOptions {
  from?: number;
  to?: number;
  /** The engine versions replay runs with (default: this build's). */
  engines?: Record<string, string>;
  includeMatches?: boolean;
  maxResults?: number;
  onResult?: (r: ReplayResult) => void;
  /** false when the source lacks the entries before `from` (a bundle cut out of the log): activation is then not checked. */
  checkActivation?: boolean;
}

export const RUNNING_ENGINES: Readonly<Record<string, string>> = Object.freeze({ vouch: VOUCH_ENGINE_VERSION, cedar: cedarVersion });

export function emptyCounts(): ReplayCounts {
  return { entries: 0, decisions: 0, match: 0, mismatch: 0, unreplayable: 0, remoteAnswers: 0, byReason: {}, other: {} };
}

/** Replays entries one at a time; holds only the rebuilt policies (by digest), never the log. */
export class Replayer {
  readonly counts = emptyCounts();
  /** Activation and missing-payload findings, in log order. */
  readonly findings: ReplayFinding[] = [];
  /** The policy entries seen so far; undefined when activation is not checked. */
  readonly activation: ActivationTracker | undefined;
  private readonly policies: PolicyCache;
  private readonly engines: Record<string, string>;

  constructor(private readonly source: Omit<ReplaySource, 'entries' | 'size'>, engines: Record<string, string> = RUNNING_ENGINES, opts: { checkActivation?: boolean } = {}) {
    this.policies = new PolicyCache(source);
    this.engines = { ...engines };
    this.activation = opts.checkActivation === false ? undefined : new ActivationTracker();
  }

  /** One entry (already decoded from these bytes, if given): a result for a decision, undefined for any other type. */
  async replayEntry(seq: number, bytes: Uint8Array, decoded?: Entry): Promise<ReplayResult | undefined> {
    this.counts.entries++;
    let entry: Entry;
    try {
      entry = decoded ?? readEntry(bytes);
    } catch (e) {
      return this.tally({ seq, status: 'unreplayable', reason: 'malformed entry', detail: publicMessage(e) });
    }
    if (entry.type !== 'decision') {
      this.counts.other[entry.type] = (this.counts.other[entry.type] ?? 0) + 1;
      this.activation?.visit(entry);
      return undefined;
    }
    const unactivated = this.activation?.visit(entry);
    if (unactivated) this.findings.push({ seq, kind: 'activation', detail: unactivated.message });
    let facts: DecisionFacts;
    try {
      facts = parseDecisionFacts(entry);
    } catch (e) {
      return this.tally({ seq, status: 'unreplayable', event: str(entry.event), reason: 'malformed entry', detail: publicMessage(e) });
    }
    return this.tally(await this.replayFacts(facts));
  }

  close(): Promise<void> {
    return this.policies.close();
  }

  private async replayFacts(f: DecisionFacts): Promise<ReplayResult> {
    const base = { seq: f.seq, event: f.event, effect: f.effect };
    const no = (reason: UnreplayableReason, detail: string): ReplayResult => ({ ...base, status: 'unreplayable', reason, detail });
    const input = await loadInput(this.source, f);
    if ('reason' in input && input.reason === 'payload missing') this.findings.push({ seq: f.seq, kind: 'payload', detail: `${input.detail}, and no erasure entry removed it` });
    if ('reason' in input) return no(input.reason, input.detail);
    const rebuilt = await this.policies.get(f.policy.chain, f.policy.policySet);
    if (!rebuilt.ok) return no(rebuilt.reason, rebuilt.detail);
    // DESIGN.md section 4: a decision made by another engine version cannot be re-derived here.
    if (canonicalOf(f.policy.engines) !== canonicalOf(this.engines)) {
      return no('engine version absent', `recorded with ${describe(f.policy.engines)}, running ${describe(this.engines)}`);
    }
    // What enrichers added is applied from the record, never fetched again (live evidence changes).
    const enriched = await loadEnrichments(this.source, f);
    // What the model was given, gone with no erasure entry: a finding, as for the input.
    if ('reason' in enriched && enriched.reason === 'payload missing') this.findings.push({ seq: f.seq, kind: 'payload', detail: `${enriched.detail}, and no erasure entry removed it` });
    if ('reason' in enriched) return no(enriched.reason, enriched.detail);
    const rerun = await rerunDecision(f, input.payload, rebuilt.policy, rebuilt.hasRemote, enriched.additions);
    const paths: string[] = [];
    // An entry signed before a change of words (not of decision) is read in its own words.
    const record = canonicalOf(rerun.record) === canonicalOf(f.decision) ? rerun.record : (inRecordedWording(f.decision, rerun.record) as typeof rerun.record);
    if (canonicalOf(record) !== canonicalOf(f.decision)) paths.push(...diffJson(f.decision, record, '/decision'));
    if (f.direction !== undefined && f.direction !== rerun.direction) paths.push('/direction');
    // What ran and whether an authorization interceptor covered it: the same selection as live.
    if (rerun.ran !== undefined && canonicalOf([...rerun.ran].sort()) !== canonicalOf([...(f.ran ?? [])].sort())) paths.push('/ran');
    if (f.ran !== undefined && rerun.uncovered !== uncoveredOf(f.state)) paths.push(`/state/${GUARD_STATE_KEY}/${UNCOVERED_KEY}`);
    // The authorized intent: what the chain let through must hash to what the entry recorded.
    const intent = rerun.effect === 'allow' ? digestJson(rerun.chain.finalPayload) : null;
    if (intent !== f.intentDigest) paths.push('/intent');
    // The target name the entry shows a reader must be what the payload names (decide.ts).
    if (f.target !== undefined && f.target !== replayedTarget(f, input.payload, rerun, rebuilt.policy)) paths.push('/target');
    const remote = rerun.remote.length > 0 ? { remote: rerun.remote } : {};
    if (paths.length === 0) return { ...base, status: 'match', ...remote };
    if (rerun.remote.length > 0) return { ...base, ...remote, status: 'unreplayable', reason: 'remote interceptor', detail: `differs at ${paths.join(', ')} with recorded remote answers; the remote descriptor (priority) is not recorded` };
    return { ...base, status: 'mismatch', paths };
  }

  private tally(r: ReplayResult): ReplayResult {
    this.counts.decisions++;
    this.counts[r.status]++;
    if (r.reason) this.counts.byReason[r.reason] = (this.counts.byReason[r.reason] ?? 0) + 1;
    if (r.remote) this.counts.remoteAnswers++;
    return r;
  }
}

/** The decision's input payload, or why it cannot be had. */
export async function loadInput(
  source: Pick<ReplaySource, 'payload' | 'erasedAt'>,
  f: DecisionFacts,
): Promise<{ payload: unknown } | { reason: UnreplayableReason; detail: string }> {
  if (f.inputDigest === undefined) return { reason: 'input rejected', detail: 'decide() refused the payload itself: nothing was stored to replay' };
  const bytes = await source.payload(f.inputDigest, f.seq);
  if (!bytes) {
    const at = await source.erasedAt?.(f.inputDigest, f.seq);
    if (at !== undefined) return { reason: 'payload erased', detail: `payload ${f.inputDigest} erased by entry ${at}` };
    return { reason: 'payload missing', detail: `payload ${f.inputDigest} is not stored` };
  }
  if (digestBytes(bytes) !== f.inputDigest) return { reason: 'payload digest mismatch', detail: `the payload given for ${f.inputDigest} hashes to ${digestBytes(bytes)}` };
  try {
    return { payload: parseJson(utf8.decode(bytes)) };
  } catch (e) {
    return { reason: 'payload digest mismatch', detail: `payload ${f.inputDigest} is not JSON: ${publicMessage(e)}` };
  }
}

/** Replay [from, to) of a source: counts, and every decision that did not match. */
export async function replayLog(source: ReplaySource, opts: ReplayOptions = {}): Promise<ReplayReport> {
  const size = await source.size();
  const from = opts.from ?? 0;
  const to = Math.min(opts.to ?? size, size);
  const max = opts.maxResults ?? 10_000;
  const checkActivation = opts.checkActivation !== false;
  const replayer = new Replayer(source, opts.engines, { checkActivation });
  const results: ReplayResult[] = [];
  let truncated = false;
  try {
    // Rules activated before the range count too: learn the policy entries of [0, from).
    if (replayer.activation && from > 0) await learnPolicies(source.entries(0, from), replayer.activation);
    for await (const { seq, bytes } of source.entries(from, to)) {
      const r = await replayer.replayEntry(seq, bytes);
      if (!r) continue;
      opts.onResult?.(r);
      if (r.status === 'match' && !opts.includeMatches) continue;
      if (results.length < max) results.push(r);
      else truncated = true;
    }
  } finally {
    await replayer.close();
  }
  const findings = replayer.findings.slice(0, max);
  if (replayer.findings.length > max) truncated = true;
  return { from, to: Math.max(from, to), engines: { ...(opts.engines ?? RUNNING_ENGINES) }, ...replayer.counts, results, truncated, findings, activation: checkActivation ? 'checked' : 'not checked' };
}

const POLICY_MARK = '"type":"policy"';
const text = new TextDecoder();

/** Only entries that can be policy entries are parsed (as scanErasures does for erasures). */
async function learnPolicies(entries: AsyncIterable<{ seq: number; bytes: Uint8Array }>, tracker: ActivationTracker): Promise<void> {
  for await (const { bytes } of entries) {
    if (!text.decode(bytes).includes(POLICY_MARK)) continue;
    try {
      tracker.learn(readEntry(bytes));
    } catch {
      // a broken entry is log verify's finding, not this pass's
    }
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const describe = (e: Record<string, string>): string =>
  Object.keys(e)
    .sort()
    .map((k) => `${k} ${e[k]}`)
    .join(', ');

/** The target decide() would record for this re-run (see interceptors/target-of.ts). */
function replayedTarget(f: DecisionFacts, input: unknown, rerun: { effect: 'allow' | 'deny'; chain: ChainResult }, policy: ActivePolicy): string | undefined {
  const mutators = mutatorsOf(planOf(policy, f.only, f.event, f.phase).running, f.event, f.phase);
  return decisionTarget({ event: f.event, phase: f.phase, effect: rerun.effect, input, finalPayload: rerun.chain.finalPayload, chain: rerun.chain, mutators });
}
