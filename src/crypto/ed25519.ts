// Ed25519 (RFC 8032) over @noble/curves, for the optional second signature line that today's
// signed-note tools (Go sumdb/note, litetlog) can check. Portable: no node:* imports.
import { ed25519 } from '@noble/curves/ed25519.js';
import { CryptoError } from '../errors.js';
import type { Signer, Verifier } from './types.js';

export const ED25519_SEED_BYTES = 32;
export const ED25519_PUBLIC_KEY_BYTES = 32;
export const ED25519_SIGNATURE_BYTES = 64;

export function ed25519PublicKeyFromSeed(seed: Uint8Array): Uint8Array {
  if (!(seed instanceof Uint8Array) || seed.length !== ED25519_SEED_BYTES) {
    throw new CryptoError('ERR_KEY_FORMAT', `Ed25519 seed must be ${ED25519_SEED_BYTES} bytes`);
  }
  return ed25519.getPublicKey(seed);
}

export function createEd25519Signer(seed: Uint8Array): Signer {
  const publicKey = ed25519PublicKeyFromSeed(seed);
  const secret = seed.slice();
  let closed = false;
  return {
    alg: 'Ed25519',
    publicKey,
    sign: async (message) => {
      if (closed) throw new CryptoError('ERR_SIGN_FAILED', 'signer is closed');
      try {
        return ed25519.sign(message, secret);
      } catch (cause) {
        throw new CryptoError('ERR_SIGN_FAILED', 'Ed25519 signing failed', { cause });
      }
    },
    close: async () => {
      closed = true;
      secret.fill(0);
    },
  };
}

/**
 * RFC 8032 section 5.1.7 verification in its strict form (zip215: false: canonical S and A,
 * as Go's crypto/ed25519 that the note ecosystem uses). Malformed sizes return false.
 */
export function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (
    !(publicKey instanceof Uint8Array) || publicKey.length !== ED25519_PUBLIC_KEY_BYTES ||
    !(signature instanceof Uint8Array) || signature.length !== ED25519_SIGNATURE_BYTES ||
    !(message instanceof Uint8Array)
  ) {
    return false;
  }
  try {
    return ed25519.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
}

export function createEd25519Verifier(publicKey: Uint8Array): Verifier {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== ED25519_PUBLIC_KEY_BYTES) {
    throw new CryptoError('ERR_KEY_FORMAT', `Ed25519 public key must be ${ED25519_PUBLIC_KEY_BYTES} bytes`);
  }
  const key = publicKey.slice();
  return { alg: 'Ed25519', publicKey: key, verify: (message, signature) => verifyEd25519(key, message, signature) };
}
