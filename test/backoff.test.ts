// The retry schedule the TSA stamper and the witness submitter share (src/backoff.ts): doubling
// from the base, capped where a cap is given, and placed on the caller's clock.
import { describe, expect, it } from 'vitest';
import { backoffDelay, retryAt } from '../src/backoff.js';

describe('backoffDelay', () => {
  it('doubles from the base after each failure', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, { baseMs: 250 }))).toEqual([250, 500, 1000, 2000, 4000]);
  });

  it('stops growing at the cap', () => {
    expect([1, 2, 3, 4, 10, 40].map((n) => backoffDelay(n, { baseMs: 1000, maxMs: 5000 }))).toEqual([1000, 2000, 4000, 5000, 5000, 5000]);
  });
});

describe('retryAt', () => {
  it('is the caller clock reading plus the delay', () => {
    expect(retryAt(1, 10_000, { baseMs: 1000, maxMs: 300_000 })).toBe(11_000);
    expect(retryAt(3, 10_000, { baseMs: 1000, maxMs: 300_000 })).toBe(14_000);
    expect(retryAt(20, 10_000, { baseMs: 1000, maxMs: 300_000 })).toBe(310_000);
  });
});
