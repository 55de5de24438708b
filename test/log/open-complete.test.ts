// openCompleteCheckpoint (issue 35), the rule a witness opens checkpoints with, across a key
// rotation: at the handover size either key set may sign, but one set must sign in full; past it
// the outgoing keys are retired; a line by an unknown key never counts, and never spoils a note.
import { describe, expect, it } from 'vitest';
import { openCompleteCheckpoint, signCheckpoint, type NoteSigner, type NoteVerifier } from '../../src/log/index.js';
import { testKeys } from '../helpers/keys.js';

const ORIGIN = 'vouch.local/acme';
const old = testKeys(ORIGIN, 31);
const next = testKeys(ORIGIN, 41);
const stranger = testKeys(ORIGIN, 51);
// The key history of a rotation whose handover checkpoint has size 4 (key-window.ts).
const verifiers: NoteVerifier[] = [...old.verifiers.map((v) => ({ ...v, window: { from: 0, to: 4 } })), ...next.verifiers.map((v) => ({ ...v, window: { from: 4 } }))];
const note = (size: number, signers: NoteSigner[]) => signCheckpoint({ origin: ORIGIN, size, root: new Uint8Array(32).fill(size), extensions: [] }, signers);
const open = async (size: number, signers: NoteSigner[]) => openCompleteCheckpoint(await note(size, signers), verifiers);

describe('openCompleteCheckpoint across a rotation', () => {
  it('at the handover size either set signing in full is enough; a mix of half sets is not', async () => {
    expect((await open(4, old.signers)).checkpoint.size).toBe(4);
    expect((await open(4, next.signers)).checkpoint.size).toBe(4);
    await expect(open(4, [old.signers[0], next.signers[1]])).rejects.toMatchObject({ code: 'ERR_VERIFY_NOTE', message: expect.stringMatching(/no valid signature by the log's Ed25519 key/) });
  });

  it('past the handover: the incoming set in full; the outgoing keys are retired; one key of a set is not enough', async () => {
    expect((await open(7, next.signers)).checkpoint.size).toBe(7);
    await expect(open(7, old.signers)).rejects.toMatchObject({ code: 'ERR_KEY_RETIRED' });
    await expect(open(7, [next.signers[0]])).rejects.toMatchObject({ code: 'ERR_VERIFY_NOTE', message: expect.stringMatching(/Ed25519 key .* must sign/) });
    await expect(open(7, [next.signers[1]])).rejects.toMatchObject({ code: 'ERR_VERIFY_NOTE', message: expect.stringMatching(/no valid ML-DSA-65 signature/) });
  });

  it('a line by an unknown key is ignored either way', async () => {
    expect((await open(7, [...next.signers, stranger.signers[0]])).signatures.map((s) => s.alg)).toEqual(['ML-DSA-65', 'Ed25519']);
    await expect(open(7, [stranger.signers[0], next.signers[1]])).rejects.toMatchObject({ code: 'ERR_VERIFY_NOTE' });
  });
});
