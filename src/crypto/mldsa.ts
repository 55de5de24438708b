// ML-DSA-65 (FIPS 204) signing and verification over @noble/post-quantum, pure ML-DSA only
// (never HashML-DSA). Portable: no node:* imports; hedged signing draws randomness inside noble.
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { CryptoError } from '../errors.js';
import type { Signer, Verifier } from './types.js';

/** FIPS 204 Table 2 sizes for ML-DSA-65. */
export const MLDSA65_SEED_BYTES = 32;
export const MLDSA65_PUBLIC_KEY_BYTES = 1952;
export const MLDSA65_SECRET_KEY_BYTES = 4032;
export const MLDSA65_SIGNATURE_BYTES = 3309;
/** FIPS 204 section 5.2: the context string is at most 255 bytes. */
export const MLDSA_MAX_CONTEXT_BYTES = 255;

const EMPTY = new Uint8Array(0);

/** ML-DSA.KeyGen_internal (FIPS 204 Algorithm 6) from the 32-byte seed xi. */
export function mldsaKeyFromSeed(seed: Uint8Array): { publicKey: Uint8Array; secretKey: Uint8Array } {
  if (!(seed instanceof Uint8Array) || seed.length !== MLDSA65_SEED_BYTES) {
    throw new CryptoError('ERR_KEY_FORMAT', `ML-DSA-65 seed must be ${MLDSA65_SEED_BYTES} bytes`);
  }
  const { publicKey, secretKey } = ml_dsa65.keygen(seed);
  return { publicKey, secretKey };
}

export interface MldsaSignOptions {
  /** FIPS 204 context string, at most 255 bytes; notes are signed with the empty one (context.ts names the others). */
  context?: Uint8Array;
  /**
   * The 32-byte `rnd` of FIPS 204 Algorithm 2. Absent: fresh randomness (hedged, the default
   * FIPS 204 recommends against fault attacks). `false`: all zeros (deterministic variant).
   */
  rnd?: Uint8Array | false;
}

/** ML-DSA.Sign (FIPS 204 Algorithm 2). Throws CryptoError on a bad key or context. */
export function signMldsa(secretKey: Uint8Array, message: Uint8Array, opts: MldsaSignOptions = {}): Uint8Array {
  if (!(secretKey instanceof Uint8Array) || secretKey.length !== MLDSA65_SECRET_KEY_BYTES) {
    throw new CryptoError('ERR_KEY_FORMAT', `ML-DSA-65 secret key must be ${MLDSA65_SECRET_KEY_BYTES} bytes`);
  }
  const context = opts.context ?? EMPTY;
  if (context.length > MLDSA_MAX_CONTEXT_BYTES) {
    throw new CryptoError('ERR_SIGN_FAILED', `ML-DSA context must be at most ${MLDSA_MAX_CONTEXT_BYTES} bytes`);
  }
  try {
    return ml_dsa65.sign(message, secretKey, opts.rnd === undefined ? { context } : { context, extraEntropy: opts.rnd });
  } catch (cause) {
    throw new CryptoError('ERR_SIGN_FAILED', 'ML-DSA-65 signing failed', { cause });
  }
}

/**
 * ML-DSA.Verify (FIPS 204 Algorithm 3). Total: a wrong-length key or signature, an over-long
 * context or any other malformed input is "not valid", never an exception.
 */
export function verifyMldsa(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
  context: Uint8Array = EMPTY,
): boolean {
  if (
    !(publicKey instanceof Uint8Array) || publicKey.length !== MLDSA65_PUBLIC_KEY_BYTES ||
    !(signature instanceof Uint8Array) || signature.length !== MLDSA65_SIGNATURE_BYTES ||
    !(message instanceof Uint8Array) ||
    !(context instanceof Uint8Array) || context.length > MLDSA_MAX_CONTEXT_BYTES
  ) {
    return false;
  }
  try {
    return ml_dsa65.verify(signature, message, publicKey, { context });
  } catch {
    return false;
  }
}

/** A Signer holding the expanded key in memory. Hedged by default; `deterministic` for reproducible output. */
export function createMldsaSigner(seed: Uint8Array, opts: { deterministic?: boolean } = {}): Signer {
  const { publicKey, secretKey } = mldsaKeyFromSeed(seed);
  const rnd = opts.deterministic ? false : undefined;
  let closed = false;
  return {
    alg: 'ML-DSA-65',
    publicKey,
    sign: async (message) => {
      if (closed) throw new CryptoError('ERR_SIGN_FAILED', 'signer is closed');
      return signMldsa(secretKey, message, { rnd });
    },
    signWithContext: async (message, context) => {
      if (closed) throw new CryptoError('ERR_SIGN_FAILED', 'signer is closed');
      return signMldsa(secretKey, message, { rnd, context });
    },
    close: async () => {
      closed = true;
      secretKey.fill(0);
    },
  };
}

export function createMldsaVerifier(publicKey: Uint8Array): Verifier {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== MLDSA65_PUBLIC_KEY_BYTES) {
    throw new CryptoError('ERR_KEY_FORMAT', `ML-DSA-65 public key must be ${MLDSA65_PUBLIC_KEY_BYTES} bytes`);
  }
  const key = publicKey.slice();
  return {
    alg: 'ML-DSA-65',
    publicKey: key,
    verify: (message, signature) => verifyMldsa(key, message, signature),
  };
}
