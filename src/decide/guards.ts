// vouch's own checks before the chain (guards) and the coverage fact, as recorded in an entry's
// state under GUARD_STATE_KEY: read back the same way live and under replay.
import type { Json } from '../canonical/index.js';

/**
 * A check vouch makes before the chain. Its outcome is recorded in the entry's state under
 * GUARD_STATE_KEY (a name no interceptor can have), so replay reproduces the decision from the
 * recorded state without re-checking: a guard that denies aborts the decision, the chain is not run.
 */
export interface Guard {
  name: string;
  /** What was checked and found: recorded as state. */
  record: Record<string, Json>;
  /** Set when the guard denies: the reason, recorded with the record. */
  deny?: string;
}

export const GUARD_STATE_KEY = '(vouch)';

/** The deny reason recorded guards impose, or undefined: the same text live and under replay. */
export function guardDenyOf(state: Record<string, Json> | undefined): string | undefined {
  const g = state?.[GUARD_STATE_KEY];
  if (typeof g !== 'object' || g === null || Array.isArray(g)) return undefined;
  const reasons = Object.keys(g)
    .sort()
    .map((name) => (g as Record<string, Json>)[name])
    .map((r) => (typeof r === 'object' && r !== null && !Array.isArray(r) && typeof r.deny === 'string' ? r.deny : undefined))
    .filter((r): r is string => r !== undefined);
  return reasons.length ? reasons.join('; ') : undefined;
}

export function guardState(guards: Guard[] | undefined): Record<string, Json> {
  if (!guards?.length) return {};
  const out: Record<string, Json> = {};
  for (const g of guards) out[g.name] = g.deny === undefined ? g.record : { ...g.record, deny: g.deny };
  return { [GUARD_STATE_KEY]: out };
}

/** The coverage fact recorded in the entry's guard state, absent when an authorization interceptor covered the call. */
export const UNCOVERED_KEY = 'uncovered';

/** The recorded coverage fact of an entry's state: 'allow', 'deny' or undefined (covered, or an older entry). */
export function uncoveredOf(state: Record<string, Json> | undefined): 'allow' | 'deny' | undefined {
  const g = state?.[GUARD_STATE_KEY];
  if (typeof g !== 'object' || g === null || Array.isArray(g)) return undefined;
  const v = (g as Record<string, Json>)[UNCOVERED_KEY];
  return v === 'allow' || v === 'deny' ? v : undefined;
}
