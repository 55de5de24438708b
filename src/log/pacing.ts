// The one pacing policy of every log appender (serve's log thread, the gateway, the CLI, the
// Worker): commit at once; sign the newest tree whenever the signer is free, but under load no
// more often than every `minIntervalMs` (each signature then covers more entries and leaves the
// core to the requests); and refuse appends once an entry has waited `maxCoverageMs` unsigned.

export interface Pacing {
  /**
   * Under load, least time between the starts of two checkpoint signatures (default 10). "Under
   * load" means the last signature covered at least LOADED entries or that many wait now, so a
   * lone or sequential caller never waits. A slow signer stretches it (signShare).
   */
  minIntervalMs: number;
  /**
   * Under load, about the share of time the signer may spend signing (default 0.4): the interval
   * stretches to the recent signature time (a moving average of the wall time from starting a
   * checkpoint's signatures to having them, so a busy machine stretches it too) divided by this,
   * up to STRETCH_CAP_MS; past 20 ms a signature the cap holds and the share grows. ML-DSA-65 in
   * pure JavaScript (noble, 7-12 ms a signature) gets 17.5-30 ms, about the 25 ms it always had;
   * PQClean (WebAssembly, about 1-2 ms) and node:crypto sign every 10 ms. Measured at 64 signed
   * callers, 10 ms answered about a tenth more of them per unit of CPU than 25 ms (a checkpoint
   * answers its callers at once, so long intervals send requests in waves that leave the event
   * loop idle between them), and 5 ms fewer (each checkpoint is stored and proved). 0: no stretch.
   */
  signShare: number;
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

export const DEFAULT_PACING: Pacing = { minIntervalMs: 10, signShare: 0.4, durableIntervalMs: 100, maxCoverageMs: 5000, retryMs: 100 };

/** The stretched interval stops here: a signer slower than this needs its own time, not more waiting, and coverage shows it. */
export const STRETCH_CAP_MS = 50;

/** The interval under load: minIntervalMs, stretched for a slow signer (`signMs`: recent signature time). */
export function loadedInterval(p: Pacing, signMs: number | undefined): number {
  if (!p.signShare || !signMs || !(signMs > 0)) return p.minIntervalMs;
  return Math.max(p.minIntervalMs, Math.min(signMs / p.signShare, Math.max(p.minIntervalMs, STRETCH_CAP_MS)));
}

/** This many entries per signature means callers are arriving concurrently. */
export const LOADED = 4;

/**
 * Milliseconds before the next signature may start; 0: start now. `signedWaiting`: some caller
 * waits for the signed checkpoint (absent: assume one does).
 */
export function signDelay(p: Pacing, now: number, last: { at: number; entries: number; signMs?: number } | undefined, pending: number, failedAt: number | undefined, signedWaiting = true): number {
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
  const interval = loadedInterval(p, last.signMs);
  return loaded && since < interval ? interval - since : 0;
}

/** The defaults with every option that is set (an undefined option keeps its default). */
export function pacingOf(o: Partial<Pacing>): Pacing {
  const out: Pacing = { ...DEFAULT_PACING };
  for (const k of ['minIntervalMs', 'signShare', 'durableIntervalMs', 'maxCoverageMs', 'retryMs'] as const) if (o[k] !== undefined) out[k] = o[k]!;
  return out;
}
