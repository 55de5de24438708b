// The one pacing policy (log/pacing.ts), as a function of time and what waits: a lone signed
// caller never waits; under load signatures start minIntervalMs apart; with only durable callers
// waiting, durableIntervalMs apart whether loaded or not (a sequential durable caller must not
// pay for a signature per entry); a failed signature waits retryMs; a slow signer stretches the
// interval under load to its signature time over signShare, up to STRETCH_CAP_MS.
import { describe, expect, it } from 'vitest';
import { DEFAULT_PACING, loadedInterval, signDelay, STRETCH_CAP_MS } from '../../src/log/pacing.js';

const p = { ...DEFAULT_PACING, minIntervalMs: 25, durableIntervalMs: 100, signShare: 0 };

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

  it('under load a slow signer stretches the interval to its time over signShare; a fast one keeps minIntervalMs', () => {
    const d = DEFAULT_PACING;
    expect(d.minIntervalMs).toBe(10);
    expect(d.signShare).toBe(0.4);
    // PQClean or node:crypto (1-2 ms a signature): every 10 ms; noble (7-12 ms): 17.5-30 ms.
    expect(loadedInterval(d, 1.5)).toBe(10);
    expect(loadedInterval(d, 4)).toBe(10);
    expect(loadedInterval(d, 10)).toBe(25);
    expect(loadedInterval(d, 12)).toBe(30);
    // Unknown yet (no signature so far), or stretching off: minIntervalMs.
    expect(loadedInterval(d, undefined)).toBe(10);
    expect(loadedInterval({ ...d, signShare: 0 }, 12)).toBe(10);
    // A stalled signer is not waited for longer still: the stretch stops at the cap.
    expect(loadedInterval(d, 2000)).toBe(STRETCH_CAP_MS);
    expect(loadedInterval({ ...d, minIntervalMs: 80 }, 2000)).toBe(80);
    // Through signDelay: loaded, 10 ms after a start whose signature took 12 ms, 20 ms to go.
    expect(signDelay(d, 1010, { at: 1000, entries: 8, signMs: 12 }, 8, undefined, true)).toBe(20);
    expect(signDelay(d, 1010, { at: 1000, entries: 8, signMs: 1.2 }, 8, undefined, true)).toBe(0);
    // Not loaded: no wait, however slow the signer. Durable callers only: durableIntervalMs as before.
    expect(signDelay(d, 1001, { at: 1000, entries: 1, signMs: 12 }, 1, undefined, true)).toBe(0);
    expect(signDelay(d, 1010, { at: 1000, entries: 8, signMs: 12 }, 8, undefined, false)).toBe(90);
  });
});
