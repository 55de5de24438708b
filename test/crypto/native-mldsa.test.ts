// Differential test of the node:crypto ML-DSA-65 backend against noble: the same verdict on every
// Wycheproof verify vector (empty context), the same public key from a seed, and signatures that
// cross-verify. Skipped, saying why, where Node has no ML-DSA (before 24.7).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromHex } from '../../src/canonical/index.js';
import { createMldsaSigner, createMldsaVerifier, mldsaKeyFromSeed, verifyMldsa } from '../../src/crypto/index.js';
import { createNativeMldsaSigner, createNativeMldsaVerifier, nativeMldsaAvailable, verifyNativeMldsa } from '../../src/crypto/native-mldsa.js';

interface Case { tcId: number; msg?: string; ctx?: string; sig: string; result: string }
const verifyFile: { testGroups: { publicKey?: string; tests: Case[] }[] } = JSON.parse(readFileSync(new URL('../../fixtures/vectors/mldsa65/mldsa_65_verify_test.json', import.meta.url), 'utf8'));
const hex = (s: string | undefined) => fromHex(s ?? '');
const native = nativeMldsaAvailable();
const title = native ? 'native ML-DSA-65 (node:crypto) vs noble' : `skipped: native ML-DSA absent on Node ${process.versions.node} (node:crypto has it from 24.7)`;

describe.skipIf(!native)(title, () => {
  it('agrees with noble on every empty-context Wycheproof verify vector', () => {
    const disagree: number[] = [];
    let checked = 0;
    for (const g of verifyFile.testGroups) {
      for (const t of g.tests) {
        if (t.ctx) continue; // node:crypto signs and verifies with the empty context only
        checked++;
        const a = verifyMldsa(hex(g.publicKey), hex(t.msg), hex(t.sig));
        const b = verifyNativeMldsa(hex(g.publicKey), hex(t.msg), hex(t.sig));
        if (a !== b || a !== (t.result === 'valid')) disagree.push(t.tcId);
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(disagree).toEqual([]);
  });

  it('derives the same public key from a seed, and signatures cross-verify', async () => {
    const seed = Uint8Array.from({ length: 32 }, (_, i) => i * 7);
    const msg = new TextEncoder().encode('vouch checkpoint\n42\n');
    const nobleSigner = createMldsaSigner(seed);
    const nativeSigner = createNativeMldsaSigner(seed);
    expect(nativeSigner.publicKey).toEqual(mldsaKeyFromSeed(seed).publicKey);
    const nobleVerifier = createMldsaVerifier(nobleSigner.publicKey);
    const nativeVerifier = createNativeMldsaVerifier(nativeSigner.publicKey);
    const s1 = await nobleSigner.sign(msg);
    const s2 = await nativeSigner.sign(msg);
    expect(nativeVerifier.verify(msg, s1)).toBe(true);
    expect(nobleVerifier.verify(msg, s2)).toBe(true);
    const flipped = s2.slice();
    flipped[100] ^= 1;
    expect(nobleVerifier.verify(msg, flipped)).toBe(false);
    expect(nativeVerifier.verify(msg, flipped)).toBe(false);
  });
});

describe('native ML-DSA availability', () => {
  it(`reports ${native ? 'present' : 'absent'} on Node ${process.versions.node}, matching the version gate (>= 24.7)`, () => {
    const [major, minor] = process.versions.node.split('.').map(Number);
    const newEnough = major > 24 || (major === 24 && minor >= 7);
    // OpenSSL builds without ML-DSA exist, so only "old Node => absent" is a hard rule.
    if (!newEnough) expect(native).toBe(false);
  });
});
