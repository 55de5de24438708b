// The ML-DSA-65 Signer/Verifier wrappers: hedged vs deterministic signing, closing, misuse.
import { describe, expect, it } from 'vitest';
import {
  createMldsaSigner, createMldsaVerifier, mldsaKeyFromSeed, MLDSA65_SIGNATURE_BYTES, verifyMldsa,
} from '../../src/crypto/index.js';

const seed = new Uint8Array(32).fill(7);
const msg = new TextEncoder().encode('checkpoint text\n');

describe('createMldsaSigner', () => {
  it('signs hedged by default: two signatures differ and both verify', async () => {
    const s = createMldsaSigner(seed);
    const [a, b] = [await s.sign(msg), await s.sign(msg)];
    expect(a).toHaveLength(MLDSA65_SIGNATURE_BYTES);
    expect(a).not.toEqual(b);
    const v = createMldsaVerifier(s.publicKey);
    expect(v.verify(msg, a) && v.verify(msg, b)).toBe(true);
  });

  it('signs deterministically when asked: same bytes every time', async () => {
    const s = createMldsaSigner(seed, { deterministic: true });
    expect(await s.sign(msg)).toEqual(await s.sign(msg));
    expect(s.publicKey).toEqual(mldsaKeyFromSeed(seed).publicKey);
  });

  it('refuses to sign after close', async () => {
    const s = createMldsaSigner(seed);
    await s.close?.();
    await expect(s.sign(msg)).rejects.toMatchObject({ code: 'ERR_SIGN_FAILED' });
  });

  it('rejects a seed that is not 32 bytes', () => {
    expect(() => createMldsaSigner(new Uint8Array(31))).toThrow(expect.objectContaining({ code: 'ERR_KEY_FORMAT' }));
  });
});

describe('verifyMldsa', () => {
  it('returns false for a wrong message, a wrong context and malformed sizes, never throws', async () => {
    const s = createMldsaSigner(seed);
    const sig = await s.sign(msg);
    expect(verifyMldsa(s.publicKey, msg, sig)).toBe(true);
    expect(verifyMldsa(s.publicKey, new Uint8Array(3), sig)).toBe(false);
    expect(verifyMldsa(s.publicKey, msg, sig, new Uint8Array([1]))).toBe(false);
    expect(verifyMldsa(s.publicKey, msg, sig, new Uint8Array(256))).toBe(false);
    expect(verifyMldsa(s.publicKey.subarray(1), msg, sig)).toBe(false);
    expect(verifyMldsa(s.publicKey, msg, sig.subarray(1))).toBe(false);
    expect(verifyMldsa(s.publicKey, msg, new Uint8Array(0))).toBe(false);
  });

  it('createMldsaVerifier refuses a key of the wrong size', () => {
    expect(() => createMldsaVerifier(new Uint8Array(1951))).toThrow(expect.objectContaining({ code: 'ERR_KEY_FORMAT' }));
  });
});
