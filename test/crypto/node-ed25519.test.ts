// The node:crypto Ed25519 signer gives the very bytes the portable (noble) one gives: Ed25519 is
// deterministic, so checkpoint notes do not depend on which one signed.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createEd25519Signer, ed25519PublicKeyFromSeed, verifyEd25519 } from '../../src/crypto/index.js';
import { createNodeEd25519Signer, createNodeEd25519Verifier, nodeEd25519PublicKeyFromSeed, nodeVerifyEd25519 } from '../../src/crypto/node.js';
import { cryptoSelfTest, SELF_TEST_VECTORS } from '../../src/crypto/index.js';
import { fromBase64, toBase64 } from '../../src/canonical/index.js';

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

  // The log writer thread checks its own Ed25519 lines with node:crypto (store/log-thread-host.ts):
  // it must say exactly what the portable strict verifier says, on good and on crafted input.
  it('verifies exactly as the strict noble verifier: valid, tampered, non-canonical S, A and R', async () => {
    const L = 2n ** 252n + 27742317777372353535851937790883648493n;
    const P = 2n ** 255n - 19n;
    const le = (n: bigint) => Uint8Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(8 * i)) & 0xffn));
    const num = (b: Uint8Array) => b.reduce((acc, x, i) => acc + (BigInt(x) << BigInt(8 * i)), 0n);
    const cases: [Uint8Array, Uint8Array, Uint8Array][] = [];
    for (let k = 0; k < 10; k++) {
      const s = createEd25519Signer(new Uint8Array(randomBytes(32)));
      const m = new Uint8Array(randomBytes(k * 7));
      const sig = await s.sign(m);
      cases.push([s.publicKey, m, sig]);
      const flipped = sig.slice();
      flipped[k % 64] ^= 1 << k % 8;
      cases.push([s.publicKey, m, flipped]);
      const highS = sig.slice(); // S + L: the same scalar, not canonical
      highS.set(le(num(sig.subarray(32)) + L), 32);
      cases.push([s.publicKey, m, highS]);
      cases.push([s.publicKey, new Uint8Array([...m, 0]), sig]);
      cases.push([sig.subarray(0, 32), m, sig]); // R as the key
    }
    // y >= p: y = p + 1 encodes the point y = 1 (the identity) non-canonically, for A and for R.
    const nonCanonical = le(P + 1n);
    const s = createEd25519Signer(new Uint8Array(32).fill(9));
    const m = new TextEncoder().encode('m');
    const sig = await s.sign(m);
    cases.push([nonCanonical, m, sig]);
    const rBad = sig.slice();
    rBad.set(nonCanonical, 0);
    cases.push([s.publicKey, m, rBad]);
    cases.push([s.publicKey, m, sig.subarray(0, 63)], [s.publicKey.subarray(0, 31), m, sig], [new Uint8Array(32), m, new Uint8Array(64)]);
    // Keys of small order, and the identity encoded with y = p + 1: with R the identity and S = 0
    // OpenSSL alone accepts every one of them for any message (a universal forgery); both refuse.
    const identity = le(1n);
    const anyMessage = new TextEncoder().encode('any message at all');
    for (const key of [identity, le(P - 1n), new Uint8Array(32), nonCanonical]) cases.push([key, anyMessage, Uint8Array.from([...identity, ...new Uint8Array(32)])]);
    let accepted = 0;
    for (const [pk, msg, sg] of cases) {
      const want = verifyEd25519(pk, msg, sg);
      expect(nodeVerifyEd25519(pk, msg, sg), `case ${toBase64(sg).slice(0, 12)}`).toBe(want);
      if (pk.length === 32) expect(createNodeEd25519Verifier(pk.slice()).verify(msg, sg)).toBe(want);
      if (want) accepted++;
    }
    expect(accepted).toBe(10); // exactly the untouched signatures
    expect(() => createNodeEd25519Verifier(new Uint8Array(31))).toThrow(expect.objectContaining({ code: 'ERR_KEY_FORMAT' }));
  });

  it('passes the known-answer self-test as the log thread runs it, and fails it on a bad vector', () => {
    expect(() => cryptoSelfTest(undefined, { ed25519: nodeVerifyEd25519 })).not.toThrow();
    const sig = fromBase64(SELF_TEST_VECTORS.ed25519Signature);
    sig[3] ^= 4;
    expect(() => cryptoSelfTest({ ...SELF_TEST_VECTORS, ed25519Signature: toBase64(sig) }, { ed25519: nodeVerifyEd25519 })).toThrow(/Ed25519 verifier failed/);
  });
});
