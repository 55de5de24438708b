// The crypto module's portable surface (browser, Workers, Node). Node-only pieces (worker-thread
// signer, key files, seed generation) are in ./node.ts so the core never pulls in node:*.
export type { PostQuantumAlg, SignatureAlg, Signer, Verifier } from './types.js';
export {
  mldsaKeyFromSeed, signMldsa, verifyMldsa, createMldsaSigner, createMldsaVerifier, type MldsaSignOptions,
  MLDSA65_SEED_BYTES, MLDSA65_PUBLIC_KEY_BYTES, MLDSA65_SECRET_KEY_BYTES, MLDSA65_SIGNATURE_BYTES, MLDSA_MAX_CONTEXT_BYTES,
} from './mldsa.js';
export { INVOKE_RESULT_CONTEXT, INVOKE_RESULT_CONTEXT_NAME, signInContext } from './context.js';
export {
  createEd25519Signer, createEd25519Verifier, verifyEd25519, ed25519PublicKeyFromSeed,
  ED25519_PUBLIC_KEY_BYTES, ED25519_SIGNATURE_BYTES,
} from './ed25519.js';
export {
  createLazyMldsa44Signer, createMldsa44Signer, createMldsa44Verifier, mldsa44KeyFromSeed, verifyMldsa44, MLDSA44_SEED_BYTES, MLDSA44_PUBLIC_KEY_BYTES, MLDSA44_SIGNATURE_BYTES,
} from './mldsa44.js';
export { SIGNATURE_ALGS, isSignatureAlg, isPostQuantumAlg, publicKeyLength, createSigner, createVerifier } from './by-alg.js';
export { jwksKid, noteKeyId, typeBytesFor, ED25519_TYPE_BYTES, MLDSA65_TYPE_BYTES, MLDSA44_TYPE_BYTES, MLDSA65_TYPE_ID } from './key-id.js';
export { formatKeyText, parseKeyText, KEY_SEED_BYTES, type KeySeed } from './key-text.js';
export {
  toJwk, toJwks, parseJwks, toBase64Url, fromBase64Url, type Jwk, type AkpJwk, type OkpJwk, type Jwks, type PublicKeyEntry, type KeyWindowJson,
} from './jwks.js';
export { cryptoSelfTest, SELF_TEST_MESSAGE, SELF_TEST_VECTORS } from './self-test.js';
