// The one pacing policy (log/pacing.ts), as a function of time and what waits: a lone signed
// caller never waits; under load signatures start minIntervalMs apart; with only durable callers
// waiting, durableIntervalMs apart whether loaded or not (a sequential durable caller must not
// pay for a signature per entry); a failed signature waits retryMs.
import { describe, expect, it } from 'vitest';
import { DEFAULT_PACING, signDelay } from '../../src/log/pacing.js';

const p = { ...DEFAULT_PACING, minIntervalMs: 25, durableIntervalMs: 100 };

describe('signDelay', () => {
  it('the first signature starts at once, for anyone', () => {
    expect(signDelay(p, 1000, undefined, 1, undefined, true)).toBe(0);
    expect(signDelay(p, 1000, undefined, 50, undefined, false)).toBe(0);
  });

  it('a signed caller: unpaced when not loaded, minIntervalMs apart when loaded', () => {
    expect(signDelay(p, 1010, { at: 1000, entries: 1 }, 1, undefined, true)).toBe(0);
    expect(signDelay(p, 1010, { at: 1000, entries: 8 }, 1, undefined, true)).toBe(15);
    expect(signDelay(p, 1010, { at: 1000, entries: 1 }, 8, undefined, true)).toBe(15);
    expect(signDelay(p, 1030, { at: 1000, entries: 8 }, 8, undefined, true)).toBe(0);
  });

  it('only durable callers: durableIntervalMs apart, loaded or not', () => {
    expect(signDelay(p, 1010, { at: 1000, entries: 1 }, 1, undefined, false)).toBe(90);
    expect(signDelay(p, 1010, { at: 1000, entries: 8 }, 8, undefined, false)).toBe(90);
    expect(signDelay(p, 1100, { at: 1000, entries: 1 }, 1, undefined, false)).toBe(0);
    // Never less than minIntervalMs.
    expect(signDelay({ ...p, durableIntervalMs: 10 }, 1010, { at: 1000, entries: 1 }, 1, undefined, false)).toBe(15);
  });

  it('after a failure, retryMs; minIntervalMs 0 turns pacing off', () => {
    expect(signDelay(p, 1040, { at: 1000, entries: 1 }, 1, 1000, true)).toBe(60);
    expect(signDelay({ ...p, minIntervalMs: 0 }, 1010, { at: 1000, entries: 8 }, 8, undefined, false)).toBe(0);
  });
});
