// The retry schedule of vouch's background calls to a remote party (a TSA, a witness): doubling
// from a base delay, capped. Pure: the caller passes its failure count and its own clock reading,
// so a stamper or submitter keeps its state and a test can drive the schedule without waiting.

export interface BackoffSchedule {
  /** Delay after the first failure. */
  baseMs: number;
  /** The delay never grows past this (none: uncapped, for a caller that stops after a few tries). */
  maxMs?: number;
}

/** Delay before the next try after `failures` consecutive failures (1 = the first): baseMs * 2^(failures - 1), capped at maxMs. */
export function backoffDelay(failures: number, s: BackoffSchedule): number {
  return Math.min(s.baseMs * 2 ** (failures - 1), s.maxMs ?? Infinity);
}

/** The time, on the caller's clock (`nowMs`), before which no try should be made after `failures` failures. */
export function retryAt(failures: number, nowMs: number, s: BackoffSchedule): number {
  return nowMs + backoffDelay(failures, s);
}
