// `key` entries with and without `by` (who asked, issue 35) fold to the same key history: the
// field is a record for people, never read by the fold; a `by` that is not a non-empty string is a
// finding, as a malformed field of any key entry is.
import { describe, expect, it } from 'vitest';
import { createMldsaSigner, createEd25519Signer } from '../../src/crypto/index.js';
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
