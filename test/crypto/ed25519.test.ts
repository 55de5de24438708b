// Ed25519 wrappers: RFC 8032 test vector 1, and total verification on malformed input.
import { describe, expect, it } from 'vitest';
import { fromHex } from '../../src/canonical/index.js';
import { createEd25519Signer, createEd25519Verifier, verifyEd25519 } from '../../src/crypto/index.js';

// RFC 8032 section 7.1, TEST 1 (empty message).
const SK = fromHex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
const PK = fromHex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
const SIG = fromHex(
  'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
);

describe('Ed25519', () => {
  it('reproduces RFC 8032 test 1 and verifies it', async () => {
    const s = createEd25519Signer(SK);
    expect(s.publicKey).toEqual(PK);
    expect(await s.sign(new Uint8Array(0))).toEqual(SIG);
    expect(createEd25519Verifier(PK).verify(new Uint8Array(0), SIG)).toBe(true);
  });

  it('returns false for a changed message or signature and for malformed sizes', () => {
    const bad = SIG.slice();
    bad[10] ^= 1;
    expect(verifyEd25519(PK, new Uint8Array(0), bad)).toBe(false);
    expect(verifyEd25519(PK, new Uint8Array(1), SIG)).toBe(false);
    expect(verifyEd25519(PK.subarray(1), new Uint8Array(0), SIG)).toBe(false);
    expect(verifyEd25519(PK, new Uint8Array(0), SIG.subarray(1))).toBe(false);
    expect(verifyEd25519(new Uint8Array(32).fill(0xff), new Uint8Array(0), SIG)).toBe(false);
  });

  it('rejects bad seeds and keys with ERR_KEY_FORMAT, and signing after close', async () => {
    expect(() => createEd25519Signer(new Uint8Array(33))).toThrow(expect.objectContaining({ code: 'ERR_KEY_FORMAT' }));
    expect(() => createEd25519Verifier(new Uint8Array(31))).toThrow(expect.objectContaining({ code: 'ERR_KEY_FORMAT' }));
    const s = createEd25519Signer(SK);
    await s.close?.();
    await expect(s.sign(new Uint8Array(0))).rejects.toMatchObject({ code: 'ERR_SIGN_FAILED' });
  });
});
