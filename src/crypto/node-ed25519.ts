// Ed25519 signing with node:crypto (NODE-ONLY): the same deterministic RFC 8032 signatures as
// ed25519.ts (noble), about 20x faster, for the service's checkpoint co-signature.
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { CryptoError } from '../errors.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { ED25519_PUBLIC_KEY_BYTES, ED25519_SEED_BYTES } from './ed25519.js';
import type { Signer, Verifier } from './types.js';

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

/** The group order L and the field prime p, little-endian, for the strict encoding checks. */
const L = Uint8Array.from([0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10]);
const P = Uint8Array.from([0xed, ...new Array<number>(30).fill(0xff), 0x7f]);

/** a < b for 32-byte little-endian numbers; `mask` clears the top bit of a (a point's x sign). */
function lessThan(a: Uint8Array, b: Uint8Array, mask = 0xff): boolean {
  for (let i = 31; i >= 0; i--) {
    const x = i === 31 ? a[i] & mask : a[i];
    if (x !== b[i]) return x < b[i];
  }
  return false;
}

/**
 * The strict encodings ed25519.ts (noble, zip215: false) and Go's crypto/ed25519 require, checked
 * on the bytes before OpenSSL sees them: S < L, and R encodes a y below p. A's encoding (OpenSSL
 * itself accepts a key of y = p + 1) is checked once, when its key object is made. OpenSSL then
 * checks the cofactorless equation, as Go does; noble checks the cofactored one. The two agree except on a key with a small-order component and a
 * signature its holder crafted to differ; a key of small order (which would verify any message
 * under S = 0) is refused when the verifier is made (publicKeyObject). Held equal to noble on
 * valid, tampered and crafted input by test/crypto/node-ed25519.test.ts.
 */
function strictEncodings(signature: Uint8Array): boolean {
  return lessThan(signature.subarray(32), L) && lessThan(signature.subarray(0, 32), P, 0x7f);
}

function publicKeyObject(publicKey: Uint8Array): KeyObject | undefined {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32 || !lessThan(publicKey, P, 0x7f)) return undefined;
  try {
    // A point of order 1, 2, 4 or 8 (three doublings of the decoded point: about a millisecond cold).
    if (ed25519.Point.fromBytes(publicKey, false).isSmallOrder()) return undefined;
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') }, format: 'jwk' });
  } catch {
    return undefined;
  }
}

function verifyWith(key: KeyObject | undefined, message: Uint8Array, signature: Uint8Array): boolean {
  if (!key || !(signature instanceof Uint8Array) || signature.length !== 64 || !(message instanceof Uint8Array)) return false;
  if (!strictEncodings(signature)) return false; // the key's encoding was checked with its key object
  try {
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}

/**
 * RFC 8032 verification by node:crypto (OpenSSL), no JIT warm-up, with the strict encoding rule of
 * ed25519.ts. Used where start-up time counts: the log writer thread's self-test and open check
 * (store/log-thread-host.ts), the service's own open check of each tenant log (store/data-dir-keys.ts)
 * and the validation-skip evidence (http/validated-policy-sets.ts).
 * Every verdict an outside party reads (receipts, bundles, `vouch log verify`, the console) uses
 * ed25519.ts.
 */
export function nodeVerifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  return verifyWith(publicKeyObject(publicKey), message, signature);
}

/** A Verifier over nodeVerifyEd25519, its key object made once. */
export function createNodeEd25519Verifier(publicKey: Uint8Array): Verifier {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== ED25519_PUBLIC_KEY_BYTES) {
    throw new CryptoError('ERR_KEY_FORMAT', `Ed25519 public key must be ${ED25519_PUBLIC_KEY_BYTES} bytes`);
  }
  const key = publicKey.slice();
  const object = publicKeyObject(key);
  return { alg: 'Ed25519', publicKey: key, verify: (message, signature) => verifyWith(object, message, signature) };
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
