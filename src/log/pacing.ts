// The one pacing policy of every log appender (serve's log thread, the gateway, the CLI, the
// Worker): commit at once; sign the newest tree whenever the signer is free, but under load no
// more often than every `minIntervalMs` (each signature then covers more entries and leaves the
// core to the requests); and refuse appends once an entry has waited `maxCoverageMs` unsigned.

export interface Pacing {
  /**
   * Under load, least time between the starts of two checkpoint signatures (default 25: ML-DSA-65
   * in pure JavaScript costs 7-12 ms a signature). "Under load" means the last signature covered
   * at least LOADED entries or that many wait now, so a lone or sequential caller never waits.
   */
  minIntervalMs: number;
  /**
   * When no caller waits for a signed receipt (every entry waiting was appended for a durable
   * answer), least time between signatures instead, under load or not (default 100). Durable callers were
   * answered at commit: signing less often delays nobody and leaves the signer's CPU to the
   * requests, and the coverage delay stays within about this plus one signature.
   */
  durableIntervalMs: number;
  /**
   * Bound on the coverage delay: appends fail with ERR_STORE_BEHIND while an entry has waited
   * longer (default 5000: far above the measured p99, so only a stalled or starved signer trips it).
   */
  maxCoverageMs: number;
  /** After a failed signature, wait this long before the next attempt (default 100). */
  retryMs: number;
}

export const DEFAULT_PACING: Pacing = { minIntervalMs: 25, durableIntervalMs: 100, maxCoverageMs: 5000, retryMs: 100 };

/** This many entries per signature means callers are arriving concurrently. */
export const LOADED = 4;

/**
 * Milliseconds before the next signature may start; 0: start now. `signedWaiting`: some caller
 * waits for the signed checkpoint (absent: assume one does).
 */
export function signDelay(p: Pacing, now: number, last: { at: number; entries: number } | undefined, pending: number, failedAt: number | undefined, signedWaiting = true): number {
  if (failedAt !== undefined && now - failedAt < p.retryMs) return p.retryMs - (now - failedAt);
  // minIntervalMs 0 turns pacing off altogether.
  if (!last || !p.minIntervalMs) return 0;
  const since = now - last.at;
  // Nobody waits for this signature: durable callers were answered at commit. Sign at most every
  // durableIntervalMs, loaded or not, so that a lone or sequential durable caller does not pay for
  // a signature per entry on the shared cores (coverage stays within about the interval).
  if (!signedWaiting) {
    const interval = Math.max(p.minIntervalMs, p.durableIntervalMs ?? 0);
    return since < interval ? interval - since : 0;
  }
  const loaded = last.entries >= LOADED || pending >= LOADED;
  return loaded && since < p.minIntervalMs ? p.minIntervalMs - since : 0;
}
