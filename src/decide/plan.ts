// Which interceptors a call runs, whether it is covered, and the decision part of a chain result:
// pure functions of (policy, request) that decide() and replay (audit/_rerun.ts) share.
import { digestJson, MAX_DEPTH, type Digest } from '../canonical/index.js';
import { decisionOf } from '../interceptors/chain.js';
import { recordedJson } from '../interceptors/builtin/recorded-text.js';
import { compatibleInterceptors, coverageOf, runningInterceptors, selectInterceptors } from '../interceptors/list.js';
import type { ChainResult, Direction, Interceptor, Json, Phase } from '../interceptors/types.js';
import type { ActivePolicy } from './decide.js';

/**
 * The part of a chain result that is the decision: no timings, byte-stable under replay.
 * `known` holds digests already computed for payload objects (decide.ts: the intent's).
 */
export function decisionRecord(chain: ChainResult, known?: ReadonlyMap<unknown, Digest>): Json {
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
  const results: Json[] = new Array(chain.results.length);
  for (let i = 0; i < chain.results.length; i++) {
    const x = chain.results[i] as unknown as Record<string, unknown>;
    const out: Record<string, Json> = {};
    const mutation = x.type === 'mutation';
    for (const k in x) {
      if (k === 'durationMs' || (mutation && k === 'payload') || !Object.hasOwn(x, k)) continue;
      const v = plainJson(x[k]);
      if (v !== undefined) out[k] = v;
    }
    if (mutation) out.payloadDigest = digestOf(x.payload);
    results[i] = out;
  }
  // Messages, reasons and info quote what they judged (a tool name, a path, a key): the entry is
  // signed for ever and exported as telemetry, so no credential stays in them (recorded-text.ts).
  const rec: Record<string, Json> = { effect: decisionOf(chain), status: chain.status, summary: plainJson(chain.validationSummary)!, results: recordedJson(results) };
  if (chain.abortedAt) rec.abortedAt = recordedJson(plainJson(chain.abortedAt)!);
  return rec;
}

/**
 * What JSON.parse(JSON.stringify(v)) gives, without the text in between: a fresh copy whose
 * undefined members are dropped and whose -0 is 0. Anything but plain JSON data (a non-finite
 * number, a Date, a function, a "__proto__" key) takes the round trip itself, so the record is what
 * it always was. (Not the chain's cloneJson: that one throws on such values and keeps -0.)
 */
function plainJson(v: unknown): Json | undefined {
  const copy = fastCopy(v, 0);
  return copy === NOT_PLAIN ? (JSON.parse(JSON.stringify(v) ?? 'null') as Json) : copy;
}

const NOT_PLAIN = Symbol('not plain');

function fastCopy(v: unknown, depth: number): Json | undefined | typeof NOT_PLAIN {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? (v === 0 ? 0 : v) : NOT_PLAIN; // -0 is 0 in JSON
    case 'undefined':
      return undefined;
    case 'object': {
      if (v === null) return null;
      if (depth > MAX_DEPTH) return NOT_PLAIN;
      if (Array.isArray(v)) {
        const out: Json[] = new Array(v.length);
        for (let i = 0; i < v.length; i++) {
          const c = fastCopy(v[i], depth + 1);
          if (c === NOT_PLAIN || c === undefined) return NOT_PLAIN;
          out[i] = c;
        }
        return out;
      }
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
      const out: Record<string, Json> = {};
      for (const k in v as Record<string, unknown>) {
        if (!Object.hasOwn(v, k)) continue;
        if (k === '__proto__') return NOT_PLAIN;
        const c = fastCopy((v as Record<string, unknown>)[k], depth + 1);
        if (c === NOT_PLAIN) return NOT_PLAIN;
        if (c !== undefined) out[k] = c;
      }
      return out;
    }
    default:
      return NOT_PLAIN;
  }
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
