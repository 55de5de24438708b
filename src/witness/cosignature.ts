// C2SP tlog-cosignature: timestamped cosignatures over a checkpoint, Ed25519 (signature type
// 0x04) and ML-DSA-44 (type 0x06). Key ids, the exact signed messages and the signature lines,
// as the spec defines them; a bad signature is `false`, malformed input throws. Portable.
import { ed25519 } from '@noble/curves/ed25519.js';
import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';
import { concatBytes, sha256, toBase64, utf8 } from '../canonical/index.js';
import { InputError } from '../errors.js';
import { mldsa44CosignedMessage, u64 } from '../log/cosigned-message.js';

export type CosignAlg = 'Ed25519' | 'ML-DSA-44';
export const COSIGN_ALGS: readonly CosignAlg[] = ['Ed25519', 'ML-DSA-44'];

/** signed-note signature type bytes assigned by tlog-cosignature. */
export const COSIGN_TYPE: Record<CosignAlg, number> = { Ed25519: 0x04, 'ML-DSA-44': 0x06 };
export const COSIGN_PUBLIC_KEY_BYTES: Record<CosignAlg, number> = { Ed25519: 32, 'ML-DSA-44': 1312 };
export const COSIGN_SIGNATURE_BYTES: Record<CosignAlg, number> = { Ed25519: 64, 'ML-DSA-44': 2420 };

/** The public half of a cosigner: what verifiers are configured with (name, key, version). */
export interface CosignerKey {
  name: string;
  alg: CosignAlg;
  publicKey: Uint8Array;
  /** SHA-256(<name> || "\n" || type || public key)[:4] */
  keyId: Uint8Array;
}

export interface Cosigner extends CosignerKey {
  /** One note signature line (`— name base64(keyid || timestamp || sig)\n`) over a checkpoint's note text. */
  cosign(checkpointText: string, timestamp: number): string;
}

export function cosignKeyId(name: string, alg: CosignAlg, publicKey: Uint8Array): Uint8Array {
  return sha256(concatBytes(utf8.encode(name), Uint8Array.of(0x0a, COSIGN_TYPE[alg]), publicKey)).slice(0, 4);
}

/** "Ed25519 signed message": `cosignature/v1\ntime <T>\n` then the whole checkpoint note text. */
export function ed25519CosignedMessage(checkpointText: string, timestamp: number): Uint8Array {
  u64(timestamp);
  return utf8.encode(`cosignature/v1\ntime ${timestamp}\n${checkpointText}`);
}

/** "ML-DSA-44 signed message" (log/cosigned-message.ts: the same construction signs the log's own ML-DSA-44 line). */
export { mldsa44CosignedMessage };

function signedMessage(key: CosignerKey, checkpointText: string, timestamp: number): Uint8Array {
  return key.alg === 'Ed25519' ? ed25519CosignedMessage(checkpointText, timestamp) : mldsa44CosignedMessage(key.name, timestamp, checkpointText);
}

export function cosignerKeyOf(name: string, alg: CosignAlg, publicKey: Uint8Array): CosignerKey {
  if (publicKey.length !== COSIGN_PUBLIC_KEY_BYTES[alg]) throw new InputError('ERR_KEY_FORMAT', `${alg} cosigner public key must be ${COSIGN_PUBLIC_KEY_BYTES[alg]} bytes`);
  return { name, alg, publicKey: publicKey.slice(), keyId: cosignKeyId(name, alg, publicKey) };
}

/** A cosigner from a 32-byte seed (Ed25519 private key, or the ML-DSA-44 KeyGen seed xi). */
export function createCosigner(name: string, alg: CosignAlg, seed: Uint8Array): Cosigner {
  if (!(seed instanceof Uint8Array) || seed.length !== 32) throw new InputError('ERR_KEY_FORMAT', 'a cosigner seed must be 32 bytes');
  let publicKey: Uint8Array;
  let sign: (m: Uint8Array) => Uint8Array;
  if (alg === 'Ed25519') {
    const secret = seed.slice();
    publicKey = ed25519.getPublicKey(secret);
    sign = (m) => ed25519.sign(m, secret);
  } else {
    const keys = ml_dsa44.keygen(seed);
    publicKey = keys.publicKey;
    // Pure ML-DSA (FIPS 204 Algorithm 2), empty context, hedged: the spec names no context.
    sign = (m) => ml_dsa44.sign(m, keys.secretKey);
  }
  const key = cosignerKeyOf(name, alg, publicKey);
  return {
    ...key,
    cosign(checkpointText, timestamp) {
      const sig = sign(signedMessage(key, checkpointText, timestamp));
      return `\u2014 ${name} ${toBase64(concatBytes(key.keyId, u64(timestamp), sig))}\n`;
    },
  };
}

/**
 * Checks one cosignature (the bytes after the 4-byte key id: timestamp || signature) over a
 * checkpoint's note text. Returns the timestamp, or undefined when it does not verify.
 */
export function verifyCosignature(key: CosignerKey, checkpointText: string, body: Uint8Array): number | undefined {
  if (body.length !== 8 + COSIGN_SIGNATURE_BYTES[key.alg]) return undefined;
  const ts = new DataView(body.buffer, body.byteOffset, 8).getBigUint64(0);
  if (ts > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  const timestamp = Number(ts);
  const sig = body.subarray(8);
  let msg: Uint8Array;
  try {
    msg = signedMessage(key, checkpointText, timestamp);
  } catch {
    return undefined;
  }
  try {
    const ok = key.alg === 'Ed25519' ? ed25519.verify(sig, msg, key.publicKey) : ml_dsa44.verify(sig, msg, key.publicKey);
    return ok ? timestamp : undefined;
  } catch {
    return undefined;
  }
}
