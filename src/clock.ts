// The system clock: the adapters' default (Node, Workers, browser). Never in the decision
// path: the decision time is chosen once by the caller and recorded (DESIGN.md section 4).

export interface Clock {
  now(): Date;
  /** RFC 3339 UTC with milliseconds, e.g. 2026-01-02T03:04:05.678Z. */
  isoNow(): string;
  /** Milliseconds from an arbitrary origin, never going backwards: for durations only. */
  monotonic(): number;
}

export const systemClock: Clock = {
  now: () => new Date(),
  isoNow: () => new Date().toISOString(),
  monotonic: () => performance.now(),
};
