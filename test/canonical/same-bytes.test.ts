// sameBytes (public data, the platform's memcmp where installed: crypto/node-bytes.ts) against the
// portable constant-time bytesEqual, on views at odd offsets of shared buffers and on lengths that differ.
import { describe, expect, it } from 'vitest';
import { bytesEqual, sameBytes } from '../../src/canonical/index.js';
import { nodeSameBytes } from '../../src/crypto/node.js';
import { rng } from '../helpers/rng.js';

describe('sameBytes', () => {
  it('agrees with bytesEqual over 5,000 pairs (views, offsets, one byte apart, lengths apart)', () => {
    const r = rng(40_6);
    const pool = new Uint8Array(8192).map(() => Math.floor(r() * 4));
    let equal = 0;
    for (let i = 0; i < 5000; i++) {
      const len = Math.floor(r() * 2000);
      const a0 = Math.floor(r() * (pool.length - len));
      const a = pool.subarray(a0, a0 + len);
      const kind = Math.floor(r() * 4);
      const b = kind === 0 ? Uint8Array.from(a) : kind === 1 ? pool.subarray(a0, a0 + Math.max(0, len - 1)) : kind === 2 ? (() => { const c = Uint8Array.from(a); if (len) c[Math.floor(r() * len)] ^= 1 << Math.floor(r() * 8); return c; })() : pool.subarray(Math.floor(r() * (pool.length - len))).subarray(0, len);
      const want = bytesEqual(a, b);
      expect(sameBytes(a, b), `pair ${i}`).toBe(want);
      expect(nodeSameBytes(a, b), `pair ${i}`).toBe(want);
      if (want) equal++;
    }
    expect(equal).toBeGreaterThan(1000);
    expect(equal).toBeLessThan(4000);
  });
});
