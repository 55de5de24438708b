// The PQClean (WebAssembly) ML-DSA-65 engine of the signing thread against noble: signatures made
// with the expanded key noble derives verify under noble and the other way round, tampering is
// refused by both, the thread signs hedged with it and deterministically only through noble.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { mldsaKeyFromSeed, signMldsa, verifyMldsa } from '../../src/crypto/mldsa.js';
import { createWorkerSigner } from '../../src/crypto/worker-signer.js';
import { rng as seeded } from '../helpers/rng.js';

function makeRng(seed: number): { bytes(n: number): Uint8Array } {
  const next = seeded(seed);
  return { bytes: (n) => Uint8Array.from({ length: n }, () => Math.floor(next() * 256)) };
}

interface PqSign { sign(sk: Uint8Array, m: Uint8Array): Uint8Array; verify(pk: Uint8Array, m: Uint8Array, s: Uint8Array): boolean }
const { Sign } = createRequire(import.meta.url)('pqclean/wasm/index.js') as { Sign: new (name: string) => PqSign };
const pq = new Sign('ml-dsa-65');

describe('pqclean ML-DSA-65 against noble', () => {
  it('each verifies the other over seeded keys and messages; a flipped bit is refused by both', () => {
    const rng = makeRng(2624);
    for (let i = 0; i < 12; i++) {
      const seed = rng.bytes(32);
      const { publicKey, secretKey } = mldsaKeyFromSeed(seed);
      const message = rng.bytes(i * 37);
      const byPq = pq.sign(secretKey, message);
      expect(byPq.length).toBe(3309);
      expect(verifyMldsa(publicKey, message, byPq)).toBe(true);
      const byNoble = signMldsa(secretKey, message);
      expect(pq.verify(publicKey, message, byNoble)).toBe(true);
      const bad = byPq.slice();
      bad[(i * 101) % bad.length] ^= 1 << (i % 8);
      expect(verifyMldsa(publicKey, message, bad)).toBe(false);
      expect(pq.verify(publicKey, message, bad)).toBe(false);
      if (message.length > 0) {
        const other = message.slice();
        other[0] ^= 0x80;
        expect(verifyMldsa(publicKey, other, byPq)).toBe(false);
      }
    }
  });

  it('the signing thread signs with it (hedged: two signatures of one message differ, both verify); deterministic goes through noble', async () => {
    const seed = makeRng(7).bytes(32);
    const { publicKey, secretKey } = mldsaKeyFromSeed(seed);
    const message = new TextEncoder().encode('vouch.example/log\n7\nAAAA\n');
    const hedged = await createWorkerSigner(seed);
    try {
      const [a, b] = [await hedged.sign(message), await hedged.sign(message)];
      expect(verifyMldsa(publicKey, message, a)).toBe(true);
      expect(verifyMldsa(publicKey, message, b)).toBe(true);
      expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
    } finally {
      await hedged.close?.();
    }
    const det = await createWorkerSigner(seed, { deterministic: true });
    try {
      expect(Buffer.from(await det.sign(message)).equals(Buffer.from(signMldsa(secretKey, message, { rnd: false })))).toBe(true);
    } finally {
      await det.close?.();
    }
  });
});
