// Which interceptors a call runs, whether it is covered, and the decision part of a chain result:
// pure functions of (policy, request) that decide() and replay (audit/_rerun.ts) share.
import { digestJson, type Digest } from '../canonical/index.js';
import { decisionOf, stripDurations } from '../interceptors/chain.js';
import { compatibleInterceptors, coverageOf, runningInterceptors, selectInterceptors } from '../interceptors/list.js';
import type { ChainResult, Direction, Interceptor, Json, Phase } from '../interceptors/types.js';
import type { ActivePolicy } from './decide.js';

/**
 * The part of a chain result that is the decision: no timings, byte-stable under replay.
 * `known` holds digests already computed for payload objects (decide.ts: the intent's).
 */
export function decisionRecord(chain: ChainResult, known?: ReadonlyMap<unknown, Digest>): Json {
  const r = stripDurations(chain);
  // A mutator that declines hands on the very object it was given, and the last step's payload is
  // the intent: one digest per distinct object (the chain's payloads are copies nothing changes
  // after their step, and this runs synchronously).
  const digests = new Map<unknown, Digest>(known);
  const digestOf = (payload: unknown): Digest => {
    if (typeof payload !== 'object' || payload === null) return digestJson(payload);
    let d = digests.get(payload);
    if (d === undefined) digests.set(payload, (d = digestJson(payload)));
    return d;
  };
  // A mutation's intermediate payload may still hold what a later step redacts (a secret, a card
  // number): the signed, append-only entry keeps only its digest. Payloads live in their own,
  // erasable table (input and intent), never inside entry bytes.
  const results = r.results.map((x) => (x.type === 'mutation' ? { ...x, payload: undefined, payloadDigest: digestOf(x.payload) } : x));
  const rec: Record<string, Json> = { effect: decisionOf(r), status: r.status, summary: r.validationSummary as unknown as Json, results: JSON.parse(JSON.stringify(results)) as Json };
  if (r.abortedAt) rec.abortedAt = r.abortedAt as unknown as Json;
  return rec;
}

export function denyResult(event: string, phase: Phase, payload: unknown, reason: string): ChainResult {
  return {
    status: 'error',
    event,
    phase,
    results: [],
    finalPayload: payload,
    validationSummary: { errors: 1, warnings: 0, infos: 0 },
    abortedAt: { interceptor: '(vouch)', reason, type: 'validation' },
  };
}

export function directionOf(policy: ActivePolicy, phase: Phase): Direction {
  return policy.options.directions?.[phase] ?? (phase === 'request' ? 'sending' : 'receiving');
}

/**
 * Which interceptors a call runs and whether an authorization interceptor covers it: the same
 * pure function of (policy, requested, event, phase) live and in replay (audit/_rerun.ts).
 */
export function planOf(policy: ActivePolicy, only: readonly string[] | undefined, event: string, phase: Phase, protocolVersion?: string) {
  const running = runningInterceptors(policy.interceptors, only);
  // An interceptor the negotiated protocol version is outside the compat range of is skipped by
  // the chain: it neither covers the call (fail closed) nor counts as having run.
  const compatible = compatibleInterceptors(running, protocolVersion);
  const coverage = coverageOf(compatible, event, phase, policy.uncovered);
  return { running, coverage, hooked: selectInterceptors(compatible, event, phase).map((i) => i.descriptor.name) };
}

/** The mutation interceptors hooked on the call: a deny names its target only when each ran (target-of.ts). */
export function mutatorsOf(running: Interceptor[], event: string, phase: Phase): string[] {
  return selectInterceptors(running, event, phase).filter((i) => i.descriptor.type === 'mutation').map((i) => i.descriptor.name);
}
