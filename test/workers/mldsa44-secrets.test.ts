// The Worker's ML-DSA-44 secret (issue 41 §1): VOUCH_MLDSA44_KEY joins the key set the log object
// signs with (src/worker/keys.ts, portable, run here under Node), its checkpoints carry the 0x06
// line under the log's origin, the JWKS and vkeys publish the key, and a _PREVIOUS ML-DSA-44 key
// without the _PREVIOUS ML-DSA-65 one is refused (a handover is signed by the whole outgoing set).
import { describe, expect, it } from 'vitest';
import { noteVerifierFor, parseNote, signCheckpoint, verifyNote } from '../../src/log/index.js';
import { createMldsa44Verifier } from '../../src/crypto/index.js';
import { noteSignersOf, readKeySets, readPublicKeys, secretOf } from '../../src/worker/keys.js';
import type { WorkerEnv } from '../../src/worker/env.js';

const key = (alg: string, byte: number) => JSON.stringify({ v: 1, alg, seed: Buffer.alloc(32, byte).toString('base64') });
const env = (extra: Record<string, string> = {}) => ({ VOUCH_SIGNING_KEY: key('ML-DSA-65', 7), VOUCH_ED25519_KEY: key('Ed25519', 8), VOUCH_MLDSA44_KEY: key('ML-DSA-44', 9), VOUCH_KEY_NAME: 'test.vouch', ...extra }) as unknown as WorkerEnv;

describe('VOUCH_MLDSA44_KEY on Workers', () => {
  it('joins the current key set; checkpoints carry its 0x06 line under the origin; the JWKS and vkeys publish it', async () => {
    const { current } = readKeySets(env());
    expect(current.keys.map((k) => k.alg)).toEqual(['ML-DSA-65', 'Ed25519', 'ML-DSA-44']);
    expect(secretOf(current, 'ML-DSA-44')).toBe('VOUCH_MLDSA44_KEY');
    const origin = 'test.vouch/default';
    const note = await signCheckpoint({ origin, size: 3, root: new Uint8Array(32).fill(1), extensions: [] }, noteSignersOf(current, origin));
    expect(parseNote(note).signatures.map((s) => s.signature.length)).toEqual([3309, 64, 8 + 2420]);
    const pq44 = noteVerifierFor(origin, createMldsa44Verifier(current.keys[2].publicKey));
    expect(verifyNote(note, [pq44])).toMatchObject({ postQuantum: 'ML-DSA-44' });
    const pub = readPublicKeys(env());
    expect(pub.jwks.keys.map((k) => ('alg' in k ? k.alg : k.crv))).toEqual(['ML-DSA-65', 'Ed25519', 'ML-DSA-44']);
    expect(pub.vkeys).toHaveLength(3);
  });

  it('without it, the set is ML-DSA-65 and Ed25519 as before', () => {
    expect(readKeySets(env({ VOUCH_MLDSA44_KEY: '' })).current.keys.map((k) => k.alg)).toEqual(['ML-DSA-65', 'Ed25519']);
  });

  it('refuses VOUCH_MLDSA44_KEY_PREVIOUS without VOUCH_SIGNING_KEY_PREVIOUS, and a key of another algorithm', () => {
    expect(() => readKeySets(env({ VOUCH_MLDSA44_KEY_PREVIOUS: key('ML-DSA-44', 10) }))).toThrow(expect.objectContaining({ code: 'ERR_CONFIG', message: expect.stringMatching(/VOUCH_MLDSA44_KEY_PREVIOUS is set without VOUCH_SIGNING_KEY_PREVIOUS/) }));
    expect(() => readKeySets(env({ VOUCH_MLDSA44_KEY: key('Ed25519', 9) }))).toThrow(/VOUCH_MLDSA44_KEY holds a Ed25519 key, not ML-DSA-44/);
  });
});
