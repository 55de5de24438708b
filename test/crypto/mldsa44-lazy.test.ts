// The service's main thread holds its ML-DSA-44 key as a lazy signer (crypto/mldsa44.ts
// createLazyMldsa44Signer): the key is expanded at the first signature, under the public key it was
// given. Its signatures must be the eager signer's kind (they verify), a seed that derives another
// key must never sign, and a closed one must not sign either.
import { describe, expect, it } from 'vitest';
import { createLazyMldsa44Signer, createMldsa44Signer, mldsa44KeyFromSeed, verifyMldsa44 } from '../../src/crypto/index.js';

const seed = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const other = Uint8Array.from({ length: 32 }, (_, i) => 200 - i);
const message = new TextEncoder().encode('cosigned message');

describe('createLazyMldsa44Signer', () => {
  it('signs under the key it was given, verifiable, from its first signature on', async () => {
    const { publicKey } = mldsa44KeyFromSeed(seed);
    const lazy = createLazyMldsa44Signer(seed, publicKey);
    expect(lazy.alg).toBe('ML-DSA-44');
    expect(lazy.publicKey).toEqual(publicKey);
    for (let i = 0; i < 2; i++) expect(verifyMldsa44(publicKey, message, await lazy.sign(message))).toBe(true);
    // The eager signer's public key is the same: the two are interchangeable.
    expect((createMldsa44Signer(seed)).publicKey).toEqual(publicKey);
    await lazy.close!();
    await expect(lazy.sign(message)).rejects.toMatchObject({ code: 'ERR_SIGN_FAILED' });
  });

  it('a seed that derives another public key never signs (every attempt refused, coded)', async () => {
    const lazy = createLazyMldsa44Signer(other, mldsa44KeyFromSeed(seed).publicKey);
    for (let i = 0; i < 2; i++) await expect(lazy.sign(message)).rejects.toMatchObject({ code: 'ERR_KEY_FORMAT' });
  });

  it('a seed or key of the wrong size is refused at once', () => {
    expect(() => createLazyMldsa44Signer(seed.subarray(1), mldsa44KeyFromSeed(seed).publicKey)).toThrow(expect.objectContaining({ code: 'ERR_KEY_FORMAT' }));
    expect(() => createLazyMldsa44Signer(seed, new Uint8Array(10))).toThrow(expect.objectContaining({ code: 'ERR_KEY_FORMAT' }));
  });

  it('the caller zeroing its seed afterwards does not change the key (the signer keeps its own copy)', async () => {
    const mine = seed.slice();
    const { publicKey } = mldsa44KeyFromSeed(seed);
    const lazy = createLazyMldsa44Signer(mine, publicKey);
    mine.fill(0);
    expect(verifyMldsa44(publicKey, message, await lazy.sign(message))).toBe(true);
  });
});
