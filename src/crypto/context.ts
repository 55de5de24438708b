// FIPS 204 context strings (section 5.2): one per use of the log's ML-DSA-65 key besides signed
// notes, which sign with the empty context (checkpoints, as C2SP signed notes do). A signature
// made under one context verifies under no other, so bytes a caller shapes (an interceptor/invoke
// result) never pass for a checkpoint, and a checkpoint never for a result (issue 35). Portable.
import { CryptoError } from '../errors.js';
import { MLDSA_MAX_CONTEXT_BYTES, verifyMldsa } from './mldsa.js';
import type { Signer } from './types.js';

/** interceptor/invoke results signed on request (`_meta["io.vouch/sign"]`): the SEP's `signature` field. */
export const INVOKE_RESULT_CONTEXT_NAME = 'vouch/interceptor-result/v1';
export const INVOKE_RESULT_CONTEXT = new TextEncoder().encode(INVOKE_RESULT_CONTEXT_NAME);

/**
 * ML-DSA-65 over `message` under `context` (never the empty one: that is the notes'). Refuses a
 * signer without contexts rather than sign without one, and checks the signature under the
 * context before it leaves: a backend that dropped the context made a note-domain signature.
 */
export async function signInContext(signer: Signer, message: Uint8Array, context: Uint8Array): Promise<Uint8Array> {
  if (!(context instanceof Uint8Array) || context.length === 0 || context.length > MLDSA_MAX_CONTEXT_BYTES) {
    throw new CryptoError('ERR_SIGN_FAILED', `a signing context is 1 to ${MLDSA_MAX_CONTEXT_BYTES} bytes (the empty one is for signed notes only)`);
  }
  if (signer.alg !== 'ML-DSA-65' || !signer.signWithContext) throw new CryptoError('ERR_SIGN_FAILED', `this ${signer.alg} signer cannot sign under a context: refusing to sign without one`);
  const signature = await signer.signWithContext(message, context);
  if (!verifyMldsa(signer.publicKey, message, signature, context)) throw new CryptoError('ERR_SIGN_FAILED', 'the ML-DSA-65 signature does not verify under its context: refusing to publish it');
  return signature;
}
