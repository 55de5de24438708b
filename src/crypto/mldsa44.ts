// ML-DSA-44 (FIPS 204) over @noble/post-quantum: the post-quantum algorithm c2sp.org/tlog-checkpoint
// asks logs to sign with (tlog-cosignature type 0x06). Raw pure ML-DSA, empty context; the signed
// message (a timestamped cosigned_message) is built by log/cosigned-message.ts. Portable.
import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';
import { bytesEqual } from '../canonical/index.js';
import { CryptoError } from '../errors.js';
import type { Signer, Verifier } from './types.js';

/** FIPS 204 Table 2 sizes for ML-DSA-44. */
export const MLDSA44_SEED_BYTES = 32;
export const MLDSA44_PUBLIC_KEY_BYTES = 1312;
export const MLDSA44_SIGNATURE_BYTES = 2420;

/** ML-DSA.KeyGen_internal (FIPS 204 Algorithm 6) from the 32-byte seed xi. */
export function mldsa44KeyFromSeed(seed: Uint8Array): { publicKey: Uint8Array; secretKey: Uint8Array } {
  if (!(seed instanceof Uint8Array) || seed.length !== MLDSA44_SEED_BYTES) {
    throw new CryptoError('ERR_KEY_FORMAT', `ML-DSA-44 seed must be ${MLDSA44_SEED_BYTES} bytes`);
  }
  return ml_dsa44.keygen(seed);
}

/** ML-DSA.Verify (FIPS 204 Algorithm 3), empty context. Total: malformed input is "not valid". */
export function verifyMldsa44(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (
    !(publicKey instanceof Uint8Array) || publicKey.length !== MLDSA44_PUBLIC_KEY_BYTES ||
    !(signature instanceof Uint8Array) || signature.length !== MLDSA44_SIGNATURE_BYTES ||
    !(message instanceof Uint8Array)
  ) {
    return false;
  }
  try {
    return ml_dsa44.verify(signature, message, publicKey);
  } catch {
    return false;
  }
}

/** A hedged ML-DSA-44 signer (FIPS 204 Algorithm 2, fresh rnd) holding the expanded key in memory. */
export function createMldsa44Signer(seed: Uint8Array): Signer {
  const { publicKey, secretKey } = mldsa44KeyFromSeed(seed);
  let closed = false;
  return {
    alg: 'ML-DSA-44',
    publicKey,
    sign: async (message) => {
      if (closed) throw new CryptoError('ERR_SIGN_FAILED', 'signer is closed');
      try {
        return ml_dsa44.sign(message, secretKey);
      } catch (cause) {
        throw new CryptoError('ERR_SIGN_FAILED', 'ML-DSA-44 signing failed', { cause });
      }
    },
    close: async () => {
      closed = true;
      secretKey.fill(0);
    },
  };
}

/**
 * An ML-DSA-44 signer whose key is expanded at its first signature, for a holder that signs seldom
 * (the service's main thread: its log thread signs the checkpoints): start-up does not derive a key
 * it may never use (about 55 ms cold). `publicKey` is the key's, known already; a seed that derives
 * another fails every signature (ERR_KEY_FORMAT), never signs under the wrong key.
 */
export function createLazyMldsa44Signer(seed: Uint8Array, publicKey: Uint8Array): Signer {
  if (!(seed instanceof Uint8Array) || seed.length !== MLDSA44_SEED_BYTES) {
    throw new CryptoError('ERR_KEY_FORMAT', `ML-DSA-44 seed must be ${MLDSA44_SEED_BYTES} bytes`);
  }
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== MLDSA44_PUBLIC_KEY_BYTES) {
    throw new CryptoError('ERR_KEY_FORMAT', `ML-DSA-44 public key must be ${MLDSA44_PUBLIC_KEY_BYTES} bytes`);
  }
  const own = seed.slice();
  const key = publicKey.slice();
  let inner: Signer | undefined;
  let wrongKey = false;
  let closed = false;
  const signer = (): Signer => {
    if (closed) throw new CryptoError('ERR_SIGN_FAILED', 'signer is closed');
    if (!inner && !wrongKey) {
      const made = createMldsa44Signer(own);
      own.fill(0);
      if (bytesEqual(made.publicKey, key)) inner = made;
      else (wrongKey = true), void made.close?.();
    }
    if (!inner) throw new CryptoError('ERR_KEY_FORMAT', 'the ML-DSA-44 seed derives another public key than the one given');
    return inner;
  };
  return {
    alg: 'ML-DSA-44',
    publicKey: key,
    sign: async (message) => signer().sign(message),
    close: async () => {
      closed = true;
      own.fill(0);
      await inner?.close?.();
    },
  };
}

export function createMldsa44Verifier(publicKey: Uint8Array): Verifier {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== MLDSA44_PUBLIC_KEY_BYTES) {
    throw new CryptoError('ERR_KEY_FORMAT', `ML-DSA-44 public key must be ${MLDSA44_PUBLIC_KEY_BYTES} bytes`);
  }
  const key = publicKey.slice();
  return { alg: 'ML-DSA-44', publicKey: key, verify: (message, signature) => verifyMldsa44(key, message, signature) };
}
