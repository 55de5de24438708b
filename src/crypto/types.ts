// The signing contract every backend meets (noble in a worker thread, node:crypto where
// Node has ML-DSA, a Worker secret on Cloudflare). The log core only sees these interfaces.

/** The log's keys: ML-DSA-65 (always), Ed25519 and ML-DSA-44 (tlog-cosignature 0x06, timestamped). */
export type SignatureAlg = 'ML-DSA-65' | 'Ed25519' | 'ML-DSA-44';
/** The post-quantum ones: a note needs a verified signature by one of them. */
export type PostQuantumAlg = 'ML-DSA-65' | 'ML-DSA-44';

/** Signs raw bytes. Async so a backend may run off the event loop (worker thread). */
export interface Signer {
  readonly alg: SignatureAlg;
  readonly publicKey: Uint8Array;
  /** Signs with the empty context (ML-DSA): checkpoints and every signed note. */
  sign(message: Uint8Array): Promise<Uint8Array>;
  /**
   * ML-DSA-65 under a FIPS 204 context string (1-255 bytes): what the key signs besides notes,
   * one context per use (context.ts). Absent where the backend has no context (Ed25519).
   */
  signWithContext?(message: Uint8Array, context: Uint8Array): Promise<Uint8Array>;
  /** Release threads or handles; idempotent. */
  close?(): Promise<void>;
  /**
   * A signer whose work starts in the background (a signing thread given its public key):
   * resolves once it can sign, rejects with the reason when it never will.
   */
  readonly ready?: Promise<void>;
}

/** Checks raw signatures. A bad signature returns false; only misuse throws. */
export interface Verifier {
  readonly alg: SignatureAlg;
  readonly publicKey: Uint8Array;
  verify(message: Uint8Array, signature: Uint8Array): boolean;
}
