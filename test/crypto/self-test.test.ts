// The verifiers' known-answer self-test (crypto/self-test.ts): its vectors are what the stated
// seeds give, and it passes here; the log thread runs it before opening anything.
import { describe, expect, it } from 'vitest';
import { fromBase64, toBase64 } from '../../src/canonical/index.js';
import { createEd25519Signer, createMldsaSigner, cryptoSelfTest, SELF_TEST_MESSAGE, SELF_TEST_VECTORS } from '../../src/crypto/index.js';

describe('crypto self-test', () => {
  it('holds vectors the stated seeds give (FIPS 204 deterministic ML-DSA-65, RFC 8032 Ed25519)', async () => {
    const msg = new TextEncoder().encode(SELF_TEST_MESSAGE);
    const m = createMldsaSigner(new Uint8Array(32).fill(0x5a), { deterministic: true });
    const e = createEd25519Signer(new Uint8Array(32).fill(0xa5));
    expect(SELF_TEST_VECTORS.mldsaPublicKey).toBe(toBase64(m.publicKey));
    expect(SELF_TEST_VECTORS.mldsaSignature).toBe(toBase64(await m.sign(msg)));
    expect(SELF_TEST_VECTORS.ed25519PublicKey).toBe(toBase64(e.publicKey));
    expect(SELF_TEST_VECTORS.ed25519Signature).toBe(toBase64(await e.sign(msg)));
    expect(fromBase64(SELF_TEST_VECTORS.mldsaSignature)).toHaveLength(3309);
  });

  it('passes with the real verifiers, and fails on a vector that does not verify', () => {
    expect(() => cryptoSelfTest()).not.toThrow();
    const flip = (b64: string) => {
      const b = fromBase64(b64);
      b[7] ^= 0x10;
      return toBase64(b);
    };
    expect(() => cryptoSelfTest({ ...SELF_TEST_VECTORS, mldsaSignature: flip(SELF_TEST_VECTORS.mldsaSignature) })).toThrow(/ML-DSA-65 verifier failed/);
    expect(() => cryptoSelfTest({ ...SELF_TEST_VECTORS, ed25519Signature: flip(SELF_TEST_VECTORS.ed25519Signature) })).toThrow(/Ed25519 verifier failed/);
  });
});
