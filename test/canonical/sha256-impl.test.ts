// Node's entry points use node:crypto's SHA-256 for the core's (crypto/node-sha256.ts): it must be
// the same function as the portable one, on every length around the block boundaries and beyond.
import { randomBytes } from 'node:crypto';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { digestBytes, installSha256, sha256 } from '../../src/canonical/index.js';
import { toHex } from '../../src/canonical/encoding.js';
import { nodeSha256, nodeSha256Hex } from '../../src/crypto/node.js';

describe('SHA-256 on Node', () => {
  it('node:crypto and the core (with it installed) equal noble byte for byte', () => {
    for (const n of [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000, 4096, 65_537]) {
      const b = new Uint8Array(randomBytes(n));
      const want = nobleSha256(b);
      expect(nodeSha256(b)).toEqual(want);
      expect(sha256(b)).toEqual(want);
      // digestBytes takes the one-shot hex where installed: the same text as hex of noble's bytes.
      expect(nodeSha256Hex(b)).toBe(toHex(want));
      expect(digestBytes(b)).toBe(`sha256:${toHex(want)}`);
      // A view into a larger buffer hashes only its own bytes.
      const big = new Uint8Array(n + 7).fill(0xa5);
      big.set(b, 3);
      expect(nodeSha256Hex(big.subarray(3, 3 + n))).toBe(toHex(want));
    }
    // A fresh Uint8Array each time, not a Buffer view into a shared pool.
    const d = nodeSha256(new Uint8Array(3));
    expect(d.constructor).toBe(Uint8Array);
    expect(d.byteOffset).toBe(0);
    expect(d.buffer.byteLength).toBe(32);
  });

  it('a core without the hex one-shot (noble installed back) gives the same digests', () => {
    const b = new Uint8Array(randomBytes(2200));
    const fast = digestBytes(b);
    installSha256(nobleSha256);
    try {
      expect(digestBytes(b)).toBe(fast);
    } finally {
      installSha256(nodeSha256, nodeSha256Hex);
    }
  });
});
