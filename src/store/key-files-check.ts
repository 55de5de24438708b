// Do the key files in keys/ belong to this data directory's logs? Two operator mistakes would
// otherwise read as tampering (issue 37): a key file missing (and a new one made in its place), and
// a log or key files copied from another instance. Pure: callers pass the note and the keys.
import { toHex } from '../canonical/index.js';
import { ED25519_SIGNATURE_BYTES, MLDSA44_SIGNATURE_BYTES, MLDSA65_SIGNATURE_BYTES, noteKeyId, type SignatureAlg } from '../crypto/index.js';
import { StoreError } from '../errors.js';
import { parseNote, type PublicKey } from '../log/index.js';

/** The key file of each algorithm, relative to the data directory. */
export const KEY_FILES: Record<SignatureAlg, string> = { 'ML-DSA-65': 'keys/mldsa65.key', Ed25519: 'keys/ed25519.key', 'ML-DSA-44': 'keys/mldsa44.key' };

export const RESTORE_ADVICE = "restore it from your backup of the data directory's keys/ (the file as it was, mode 0600); vouch never makes a new key for a log that has one";

export interface NoteSignerLine {
  /** `name+keyid` (hex), as the note's signature line names it. */
  label: string;
  name: string;
  alg: SignatureAlg;
}

/**
 * The log's own signature lines of a note (witness cosignatures, of other lengths, left out). A
 * timestamped ML-DSA-44 line (8 + 2420 bytes) is the log's when it is under the log's origin:
 * a witness signs ML-DSA-44 under its own name.
 */
export function logSignersOf(note: string, origin?: string): NoteSignerLine[] {
  try {
    return parseNote(note).signatures.flatMap((s) => {
      const len = s.signature.length;
      const alg: SignatureAlg | undefined = len === MLDSA65_SIGNATURE_BYTES ? 'ML-DSA-65' : len === ED25519_SIGNATURE_BYTES ? 'Ed25519' : len === 8 + MLDSA44_SIGNATURE_BYTES && (origin === undefined || s.name === origin) ? 'ML-DSA-44' : undefined;
      return alg ? [{ label: `${s.name}+${toHex(s.keyId)}`, name: s.name, alg }] : [];
    });
  } catch {
    return [];
  }
}

/**
 * Why a log's newest checkpoint does not open with the key files, when the reason is the files:
 * a line by a key whose file is missing (ERR_KEY_MISSING), or lines by keys none of the files is
 * (ERR_KEY_MISMATCH). Undefined when the files' keys did sign it: a line by another key beside
 * theirs was added to the note, which is the caller's "altered" finding, not a wrong directory.
 */
export function explainKeyFiles(note: string, files: PublicKey[], origin: string): StoreError | undefined {
  const lines = logSignersOf(note, origin);
  const fileLabel = (alg: SignatureAlg, name: string) => {
    const f = files.find((k) => k.alg === alg);
    return f && `${name}+${toHex(noteKeyId(name, alg, f.publicKey))}`;
  };
  const foreign = lines.filter((l) => fileLabel(l.alg, l.name) !== l.label);
  if (foreign.length === 0) return undefined;
  // A foreign line beside one the file made, of the same algorithm: the note was changed.
  if (foreign.some((l) => lines.some((o) => o !== l && o.alg === l.alg && !foreign.includes(o)))) return undefined;
  const missing = foreign.find((l) => !files.some((k) => k.alg === l.alg));
  if (missing) {
    return new StoreError('ERR_KEY_MISSING', `${KEY_FILES[missing.alg]} is missing (log ${origin} is signed by key ${missing.label}, ${missing.alg}): ${RESTORE_ADVICE}`);
  }
  const l = foreign[0];
  return new StoreError(
    'ERR_KEY_MISMATCH',
    `the newest checkpoint of log ${origin} is signed by key ${l.label} (${l.alg}), which is not in keys/: wrong data directory or key files? (${KEY_FILES[l.alg]} is ${fileLabel(l.alg, l.name)}.) Use the data directory this log belongs to, or restore its key files from the backup (keys change only with \`vouch keys rotate\`); if both are right, the checkpoint was altered`,
  );
}
