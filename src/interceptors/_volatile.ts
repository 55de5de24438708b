// Remove what varies between two runs of the same decision (timings) before comparing or
// recording: stripVolatile walks every depth (the conformance suite's rule); stripDurations
// touches only the chain result's own timing fields and leaves payloads intact.
import { setMember } from '../canonical/index.js';
import type { ChainResult, InterceptorResult } from './types.js';

export const VOLATILE_KEYS: readonly string[] = ['durationMs', 'totalDurationMs'];
/** The conformance suite also drops `info` (implementation-specific details). */
export const CONFORMANCE_VOLATILE_KEYS: readonly string[] = ['durationMs', 'totalDurationMs', 'info'];

/** A copy of `value` without the given keys at any depth. */
export function stripVolatile<T>(value: T, keys: readonly string[] = VOLATILE_KEYS): T {
  return strip(value, new Set(keys)) as T;
}

function strip(v: unknown, keys: ReadonlySet<string>): unknown {
  if (Array.isArray(v)) return v.map((x) => strip(x, keys));
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (!keys.has(k)) setMember(out, k, strip(x, keys));
  return out;
}

/**
 * The chain result without `totalDurationMs` and each result's `durationMs`, nothing else:
 * a payload that happens to hold a `durationMs` key keeps it. (Decision entries drop the same
 * fields in decisionRecord, decide/plan.ts, which copies the results in the same pass.)
 */
export function stripDurations(result: ChainResult): ChainResult {
  const { totalDurationMs: _t, ...rest } = result;
  return {
    ...rest,
    results: result.results.map((r) => {
      const { durationMs: _d, ...kept } = r;
      return kept as InterceptorResult;
    }),
  };
}
