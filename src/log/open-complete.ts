// The note rule for a party that holds a log's whole key set and vouches for its checkpoints to
// others (a witness, issue 35): the one rule every verifier applies (verifyNote: ML-DSA-65 required
// unless classicalOk, key windows), and then every key type of a key set in force at the size must
// have signed. Lines by unknown keys are ignored (signed-note, tlog-witness). Portable.
import { toHex } from '../canonical/index.js';
import type { SignatureAlg } from '../crypto/index.js';
import { VerificationError } from '../errors.js';
import { openSignedCheckpoint, type OpenedCheckpoint } from './checkpoint.js';
import { keySetsAt } from './key-window.js';
import { parseNote, type NoteVerifier, type OpenNoteOptions } from './note.js';

const label = (name: string, keyId: Uint8Array | string) => `${name}+${typeof keyId === 'string' ? keyId : toHex(keyId)}`;

/**
 * Opens `note` as a checkpoint that the log signed with every key type it is configured with at
 * that size. A signature by the Ed25519 key alone (a forger who holds only that key) fails the
 * ML-DSA-65 rule; one by the ML-DSA-65 key alone fails when the Ed25519 key is configured too
 * (the log signs with both: a missing line is an altered note). A known key's line that appears
 * twice is refused, as Go's note.Open does: a log signs once per key.
 */
export function openCompleteCheckpoint(note: string, verifiers: NoteVerifier[], opts: Pick<OpenNoteOptions, 'classicalOk'> = {}): OpenedCheckpoint {
  const opened = openSignedCheckpoint(note, verifiers, { classicalOk: opts.classicalOk });
  const known = new Set(verifiers.map((v) => label(v.name, v.keyId)));
  const seen = new Set<string>();
  for (const s of parseNote(note).signatures) {
    const l = label(s.name, s.keyId);
    if (!known.has(l)) continue;
    if (seen.has(l)) throw new VerificationError('ERR_VERIFY_NOTE', `signature line by ${l} appears twice: a log signs a checkpoint once per key`);
    seen.add(l);
  }
  const size = opened.checkpoint.size;
  const verified = new Set(opened.signatures.map((s) => label(s.name, s.keyId)));
  const sets = keySetsAt(verifiers, size);
  if (sets.length === 0) throw new VerificationError('ERR_VERIFY_NOTE', `no key of this log signs size ${size}`);
  // At a handover size either the outgoing or the incoming set may sign: one complete set is enough.
  const missing = sets.map((set) => {
    const algs = [...new Set(set.map((v) => v.alg))];
    return algs.filter((alg) => !set.some((v) => v.alg === alg && verified.has(label(v.name, v.keyId)))).map((alg) => ({ alg, keys: set.filter((v) => v.alg === alg).map((v) => label(v.name, v.keyId)) }));
  });
  if (missing.some((m) => m.length === 0)) return opened;
  const want = missing[0];
  throw new VerificationError(
    'ERR_VERIFY_NOTE',
    `checkpoint of size ${size} has no valid signature by the log's ${want.map((m) => `${m.alg} key ${m.keys.join(' or ')}`).join(' and ')}: ` +
      `every key type the log is configured with (${[...new Set(sets[0].map((v) => v.alg))].join(', ')}) must sign`,
  );
}

/** The key types of a log's verifiers, per key set: used to refuse a classical-only configuration up front. */
export function keyTypesOf(verifiers: NoteVerifier[]): SignatureAlg[][] {
  const plain = verifiers.filter((v) => !v.window);
  const groups = new Map<number, NoteVerifier[]>();
  for (const v of verifiers) if (v.window) groups.set(v.window.from, [...(groups.get(v.window.from) ?? []), v]);
  return [...groups.values(), ...(plain.length ? [plain] : [])].map((set) => [...new Set(set.map((v) => v.alg))]);
}
