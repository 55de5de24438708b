// Re-run one recorded decision: the stored input through a chain, with the recorded context and
// recorded state (prepare() is never called), and build the decision record decide() would have
// written. Remote interceptors are never called: stand-ins answer with the recorded answer.
import { decisionRecord, denyResult, directionOf, guardDenyOf, planOf, type ActivePolicy } from '../decide/index.js';
import { executeChain, ROLE_META_ENRICHER } from '../interceptors/chain.js';
import { recordedEnrichers } from './_enrichments.js';
import type { ChainResult, Direction, Interceptor, InterceptorDescriptor, InterceptorType, Json, Outcome } from '../interceptors/types.js';
import type { DecisionFacts } from './_decision-facts.js';

export interface Rerun {
  chain: ChainResult;
  record: Json;
  effect: 'allow' | 'deny';
  direction: Direction;
  /** Interceptors whose recorded remote answer stood in for a call to their server. */
  remote: string[];
  /** The interceptors the chain ran, and the coverage fact (undefined: covered), as decide() records them; undefined for older entries. */
  ran?: string[];
  uncovered?: 'allow' | 'deny';
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export async function rerunDecision(facts: DecisionFacts, payload: unknown, policy: ActivePolicy, withRemote: boolean, enrichments: Record<string, Json> = {}): Promise<Rerun> {
  // Entries that record `ran` were decided with mandatory interceptors and coverage (decide.ts
  // planOf); older ones ran exactly the interceptors `only` named.
  const plan = facts.ran !== undefined ? planOf(policy, facts.only, facts.event, facts.phase, facts.context.protocolVersion) : undefined;
  const local = plan ? plan.running : facts.only ? policy.interceptors.filter((i) => facts.only!.includes(i.descriptor.name)) : policy.interceptors;
  const uncovered = plan && !plan.coverage.covered ? (plan.coverage.allow ? ('allow' as const) : ('deny' as const)) : undefined;
  const planned = plan ? { uncovered } : {};
  // vouch's own prechecks (caller signature, drift guard) denied before any chain ran: the
  // recorded outcome is the input, exactly as decide() used it.
  const guardDeny = guardDenyOf(facts.state);
  const coverageDeny = plan && !plan.coverage.covered && !plan.coverage.allow ? plan.coverage.reason : undefined;
  if (guardDeny !== undefined || coverageDeny !== undefined) {
    const chain = denyResult(facts.event, facts.phase, payload, (guardDeny ?? coverageDeny)!);
    const record = decisionRecord(chain);
    return { chain, record, effect: 'deny', direction: directionOf(policy, facts.phase), remote: [], ...planned, ...(plan && { ran: [] }) };
  }
  const localNames = new Set(policy.interceptors.map((i) => i.descriptor.name));
  const standIns = withRemote ? [...remoteStandIns(facts, localNames), ...enricherStandIns(facts, localNames)] : [];
  const run = await executeChain([...local, ...standIns], { event: facts.event, phase: facts.phase, payload }, facts.context, {
    ...policy.options,
    replayState: facts.state,
    replayEnrichments: enrichments,
  });
  const record = decisionRecord(run.result);
  return {
    chain: run.result,
    record,
    effect: (record as { effect: 'allow' | 'deny' }).effect,
    direction: directionOf(policy, facts.phase),
    remote: standIns.map((i) => i.descriptor.name),
    ...planned,
    ...(plan && { ran: [...plan.hooked, ...standIns.map((i) => i.descriptor.name)] }),
  };
}

/**
 * A remote interceptor's descriptor comes from its server at activation and is not in the chain
 * document; its answer is in the entry's state. Each recorded state that no local interceptor
 * owns, and that has a recorded result, gets a stand-in typed like that result. What cannot be
 * recovered (the server's priority) is the default; replay reports a difference it cannot
 * attribute as `remote interceptor`, never as a match.
 */
function remoteStandIns(facts: DecisionFacts, localNames: Set<string>): Interceptor[] {
  const results = isRecord(facts.decision) && Array.isArray(facts.decision.results) ? facts.decision.results : [];
  const out: Interceptor[] = [];
  for (const name of Object.keys(facts.state)) {
    if (localNames.has(name)) continue;
    const recorded = results.find((r) => isRecord(r) && r.interceptor === name) as Record<string, unknown> | undefined;
    if (!recorded || !['validation', 'mutation', 'observability'].includes(recorded.type as string)) continue;
    const info = isRecord(recorded.info) ? recorded.info : {};
    const descriptor: InterceptorDescriptor = {
      name,
      type: recorded.type as InterceptorType,
      hooks: [{ events: [facts.event], phase: facts.phase }],
      ...(info.mode === 'audit' && { mode: 'audit' as const }),
      ...(info.failOpen === true && { failOpen: true as const }),
    };
    out.push(standIn(descriptor));
  }
  return out;
}

function standIn(descriptor: InterceptorDescriptor): Interceptor {
  return {
    descriptor,
    // Present so the chain hands run() the recorded answer; never called in replay.
    prepare: async () => null,
    // The same checks remote.ts makes on a live answer.
    run(_payload, ctx): Outcome {
      const answer = ctx.state;
      if (!isRecord(answer)) throw new Error('no recorded answer from the interceptor server');
      if (answer.type === undefined) throw new Error(`interceptor server: ${typeof answer.error === 'string' ? answer.error : 'no answer'}`);
      if (answer.type !== descriptor.type) throw new Error(`interceptor server answered type ${String(answer.type)}, expected ${descriptor.type}`);
      if (answer.phase !== ctx.phase) throw new Error(`interceptor server answered phase ${String(answer.phase)}, expected ${ctx.phase}`);
      const { interceptor: _i, type: _t, phase: _p, durationMs: _d, ...outcome } = answer;
      return outcome as unknown as Outcome;
    },
  };
}

/**
 * A remote enricher is not in the chain document either: the band's record names it. Its stand-in
 * is never run (the band applies the recorded addition); it only puts the enricher in the band.
 */
function enricherStandIns(facts: DecisionFacts, localNames: Set<string>): Interceptor[] {
  const results = isRecord(facts.decision) && Array.isArray(facts.decision.results) ? facts.decision.results : [];
  return recordedEnrichers(facts.state)
    .filter((r) => !localNames.has(r.name))
    .map((r) => {
      const recorded = results.find((x) => isRecord(x) && x.interceptor === r.name) as Record<string, unknown> | undefined;
      const audit = isRecord(recorded?.info) && recorded.info.mode === 'audit';
      const descriptor: InterceptorDescriptor = { name: r.name, type: 'mutation', hooks: [{ events: [facts.event], phase: facts.phase }], ...(audit && { mode: 'audit' as const }), _meta: ROLE_META_ENRICHER };
      return { descriptor, run: () => Promise.reject(new Error('an enricher stand-in never runs')) };
    });
}
