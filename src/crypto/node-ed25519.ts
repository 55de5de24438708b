// Ed25519 signing with node:crypto (NODE-ONLY): the same deterministic RFC 8032 signatures as
// ed25519.ts (noble), about 20x faster, for the service's checkpoint co-signature.
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { CryptoError } from '../errors.js';
import { ED25519_SEED_BYTES } from './ed25519.js';
import type { Signer } from './types.js';

/** PKCS#8 prefix of an Ed25519 private key (RFC 8410): the 32-byte seed follows. */
const PKCS8_PREFIX = Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]);

function privateKeyOf(seed: Uint8Array): KeyObject {
  if (!(seed instanceof Uint8Array) || seed.length !== ED25519_SEED_BYTES) throw new CryptoError('ERR_KEY_FORMAT', `Ed25519 seed must be ${ED25519_SEED_BYTES} bytes`);
  const der = new Uint8Array(PKCS8_PREFIX.length + ED25519_SEED_BYTES);
  der.set(PKCS8_PREFIX);
  der.set(seed, PKCS8_PREFIX.length);
  try {
    return createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' });
  } finally {
    der.fill(0);
  }
}

function publicKeyOf(key: KeyObject): Uint8Array {
  // The raw 32-byte key is the JWK's x (RFC 8037).
  return new Uint8Array(Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x as string, 'base64url'));
}

/**
 * The RFC 8032 public key of a seed, by node:crypto: the same bytes as ed25519.ts's (noble), in
 * microseconds where noble's first call builds its tables (tens of milliseconds at start-up).
 */
export function nodeEd25519PublicKeyFromSeed(seed: Uint8Array): Uint8Array {
  return publicKeyOf(privateKeyOf(seed));
}

/**
 * RFC 8032 verification by node:crypto (OpenSSL), no JIT warm-up. Not the notes' verifier (that is
 * ed25519.ts, strict, the same in every runtime): start-up uses it only to decide whether a log's
 * record is evidence enough to skip re-validating a policy (http/node-server.ts).
 */
export function nodeVerifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  try {
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') }, format: 'jwk' });
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}

export function createNodeEd25519Signer(seed: Uint8Array): Signer {
  let key: KeyObject | undefined = privateKeyOf(seed); // checks the seed's size
  const publicKey = publicKeyOf(key);
  return {
    alg: 'Ed25519',
    publicKey,
    sign: async (message) => {
      if (!key) throw new CryptoError('ERR_SIGN_FAILED', 'signer is closed');
      try {
        return new Uint8Array(sign(null, message, key));
      } catch (cause) {
        throw new CryptoError('ERR_SIGN_FAILED', 'Ed25519 signing failed', { cause });
      }
    },
    close: async () => {
      key = undefined;
    },
  };
}
