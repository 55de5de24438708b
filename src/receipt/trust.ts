// Trusted keys for offline verification, from vkey text (C2SP) or a JWKS. A JWKS has no key
// names, so a JWKS key is bound to the names on a note's signature lines: the key id hashes the
// name with the key, so a line verifies only under the key (and name) that really signed it.
import { createVerifier, parseJwks, type PublicKeyEntry } from '../crypto/index.js';
import { toHex } from '../canonical/index.js';
import { InputError } from '../errors.js';
import { noteVerifierFor, parseNote, parseVkey, type NoteVerifier } from '../log/index.js';

/** A trust file: vkey lines (one per line, # comments allowed) or a JWKS document. */
export function parseTrust(text: string): { vkeys: NoteVerifier[]; jwks: PublicKeyEntry[] } {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let doc: unknown;
    try {
      doc = JSON.parse(trimmed);
    } catch {
      throw new InputError('ERR_INPUT', 'key file looks like JSON but does not parse');
    }
    return { vkeys: [], jwks: parseJwks(doc) };
  }
  const lines = trimmed.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  if (lines.length === 0) throw new InputError('ERR_INPUT', 'key file holds no vkey and no JWKS');
  return { vkeys: lines.map((l) => parseVkey(l)), jwks: [] };
}

/**
 * Verifiers for one signed note: every vkey, plus each JWKS key bound to every key name on the
 * note's signature lines. A JWKS key bound to a name whose line it did not sign is never used to
 * accept anything; it is there so the note rule sees that an ML-DSA-65 key is trusted even when
 * the note's ML-DSA-65 line was removed. Duplicates (a key given twice) are dropped.
 */
export function verifiersFor(trust: { vkeys: NoteVerifier[]; jwks: PublicKeyEntry[] }, noteText: string): NoteVerifier[] {
  const out: NoteVerifier[] = [];
  const seen = new Set<string>();
  const add = (v: NoteVerifier) => {
    const label = `${v.name}+${toHex(v.keyId)}`;
    if (!seen.has(label)) (seen.add(label), out.push(v));
  };
  trust.vkeys.forEach(add);
  if (trust.jwks.length === 0) return out;
  let names: string[];
  try {
    names = [...new Set(parseNote(noteText).signatures.map((s) => s.name))];
  } catch {
    return out; // the note check itself will report the parse failure
  }
  for (const k of trust.jwks) {
    for (const name of names) add(noteVerifierFor(name, createVerifier(k.alg, k.publicKey)));
  }
  return out;
}
