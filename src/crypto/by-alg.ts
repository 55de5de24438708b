// One switch from a SignatureAlg to its backend, so callers holding (alg, key) never branch
// on the algorithm themselves. Portable.
import { CryptoError } from '../errors.js';
import { createEd25519Signer, createEd25519Verifier, ED25519_PUBLIC_KEY_BYTES } from './ed25519.js';
import { createMldsaSigner, createMldsaVerifier, MLDSA65_PUBLIC_KEY_BYTES } from './mldsa.js';
import { createMldsa44Signer, createMldsa44Verifier, MLDSA44_PUBLIC_KEY_BYTES } from './mldsa44.js';
import type { PostQuantumAlg, SignatureAlg, Signer, Verifier } from './types.js';

export const SIGNATURE_ALGS: readonly SignatureAlg[] = ['ML-DSA-65', 'Ed25519', 'ML-DSA-44'];

export function isSignatureAlg(x: unknown): x is SignatureAlg {
  return x === 'ML-DSA-65' || x === 'Ed25519' || x === 'ML-DSA-44';
}

export function isPostQuantumAlg(x: unknown): x is PostQuantumAlg {
  return x === 'ML-DSA-65' || x === 'ML-DSA-44';
}

export function publicKeyLength(alg: SignatureAlg): number {
  return alg === 'Ed25519' ? ED25519_PUBLIC_KEY_BYTES : alg === 'ML-DSA-44' ? MLDSA44_PUBLIC_KEY_BYTES : MLDSA65_PUBLIC_KEY_BYTES;
}

/** An in-process signer; on Node prefer createSignerFromSeed (node.ts) for a worker thread. */
export function createSigner(alg: SignatureAlg, seed: Uint8Array, opts: { deterministic?: boolean } = {}): Signer {
  if (alg === 'Ed25519') return createEd25519Signer(seed);
  if (alg === 'ML-DSA-65') return createMldsaSigner(seed, opts);
  if (alg === 'ML-DSA-44') return createMldsa44Signer(seed);
  throw new CryptoError('ERR_KEY_FORMAT', `unsupported signature algorithm ${String(alg)}`);
}

export function createVerifier(alg: SignatureAlg, publicKey: Uint8Array): Verifier {
  if (alg === 'Ed25519') return createEd25519Verifier(publicKey);
  if (alg === 'ML-DSA-65') return createMldsaVerifier(publicKey);
  if (alg === 'ML-DSA-44') return createMldsa44Verifier(publicKey);
  throw new CryptoError('ERR_KEY_FORMAT', `unsupported signature algorithm ${String(alg)}`);
}
