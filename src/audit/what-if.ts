// What-if replay (DESIGN.md section 4): stored inputs, recorded context and recorded state, run
// against a candidate policy; lists the decisions that would flip. Policy-impact analysis
// before activation. Portable: reads through the same ReplaySource as replay.
import type { ActivePolicy } from '../decide.js';
import { publicMessage } from '../errors.js';
import { runningInterceptors, selectInterceptors } from '../interceptors/list.js';
import { resourceOf } from '../policy/index.js';
import { parseDecisionFacts, type DecisionFacts } from './_decision-facts.js';
import { readEntry } from './_fast-entry.js';
import { rerunDecision } from './_rerun.js';
import { loadInput, type ReplaySource } from './replay.js';

export type Effect = 'allow' | 'deny';

export interface Flip {
  seq: number;
  event: string;
  principal?: string;
  /** What the message acted on, e.g. `Tool::"send_mail"`. */
  resource?: string;
  from: Effect;
  to: Effect;
  /** Where the candidate chain stopped (deny), if it did. */
  abortedAt?: { interceptor: string; reason: string };
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
    flips: [], truncated: false,
  };
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
    let effect: Effect;
    let abortedAt: Flip['abortedAt'];
    try {
      const rerun = await rerunDecision(facts, input.payload, candidate, opts.candidateHasRemote ?? false);
      effect = rerun.effect;
      if (rerun.chain.abortedAt) abortedAt = { interceptor: rerun.chain.abortedAt.interceptor, reason: rerun.chain.abortedAt.reason };
    } catch (e) {
      skip(`chain failed: ${publicMessage(e)}`);
      continue;
    }
    r.evaluated++;
    if (effect === facts.effect) {
      r.unchanged++;
      continue;
    }
    if (facts.effect === 'allow') r.allowToDeny++;
    else r.denyToAllow++;
    if (r.flips.length >= max) {
      r.truncated = true;
      continue;
    }
    r.flips.push(flipOf(facts, input.payload, effect, abortedAt));
  }
  return r;
}

/** Candidate interceptors this message reaches that need recorded state the entry does not hold. */
function stateNeeded(candidate: ActivePolicy, f: DecisionFacts): string[] {
  const pool = f.ran !== undefined ? runningInterceptors(candidate.interceptors, f.only) : f.only ? candidate.interceptors.filter((i) => f.only!.includes(i.descriptor.name)) : candidate.interceptors;
  return selectInterceptors(pool, f.event, f.phase)
    .filter((i) => typeof i.prepare === 'function' && !Object.hasOwn(f.state, i.descriptor.name))
    .map((i) => i.descriptor.name);
}

function flipOf(f: DecisionFacts, payload: unknown, to: Effect, abortedAt: Flip['abortedAt']): Flip {
  const res = resourceOf(f.event, payload, f.context.server);
  return {
    seq: f.seq,
    event: f.event,
    ...(f.context.principal !== undefined && { principal: f.context.principal }),
    ...(res.ok && { resource: `${res.resource.type}::${JSON.stringify(res.resource.id)}` }),
    from: f.effect,
    to,
    ...(abortedAt && to === 'deny' && { abortedAt }),
  };
}
