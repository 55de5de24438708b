// The node:crypto Ed25519 signer gives the very bytes the portable (noble) one gives: Ed25519 is
// deterministic, so checkpoint notes do not depend on which one signed.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createEd25519Signer, ed25519PublicKeyFromSeed, verifyEd25519 } from '../../src/crypto/index.js';
import { createNodeEd25519Signer, nodeEd25519PublicKeyFromSeed } from '../../src/crypto/node.js';

describe('createNodeEd25519Signer', () => {
  it('signs exactly as the noble signer, same public key, for many keys and messages', async () => {
    for (let k = 0; k < 20; k++) {
      const seed = new Uint8Array(randomBytes(32));
      const a = createNodeEd25519Signer(seed);
      const b = createEd25519Signer(seed);
      expect(a.publicKey).toEqual(b.publicKey);
      for (const n of [0, 1, 64, 1000]) {
        const m = new Uint8Array(randomBytes(n));
        const sig = await a.sign(m);
        expect(sig).toEqual(await b.sign(m));
        expect(verifyEd25519(a.publicKey, m, sig)).toBe(true);
      }
    }
  });

  it('refuses a bad seed with ERR_KEY_FORMAT and signs nothing once closed', async () => {
    expect(() => createNodeEd25519Signer(new Uint8Array(31))).toThrow(expect.objectContaining({ code: 'ERR_KEY_FORMAT' }));
    const s = createNodeEd25519Signer(new Uint8Array(32).fill(3));
    await s.close?.();
    await expect(s.sign(new Uint8Array(1))).rejects.toMatchObject({ code: 'ERR_SIGN_FAILED' });
  });

  it('derives the public key start-up reads from a key file exactly as noble does', () => {
    for (let k = 0; k < 50; k++) {
      const seed = new Uint8Array(randomBytes(32));
      expect(nodeEd25519PublicKeyFromSeed(seed)).toEqual(ed25519PublicKeyFromSeed(seed));
    }
    expect(() => nodeEd25519PublicKeyFromSeed(new Uint8Array(33))).toThrow(expect.objectContaining({ code: 'ERR_KEY_FORMAT' }));
  });
});
