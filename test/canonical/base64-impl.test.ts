// Node's entry points use Buffer's base64 for the core's (crypto/node-base64.ts): it must be the
// same function as the portable one, both ways, on every length mod 3 and on views into larger
// buffers, and fromBase64 must refuse the same texts with it installed.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fromBase64, toBase64 } from '../../src/canonical/index.js';
import { fromBase64Portable, toBase64Portable } from '../../src/canonical/encoding.js';
import { nodeBase64 } from '../../src/crypto/node.js';

describe('base64 on Node', () => {
  it('Buffer and the core (with it installed) equal the portable codec byte for byte', () => {
    for (const n of [0, 1, 2, 3, 4, 5, 31, 32, 33, 2047, 2048, 2049, 3309, 65_537]) {
      const backing = new Uint8Array(randomBytes(n + 7));
      const b = backing.subarray(3, 3 + n); // a view: encode must read only its own bytes
      const text = toBase64Portable(b);
      expect(nodeBase64.encode(b)).toBe(text);
      expect(toBase64(b)).toBe(text);
      expect(fromBase64Portable(text)).toEqual(new Uint8Array(b));
      const back = fromBase64(text);
      expect(back).toEqual(new Uint8Array(b));
      expect(back.constructor).toBe(Uint8Array); // not a Buffer view into Buffer's shared pool
      expect(back.byteOffset).toBe(0);
      expect(back.buffer.byteLength).toBe(n);
    }
  });

  it('refuses what it refused before: bad alphabet, no padding, non-zero pad bits, whitespace', () => {
    for (const bad of ['QQ', 'QR==', 'QUI=x', 'Q Q==', 'QUJD\n', '-_-_', 'QUJ=', 'QU==', '====', 'A===']) {
      expect(() => fromBase64(bad), bad).toThrow(expect.objectContaining({ code: 'ERR_INPUT' }));
    }
    expect(fromBase64('')).toEqual(new Uint8Array(0));
  });
});
