// The time of a log key (issue 18): the tree sizes it signs, from its start to the handover
// checkpoint of the rotation that retired it, and the size after which it was revoked. A note
// whose signature verifies under a key outside its time fails with its own code (key-revoked,
// key-retired), never as a bad signature. Portable.
import { VerificationError } from '../errors.js';
import type { NoteVerifier, VerifiedSignature } from './note.js';

export interface KeyWindow {
  /** First tree size the key signs. */
  from: number;
  /** Last tree size it signed (the handover checkpoint of the rotation that retired it); open while current. */
  to?: number;
  /** Checkpoints it signed of a size above this are refused (`vouch keys revoke KEYID --after SIZE`). */
  revokedAfter?: number;
}

const label = (s: VerifiedSignature) => `${s.name}+${s.keyId} (${s.alg})`;

/** Throws ERR_KEY_REVOKED / ERR_KEY_RETIRED when a verified signature's key was not in force at `size`. */
export function checkKeyWindows(signatures: VerifiedSignature[], size: number): void {
  for (const s of signatures) {
    const w = s.window;
    if (!w) continue;
    if (w.revokedAfter !== undefined && size > w.revokedAfter) {
      throw new VerificationError('ERR_KEY_REVOKED', `key-revoked: checkpoint of size ${size} is signed by ${label(s)}, which was revoked for every checkpoint after size ${w.revokedAfter}`);
    }
    if (size < w.from || (w.to !== undefined && size > w.to)) {
      throw new VerificationError('ERR_KEY_RETIRED', `key-retired: checkpoint of size ${size} is signed by ${label(s)}, which signs only sizes ${w.from}..${w.to ?? ''} (rotated out)`);
    }
  }
}

/**
 * The log's key sets in force at `size` (a log's own strict checks: every key of the set signs).
 * Keys without a window form one set; keys with windows are grouped by the size they start at,
 * so at a handover size both the outgoing and the incoming set are offered (either may sign it).
 */
export function keySetsAt(verifiers: NoteVerifier[], size: number): NoteVerifier[][] {
  const plain = verifiers.filter((v) => !v.window);
  const groups = new Map<number, NoteVerifier[]>();
  for (const v of verifiers) {
    const w = v.window;
    if (!w || size < w.from || (w.to !== undefined && size > w.to)) continue;
    groups.set(w.from, [...(groups.get(w.from) ?? []), v]);
  }
  const sets = [...groups.entries()].sort((a, b) => a[0] - b[0]).map(([, g]) => g);
  if (plain.length) sets.push(plain);
  return sets;
}
