// Node's entry points use node:crypto's SHA-256 for the core's (crypto/node-sha256.ts): it must be
// the same function as the portable one, on every length around the block boundaries and beyond.
import { randomBytes } from 'node:crypto';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/canonical/index.js';
import { nodeSha256 } from '../../src/crypto/node.js';

describe('SHA-256 on Node', () => {
  it('node:crypto and the core (with it installed) equal noble byte for byte', () => {
    for (const n of [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000, 4096, 65_537]) {
      const b = new Uint8Array(randomBytes(n));
      const want = nobleSha256(b);
      expect(nodeSha256(b)).toEqual(want);
      expect(sha256(b)).toEqual(want);
    }
    // A fresh Uint8Array each time, not a Buffer view into a shared pool.
    const d = nodeSha256(new Uint8Array(3));
    expect(d.constructor).toBe(Uint8Array);
    expect(d.byteOffset).toBe(0);
    expect(d.buffer.byteLength).toBe(32);
  });
});
