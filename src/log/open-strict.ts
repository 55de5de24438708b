// A log's own strict note check across key rotations: the note must verify strictly (every key of
// a set signs, no unknown line) under one of the key sets in force at its size (key-window.ts).
// With keys that carry no window this is the plain strict check. Portable.
import { VerificationError } from '../errors.js';
import { openSignedCheckpoint, parseCheckpoint, type OpenedCheckpoint } from './checkpoint.js';
import { keySetsAt } from './key-window.js';
import { parseNote, type NoteVerifier } from './note.js';

/** The size a note claims (unverified): only to pick the key sets to try. */
function claimedSize(note: string): number | undefined {
  try {
    return parseCheckpoint(parseNote(note).text).size;
  } catch {
    return undefined;
  }
}

export function openStrict(note: string, verifiers: NoteVerifier[]): OpenedCheckpoint {
  if (!verifiers.some((v) => v.window)) return openSignedCheckpoint(note, verifiers, { strict: true });
  const size = claimedSize(note);
  const sets = size === undefined ? [verifiers] : keySetsAt(verifiers, size);
  if (sets.length === 0) {
    // No key was in force at that size: a retired or revoked key's note, named as such.
    const any = openSignedCheckpoint(note, verifiers, {}); // throws key-revoked / key-retired, or a signature error
    throw new VerificationError('ERR_VERIFY_NOTE', `no key of this log signs size ${any.checkpoint.size}`);
  }
  let first: unknown;
  for (const set of sets) {
    try {
      return openSignedCheckpoint(note, set, { strict: true });
    } catch (e) {
      first ??= e;
    }
  }
  // Name revocation before the strict-set failure: a note that verifies under a revoked key is key-revoked.
  try {
    openSignedCheckpoint(note, verifiers, {});
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ERR_KEY_REVOKED' || code === 'ERR_KEY_RETIRED') throw e;
  }
  throw first;
}
