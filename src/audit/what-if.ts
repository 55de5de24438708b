// What-if replay (DESIGN.md section 4): stored inputs, recorded context and recorded state, run
// against a candidate policy; lists the decisions that would flip. Policy-impact analysis
// before activation. Portable: reads through the same ReplaySource as replay.
import { uncoveredOf, type ActivePolicy } from '../decide/index.js';
import { publicMessage } from '../errors.js';
import { isEnricher } from '../interceptors/chain.js';
import { runningInterceptors, selectInterceptors } from '../interceptors/list.js';
import { enrichersRan, loadEnrichments, recordedEnrichers } from './_enrichments.js';
import { resourceOf } from '../policy/index.js';
import { parseDecisionFacts, type DecisionFacts } from './_decision-facts.js';
import { readEntry } from '../log/fast-entry.js';
import { rerunDecision, type Rerun } from './_rerun.js';
import { loadInput, type ReplaySource } from './replay.js';
import { determinersOf, type Determiner } from './what-if-explain.js';

export type Effect = 'allow' | 'deny';

export interface Flip {
  seq: number;
  event: string;
  phase: 'request' | 'response';
  principal?: string;
  /** The name the entry itself records (tool, prompt, resource URI), when it does. */
  target?: string;
  /** What the message acted on, e.g. `Tool::"send_mail"`. */
  resource?: string;
  from: Effect;
  to: Effect;
  /** Where the candidate chain stopped (deny), if it did. */
  abortedAt?: { interceptor: string; reason: string };
  /** What decided the recorded decision (from the entry), and what decides under the candidate. */
  before: Determiner[];
  after: Determiner[];
}

export interface WhatIfReport {
  from: number;
  to: number;
  candidate: { chain: string; policySet: string };
  decisions: number;
  evaluated: number;
  unchanged: number;
  allowToDeny: number;
  denyToAllow: number;
  /** Decisions the candidate cannot be judged on (payload gone, state the candidate needs not recorded). */
  unevaluable: number;
  byReason: Record<string, number>;
  flips: Flip[];
  truncated: boolean;
  /** Whether any evaluated decision flipped (listed or not): what `--fail-on-change` gates on. */
  changed: boolean;
  /**
   * Decisions whose enrichers would differ under the candidate (an enricher added, removed, or not
   * reached because the decision now denies): what the model is told changes even where the effect
   * does not. Listed up to maxFlips.
   */
  enrichersChanged: number;
  enricherChanges: EnricherChange[];
}

export interface EnricherChange {
  seq: number;
  event: string;
  /** The enrichers that ran, as recorded and under the candidate (band order). */
  before: string[];
  after: string[];
}

export interface WhatIfOptions {
  from?: number;
  to?: number;
  maxFlips?: number;
  /** The candidate config declares remote interceptors: their recorded answers stand in. */
  candidateHasRemote?: boolean;
}

export async function whatIf(source: ReplaySource, candidate: ActivePolicy, opts: WhatIfOptions = {}): Promise<WhatIfReport> {
  const size = await source.size();
  const from = opts.from ?? 0;
  const to = Math.max(from, Math.min(opts.to ?? size, size));
  const max = opts.maxFlips ?? 10_000;
  const r: WhatIfReport = {
    from, to,
    candidate: { chain: candidate.chainDigest, policySet: candidate.policyDigest },
    decisions: 0, evaluated: 0, unchanged: 0, allowToDeny: 0, denyToAllow: 0, unevaluable: 0, byReason: {},
    flips: [], truncated: false, changed: false, enrichersChanged: 0, enricherChanges: [],
  };
  const authorizing = new Set(candidate.interceptors.filter((i) => i.authorizes === true).map((i) => i.descriptor.name));
  const skip = (reason: string) => {
    r.unevaluable++;
    r.byReason[reason] = (r.byReason[reason] ?? 0) + 1;
  };
  for await (const { bytes } of source.entries(from, to)) {
    let facts: DecisionFacts;
    try {
      const entry = readEntry(bytes);
      if (entry.type !== 'decision') continue;
      facts = parseDecisionFacts(entry);
    } catch {
      r.decisions++;
      skip('malformed entry');
      continue;
    }
    r.decisions++;
    const input = await loadInput(source, facts);
    if ('reason' in input) {
      skip(input.reason);
      continue;
    }
    const missing = stateNeeded(candidate, facts);
    if (missing.length > 0) {
      skip('candidate needs state that was not recorded');
      continue;
    }
    const enriched = await loadEnrichments(source, facts);
    if ('reason' in enriched) {
      skip(enriched.reason);
      continue;
    }
    let rerun: Rerun;
    try {
      rerun = await rerunDecision(facts, input.payload, candidate, opts.candidateHasRemote ?? false, enriched.additions);
    } catch (e) {
      skip(`chain failed: ${publicMessage(e)}`);
      continue;
    }
    r.evaluated++;
    const before = recordedEnrichers(facts.state).map((x) => x.name);
    const after = enrichersRan(rerun.chain.results);
    if (before.join('\n') !== after.join('\n')) {
      r.enrichersChanged++;
      if (r.enricherChanges.length < max) r.enricherChanges.push({ seq: facts.seq, event: facts.event, before, after });
      else r.truncated = true;
    }
    const effect = rerun.effect;
    if (effect === facts.effect) {
      r.unchanged++;
      continue;
    }
    if (facts.effect === 'allow') r.allowToDeny++;
    else r.denyToAllow++;
    r.changed = true;
    if (r.flips.length >= max) {
      r.truncated = true;
      continue;
    }
    const explained = {
      before: determinersOf(facts.decision, { uncovered: uncoveredOf(facts.state) }),
      after: determinersOf(rerun.record, { authorizing, uncovered: rerun.uncovered }),
    };
    r.flips.push(flipOf(facts, input.payload, rerun, explained));
  }
  return r;
}

/** Candidate interceptors this message reaches that need recorded state the entry does not hold. */
function stateNeeded(candidate: ActivePolicy, f: DecisionFacts): string[] {
  const pool = f.ran !== undefined ? runningInterceptors(candidate.interceptors, f.only) : f.only ? candidate.interceptors.filter((i) => f.only!.includes(i.descriptor.name)) : candidate.interceptors;
  return selectInterceptors(pool, f.event, f.phase)
    // An enricher needs no state of its own: the band's record stands in, or it is reported as not recorded.
    .filter((i) => typeof i.prepare === 'function' && !isEnricher(i) && !Object.hasOwn(f.state, i.descriptor.name))
    .map((i) => i.descriptor.name);
}

function flipOf(f: DecisionFacts, payload: unknown, rerun: Rerun, explained: Pick<Flip, 'before' | 'after'>): Flip {
  // A response names no resource of its own (interceptors/target-of.ts): only a request's is shown.
  const res = f.phase === 'request' ? resourceOf(f.event, payload, f.context.server) : { ok: false as const };
  const to = rerun.effect;
  const at = rerun.chain.abortedAt;
  return {
    seq: f.seq,
    event: f.event,
    phase: f.phase,
    ...(f.context.principal !== undefined && { principal: f.context.principal }),
    ...(f.target !== undefined && { target: f.target }),
    ...(res.ok && { resource: `${res.resource.type}::${JSON.stringify(res.resource.id)}` }),
    from: f.effect,
    to,
    ...(at && to === 'deny' && { abortedAt: { interceptor: at.interceptor, reason: at.reason } }),
    ...explained,
  };
}
