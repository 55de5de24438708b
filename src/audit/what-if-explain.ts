// Why a decision came out as it did, read from a decision record (the entry's `decision`, or a
// re-run's): the interceptor that stopped the chain, or the authorizations that let it through,
// with the Cedar policy ids that determined them. What-if names these before and after a flip.
import type { Json } from '../interceptors/types.js';

/** One reason for a decision. */
export interface Determiner {
  /** The interceptor that decided; `(vouch)` for vouch's own checks (caller signature, coverage, drift guard). */
  interceptor: string;
  /** Cedar's determining policy ids (permits on allow, forbids on deny; empty: Cedar's default deny). Only for Cedar results. */
  policies?: string[];
  /** Cedar evaluation errors that made it deny (then no policy id determined the deny). */
  errors?: string[];
  /** The interceptor's message (deny), or what allowed it. */
  message: string;
}

export interface ExplainHints {
  /** Names of interceptors that authorize (their passing results explain an allow); known for the candidate only. */
  authorizing?: ReadonlySet<string>;
  /** The coverage fact: 'allow' when no authorization interceptor covered the call and config `uncovered` let it through. */
  uncovered?: 'allow' | 'deny';
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const text = (v: unknown, max = 500): string => (typeof v === 'string' ? v : JSON.stringify(v) ?? '').slice(0, max);

/** Cedar's result info carries the determining ids as `info.reasons` (sorted by policy-set.ts). */
function cedarPolicies(result: Record<string, unknown> | undefined): string[] | undefined {
  const info = result && isRecord(result.info) ? result.info : undefined;
  return info && isStringList(info.reasons) ? [...info.reasons].sort() : undefined;
}

/**
 * The determiners of one decision record. A deny names the interceptor where the chain stopped
 * (with its message and, for Cedar, the forbids; none means default deny). An allow names every
 * passing authorization: Cedar results (by their ids) and interceptors named in `authorizing`.
 * A record that is not a decision record yields one determiner saying so, never a guess.
 */
export function determinersOf(record: Json, hints: ExplainHints = {}): Determiner[] {
  if (!isRecord(record) || (record.effect !== 'allow' && record.effect !== 'deny')) return [{ interceptor: '(unknown)', message: 'the decision record is not readable' }];
  const results: Record<string, unknown>[] = Array.isArray(record.results) ? (record.results as unknown[]).filter(isRecord) : [];
  const byName = (name: string) => results.find((r) => r.interceptor === name);
  if (record.effect === 'deny') {
    const at = isRecord(record.abortedAt) ? record.abortedAt : undefined;
    if (!at) return [{ interceptor: '(chain)', message: `chain ended with status ${text(record.status, 40)}` }];
    const name = text(at.interceptor, 200);
    const result = name === '(vouch)' ? undefined : byName(name);
    const policies = cedarPolicies(result);
    const errors = result && isRecord(result.info) && isStringList(result.info.errors) && result.info.errors.length > 0 ? result.info.errors.map((e) => text(e)) : undefined;
    return [{ interceptor: name, ...(policies && { policies }), ...(errors && { errors }), message: text(at.reason) }];
  }
  const out: Determiner[] = [];
  for (const r of results) {
    if (r.type !== 'validation' || r.valid !== true || typeof r.interceptor !== 'string') continue;
    const policies = cedarPolicies(r);
    if (policies) out.push({ interceptor: r.interceptor, policies, message: policies.length ? `permitted by policy ${policies.join(', ')}` : 'permitted' });
    else if (hints.authorizing?.has(r.interceptor)) out.push({ interceptor: r.interceptor, message: 'passed' });
  }
  if (hints.uncovered === 'allow') out.push({ interceptor: '(vouch)', message: 'no authorization interceptor covers this call; config `uncovered` allows it' });
  if (out.length === 0) out.push({ interceptor: '(chain)', message: 'no interceptor denied' });
  return out;
}

/** One line: `authz [tools-allow]: permitted by policy tools-allow`. */
export function formatDeterminer(d: Determiner): string {
  const none = d.errors ? 'no policy: evaluation error' : 'no policy: default deny';
  return `${d.interceptor}${d.policies ? ` [${d.policies.length ? d.policies.join(', ') : none}]` : ''}: ${d.message}${d.errors ? ` (${d.errors.join('; ')})` : ''}`;
}
