// C2SP signed-note key ids and signature type bytes (c2sp.org/signed-note, "Signatures").
// key ID = SHA-256(key name || 0x0A || signature type || public key)[:4]; the same type bytes
// prefix the public key inside a verifier key (vkey). Portable.
import { concatBytes, sha256, utf8 } from '../canonical/index.js';
import type { SignatureAlg } from './types.js';

/** Type byte 0x01: Ed25519 signatures as specified by signed-note itself. */
export const ED25519_TYPE_BYTES: Uint8Array = Uint8Array.of(0x01);

/** The identifier that follows 0xff for vouch's ML-DSA-65 note signatures. */
export const MLDSA65_TYPE_ID = 'io.vouch/ML-DSA-65';

/**
 * No signed-note type byte is assigned to ML-DSA-65 over the note text (0x06 is the timestamped
 * ML-DSA-44 cosignature of c2sp.org/tlog-cosignature, a different construction; 0xfa-0xfe are
 * reserved to C2SP). signed-note reserves 0xff "for signature types without an identifier byte
 * assigned by this specification" and RECOMMENDS that "this byte be followed by a longer
 * identifier that is unlikely to collide". vouch therefore uses
 *   0xff || ASCII "io.vouch/ML-DSA-65"   (19 bytes)
 * naming this exact construction: pure ML-DSA-65 (FIPS 204 Algorithm 2/3, not HashML-DSA),
 * empty context string, over the note text bytes, 3309-byte signature, 1952-byte public key.
 * The namespace is the one vouch already uses on the wire (`io.vouch/receipt`), so another
 * party picking the same identifier by accident is implausible.
 */
export const MLDSA65_TYPE_BYTES: Uint8Array = concatBytes(Uint8Array.of(0xff), utf8.encode(MLDSA65_TYPE_ID));

/**
 * Type byte 0x06: c2sp.org/tlog-cosignature's timestamped ML-DSA-44 signature, which
 * c2sp.org/tlog-checkpoint says logs SHOULD sign with too (under the log's origin as key name).
 */
export const MLDSA44_TYPE_BYTES: Uint8Array = Uint8Array.of(0x06);

export function typeBytesFor(alg: SignatureAlg): Uint8Array {
  return (alg === 'Ed25519' ? ED25519_TYPE_BYTES : alg === 'ML-DSA-44' ? MLDSA44_TYPE_BYTES : MLDSA65_TYPE_BYTES).slice();
}

/** The 4-byte key id (big-endian uint32 as bytes) of a note key. */
export function noteKeyId(name: string, alg: SignatureAlg, publicKey: Uint8Array): Uint8Array {
  return sha256(concatBytes(utf8.encode(name), Uint8Array.of(0x0a), typeBytesFor(alg), publicKey)).slice(0, 4);
}

/**
 * The `kid` vouch's JWKS gives a key: its note key id (hex) under the data directory's key name
 * (`vouch.local`), so a key has one kid whichever logs it signs. A log's checkpoint lines name the
 * same key under the log's origin (`vouch.local/default+<id>`), a different id by construction:
 * wherever both can be known they are shown together, each said for what it is (issue 37).
 */
export function jwksKid(keyName: string, alg: SignatureAlg, publicKey: Uint8Array): string {
  let hex = '';
  for (const b of noteKeyId(keyName, alg, publicKey)) hex += b.toString(16).padStart(2, '0');
  return hex;
}
