// NODE-ONLY. ML-DSA-65 over node:crypto (OpenSSL 3.5, Node >= 24.7) from the same 32-byte seed as
// the noble backend: the seed goes in as a PKCS#8 "seed" private key, raw keys as SPKI.
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { CryptoError } from '../errors.js';
import { createMldsaSigner, MLDSA65_PUBLIC_KEY_BYTES, MLDSA65_SEED_BYTES, MLDSA65_SIGNATURE_BYTES } from './mldsa.js';
import type { Signer, Verifier } from './types.js';

// id-ml-dsa-65 = 2.16.840.1.101.3.4.3.18 (FIPS 204 / RFC 9881 AlgorithmIdentifier, no parameters).
const ALG_ID = [0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x12];
// OneAsymmetricKey { version 0, algId, OCTET STRING { seed [0] IMPLICIT OCTET STRING (32) } }
const PKCS8_SEED_PREFIX = Uint8Array.from([0x30, 0x34, 0x02, 0x01, 0x00, ...ALG_ID, 0x04, 0x22, 0x80, 0x20]);
// SubjectPublicKeyInfo { algId, BIT STRING (0 unused bits) { 1952-byte key } }
const SPKI_PREFIX = Uint8Array.from([0x30, 0x82, 0x07, 0xb2, ...ALG_ID, 0x03, 0x82, 0x07, 0xa1, 0x00]);

let available: boolean | undefined;

/** Whether this Node's crypto has ML-DSA-65 (feature test once: key generation succeeds). */
export function nativeMldsaAvailable(): boolean {
  if (available === undefined) {
    try {
      generateKeyPairSync('ml-dsa-65' as never);
      available = true;
    } catch {
      available = false;
    }
  }
  return available;
}

function requireNative(): void {
  if (!nativeMldsaAvailable()) throw new CryptoError('ERR_KEY_FORMAT', `node:crypto has no ML-DSA-65 on Node ${process.versions.node} (needs >= 24.7)`);
}

function concat(a: Uint8Array, b: Uint8Array): Buffer {
  return Buffer.concat([a, b]);
}

/** The native private key and raw public key for a 32-byte seed (FIPS 204 KeyGen_internal). */
export function nativeMldsaKeyFromSeed(seed: Uint8Array): { privateKey: KeyObject; publicKey: Uint8Array } {
  requireNative();
  if (!(seed instanceof Uint8Array) || seed.length !== MLDSA65_SEED_BYTES) throw new CryptoError('ERR_KEY_FORMAT', `ML-DSA-65 seed must be ${MLDSA65_SEED_BYTES} bytes`);
  const privateKey = createPrivateKey({ key: concat(PKCS8_SEED_PREFIX, seed), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return { privateKey, publicKey: new Uint8Array(spki.subarray(spki.length - MLDSA65_PUBLIC_KEY_BYTES)) };
}

let contexts: boolean | undefined;

/**
 * Whether node:crypto signs under a FIPS 204 context (`{key, context}`: Node 24.8 on). Tested once
 * by outcome, not by version: where the option is ignored, a context signature would be an
 * empty-context one, so the test asks that it not verify without its context.
 */
export function nativeMldsaContextAvailable(): boolean {
  if (contexts === undefined) {
    try {
      const k = generateKeyPairSync('ml-dsa-65' as never) as unknown as { privateKey: KeyObject; publicKey: KeyObject };
      const m = Buffer.from('vouch: context probe');
      const context = Buffer.from('vouch/probe');
      const sig = sign(null, m, { key: k.privateKey, context } as never);
      contexts = verify(null, m, { key: k.publicKey, context } as never, sig) && !verify(null, m, k.publicKey, sig);
    } catch {
      contexts = false;
    }
  }
  return contexts;
}

/**
 * A Signer on node:crypto (pure ML-DSA, hedged as OpenSSL does by default). Notes sign with the
 * empty context; a context signature (rare: an invoke result) goes through node:crypto where it
 * takes contexts, else through noble in process with the same seed (same key, same verdicts).
 */
export function createNativeMldsaSigner(seed: Uint8Array): Signer {
  const { privateKey, publicKey } = nativeMldsaKeyFromSeed(seed);
  const seedCopy = seed.slice();
  let noble: Signer | undefined;
  return {
    alg: 'ML-DSA-65',
    publicKey,
    sign: async (message) => {
      try {
        return new Uint8Array(sign(null, message, privateKey));
      } catch (cause) {
        throw new CryptoError('ERR_SIGN_FAILED', 'native ML-DSA-65 signing failed', { cause });
      }
    },
    signWithContext: async (message, context) => {
      if (!nativeMldsaContextAvailable()) return (noble ??= createMldsaSigner(seedCopy)).signWithContext!(message, context);
      try {
        return new Uint8Array(sign(null, message, { key: privateKey, context } as never));
      } catch (cause) {
        throw new CryptoError('ERR_SIGN_FAILED', 'native ML-DSA-65 signing failed', { cause });
      }
    },
  };
}

/** A Verifier on node:crypto; total like the noble one: malformed input is "not valid". */
export function createNativeMldsaVerifier(publicKey: Uint8Array): Verifier {
  requireNative();
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== MLDSA65_PUBLIC_KEY_BYTES) throw new CryptoError('ERR_KEY_FORMAT', `ML-DSA-65 public key must be ${MLDSA65_PUBLIC_KEY_BYTES} bytes`);
  const key = createPublicKey({ key: concat(SPKI_PREFIX, publicKey), format: 'der', type: 'spki' });
  return {
    alg: 'ML-DSA-65',
    publicKey,
    verify: (message, signature) => {
      if (!(signature instanceof Uint8Array) || signature.length !== MLDSA65_SIGNATURE_BYTES) return false;
      try {
        return verify(null, message, key, signature);
      } catch {
        return false;
      }
    },
  };
}

/** Verify with a raw public key that may itself be malformed (Wycheproof): never throws. */
export function verifyNativeMldsa(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    return createNativeMldsaVerifier(publicKey).verify(message, signature);
  } catch {
    return false;
  }
}
