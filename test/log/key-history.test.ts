// `key` entries with and without `by` (who asked, issue 35) fold to the same key history: the
// field is a record for people, never read by the fold; a `by` that is not a non-empty string is a
// finding, as a malformed field of any key entry is.
import { describe, expect, it } from 'vitest';
import { createMldsa44Signer, createMldsaSigner, createEd25519Signer } from '../../src/crypto/index.js';
import { decodeEntry, encodeEntry, KeyHistoryFold, revokeEntryBody, rotateEntryBody, type EntryBody, type KeySet } from '../../src/log/index.js';

const keysOf = (b: number): KeySet['keys'] => [createMldsaSigner(new Uint8Array(32).fill(b)), createEd25519Signer(new Uint8Array(32).fill(b + 1))].map((s) => ({ alg: s.alg, publicKey: s.publicKey }));
const genesis: KeySet = { name: 'vouch.local/t', keys: keysOf(1) };
const next: KeySet = { name: 'vouch.local/t', keys: keysOf(3) };

function fold(bodies: EntryBody[]) {
  const f = new KeyHistoryFold(genesis);
  bodies.forEach((b, i) => f.visit(decodeEntry(encodeEntry('vouch.local/t', 4 + i, new Uint8Array(32), b))));
  return { history: f.history(), problems: f.problems };
}
const T = '2026-01-01T00:00:00Z';

describe('key entries recording who (by)', () => {
  it('fold to the same history with and without by', () => {
    const plain = fold([rotateEntryBody(T, genesis, next), revokeEntryBody(T, genesis.keys[0], 2)]);
    const withBy = fold([rotateEntryBody(T, genesis, next, 'ops'), revokeEntryBody(T, genesis.keys[0], 2, 'cli:alice')]);
    expect(plain.problems).toEqual([]);
    expect(withBy.problems).toEqual([]);
    expect(withBy.history).toEqual(plain.history);
    expect(rotateEntryBody(T, genesis, next)).not.toHaveProperty('by');
  });

  it('a by that is not a non-empty string is a finding', () => {
    for (const by of [5, '', null, ['ops']]) {
      const r = fold([{ ...rotateEntryBody(T, genesis, next), by } as EntryBody]);
      expect(r.problems.map((p) => p.message), JSON.stringify(by)).toEqual([expect.stringMatching(/by must be a non-empty string/)]);
    }
  });
});

describe('key entries mixing up ML-DSA-44 and ML-DSA-65 (whoever edits rows, without the keys)', () => {
  const k44 = createMldsa44Signer(new Uint8Array(32).fill(7));
  const k65 = createMldsaSigner(new Uint8Array(32).fill(8));
  const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
  const rotateTo = (keys: { alg: string; publicKey: string }[]) => ({ ...rotateEntryBody(T, genesis, next), keys }) as EntryBody;

  it('an ML-DSA-44 key labelled ML-DSA-65 (or the reverse) is a finding, never a key of the history', () => {
    for (const keys of [
      [{ alg: 'ML-DSA-65', publicKey: b64(k44.publicKey) }],
      [{ alg: 'ML-DSA-65', publicKey: b64(k65.publicKey) }, { alg: 'ML-DSA-44', publicKey: b64(k65.publicKey) }],
    ]) {
      const r = fold([rotateTo(keys)]);
      expect(r.problems.map((p) => p.message), JSON.stringify(keys.map((k) => k.alg))).toEqual([expect.stringMatching(/ML-DSA-(44|65) key of (1312|1952) bytes/)]);
      expect(r.history.current).toEqual(genesis); // the rotation did not happen
    }
  });

  it('a set whose only post-quantum key is ML-DSA-44 is a finding: every set keeps an ML-DSA-65 key', () => {
    const r = fold([rotateTo([{ alg: 'ML-DSA-44', publicKey: b64(k44.publicKey) }, { alg: 'Ed25519', publicKey: b64(next.keys[1].publicKey) }])]);
    expect(r.problems.map((p) => p.message)).toEqual([expect.stringMatching(/needs an ML-DSA-65 key/)]);
    expect(r.history.current).toEqual(genesis);
  });

  it('revoking the ML-DSA-44 key under the ML-DSA-65 label names no key of the history', () => {
    const withK44: KeySet = { name: 'vouch.local/t', keys: [...next.keys, { alg: 'ML-DSA-44', publicKey: k44.publicKey }] };
    const r = fold([rotateEntryBody(T, genesis, withK44), { ...revokeEntryBody(T, { alg: 'ML-DSA-44', publicKey: k44.publicKey }, 2), key: { alg: 'ML-DSA-65', publicKey: b64(k44.publicKey) } } as EntryBody]);
    expect(r.problems.map((p) => p.message)).toEqual([expect.stringMatching(/ML-DSA-65 key of 1312 bytes/)]);
    expect(r.history.keys.find((k) => k.alg === 'ML-DSA-44')?.window.revokedAfter).toBeUndefined();
  });
});
