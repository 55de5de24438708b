// Trusted keys for offline verification, from vkey text (C2SP) or a JWKS. A JWKS has no key
// names, so a JWKS key is bound to the names on a note's signature lines whose key id it
// reproduces: the key id hashes the name with the key, so no other name can match.
import { createVerifier, noteKeyId, parseJwks, type PublicKeyEntry } from '../crypto/index.js';
import { bytesEqual } from '../canonical/index.js';
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

/** Verifiers for one signed note: every vkey, plus each JWKS key bound to the note's matching signer names. */
export function verifiersFor(trust: { vkeys: NoteVerifier[]; jwks: PublicKeyEntry[] }, noteText: string): NoteVerifier[] {
  const out = [...trust.vkeys];
  if (trust.jwks.length === 0) return out;
  let sigs: { name: string; keyId: Uint8Array }[];
  try {
    sigs = parseNote(noteText).signatures;
  } catch {
    return out; // the note check itself will report the parse failure
  }
  for (const k of trust.jwks) {
    for (const s of sigs) {
      if (!bytesEqual(s.keyId, noteKeyId(s.name, k.alg, k.publicKey))) continue;
      out.push(noteVerifierFor(s.name, createVerifier(k.alg, k.publicKey)));
    }
  }
  return out;
}
