// Which entries stay raw (entry-codec.ts mayCompress): one regular expression over the bytes must say what the
// three substring searches it replaced said, on texts built to hold near misses and overlaps.
import { describe, expect, it } from 'vitest';
import { mayCompress } from '../../src/store/entry-codec.js';
import { rng } from '../helpers/rng.js';

const NEEDLES = ['"type":"policy"', '"type":"pin"', '"type":"key"'];
const naive = (text: string) => !NEEDLES.some((n) => text.includes(n));
const PARTS = ['"type":"', 'policy"', 'pin"', 'key"', 'policy', 'pi', 'ke', '"', ':', '"type":', 'decision"', '{', '}', ',', '\\"', 'x', '"type":"type":"', 'é'];

describe('mayCompress: one regular expression over Latin-1, the same verdict as three searches', () => {
  it('agrees over 20,000 texts of fragments', () => {
    const r = rng(40_5);
    const enc = new TextEncoder();
    let raw = 0;
    for (let i = 0; i < 20_000; i++) {
      let t = '';
      const n = 1 + Math.floor(r() * 12);
      for (let k = 0; k < n; k++) t += PARTS[Math.floor(r() * PARTS.length)];
      expect(mayCompress(enc.encode(t)), t).toBe(naive(t));
      if (!naive(t)) raw++;
    }
    expect(raw).toBeGreaterThan(500); // both verdicts were exercised
  });

  it('at the very end of the bytes, and inside a larger buffer', () => {
    const enc = new TextEncoder();
    for (const t of ['"type":"pin"', '"type":"pin', '"type":"', 'x"type":"key"', '"type":"ke']) expect(mayCompress(enc.encode(t)), t).toBe(naive(t));
    const big = enc.encode('AAAA"type":"policy"BBBB');
    expect(mayCompress(big.subarray(4, 12))).toBe(true); // '"type":"' then the view ends
    expect(mayCompress(big.subarray(4, 19))).toBe(false);
  });
});
