// Verifier keys (signed-note vkeys, as Go's sumdb/note writes them):
//   <name>+<8 hex digits of key id>+<base64(type bytes || public key)>
// Type bytes are 0x01 for Ed25519, 0x06 for ML-DSA-44 (tlog-cosignature, timestamped) and
// MLDSA65_TYPE_BYTES (0xff || "io.vouch/ML-DSA-65"). Portable.
import { bytesEqual, concatBytes, fromBase64, toBase64, toHex } from '../canonical/index.js';
import {
  createVerifier, ED25519_TYPE_BYTES, MLDSA44_TYPE_BYTES, MLDSA65_TYPE_BYTES, noteKeyId, publicKeyLength, typeBytesFor, type SignatureAlg,
} from '../crypto/index.js';
import { InputError } from '../errors.js';
import { isValidKeyName, noteVerifierFor, type NoteVerifier } from './note.js';

function bad(message: string): never {
  throw new InputError('ERR_KEY_FORMAT', `invalid verifier key: ${message}`);
}

export function formatVkey(name: string, alg: SignatureAlg, publicKey: Uint8Array): string {
  if (!isValidKeyName(name)) bad('key name must be non-empty, without spaces or "+"');
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== publicKeyLength(alg)) bad(`${alg} public key must be ${publicKeyLength(alg)} bytes`);
  return `${name}+${toHex(noteKeyId(name, alg, publicKey))}+${toBase64(concatBytes(typeBytesFor(alg), publicKey))}`;
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  return bytes.length >= prefix.length && bytesEqual(bytes.subarray(0, prefix.length), prefix);
}

/**
 * The three fields of one vkey line, the name and key id checked for form (not the id against the
 * key: that needs the key's type). `bad` throws the caller's own coded error. Shared with the
 * cosigner vkeys of witness/vkey.ts.
 */
export function splitVkey(line: string, bad: (message: string) => never): { name: string; idHex: string; key: Uint8Array } {
  // Names hold no "+", so the first two "+" delimit the fields; base64 may contain "+" itself.
  const p1 = line.indexOf('+');
  const p2 = p1 < 0 ? -1 : line.indexOf('+', p1 + 1);
  if (p2 < 0) bad('expected <name>+<key id hex>+<base64 key>');
  const name = line.slice(0, p1);
  const idHex = line.slice(p1 + 1, p2);
  if (!isValidKeyName(name)) bad('key name must be non-empty, without spaces or "+"');
  if (!/^[0-9a-f]{8}$/.test(idHex)) bad('key id must be 8 lowercase hex digits');
  try {
    return { name, idHex, key: fromBase64(line.slice(p2 + 1)) };
  } catch {
    return bad('key must be standard padded base64');
  }
}

/** Parses a vkey (one trailing newline tolerated, as in a vkey file) and checks its key id. */
export function parseVkey(text: string): NoteVerifier {
  if (typeof text !== 'string' || text.length > 8192) bad('must be a string of at most 8192 characters');
  const line = text.endsWith('\n') ? text.slice(0, -1) : text;
  const { name, idHex, key } = splitVkey(line, bad);
  let alg: SignatureAlg;
  let publicKey: Uint8Array;
  if (startsWith(key, ED25519_TYPE_BYTES)) {
    alg = 'Ed25519';
    publicKey = key.slice(ED25519_TYPE_BYTES.length);
  } else if (startsWith(key, MLDSA44_TYPE_BYTES)) {
    alg = 'ML-DSA-44';
    publicKey = key.slice(MLDSA44_TYPE_BYTES.length);
  } else if (startsWith(key, MLDSA65_TYPE_BYTES)) {
    alg = 'ML-DSA-65';
    publicKey = key.slice(MLDSA65_TYPE_BYTES.length);
  } else {
    return bad(`unsupported signature type 0x${toHex(key.subarray(0, 1))}`);
  }
  if (publicKey.length !== publicKeyLength(alg)) bad(`${alg} public key must be ${publicKeyLength(alg)} bytes, got ${publicKey.length}`);
  const keyId = noteKeyId(name, alg, publicKey);
  if (toHex(keyId) !== idHex) bad(`key id ${idHex} does not match the key (expected ${toHex(keyId)})`);
  return noteVerifierFor(name, createVerifier(alg, publicKey));
}
