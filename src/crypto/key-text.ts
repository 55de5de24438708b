// The text form of a private key, shared by key files (key-file.ts) and environment secrets
// (Workers). Format, one JSON object on one line, newline-terminated:
//   {"v":1,"alg":"ML-DSA-65","seed":"<standard base64 of the 32-byte seed>"}
// Only the seed is stored (FIPS 204 section 3.6.3 seed format); the expanded key is derived.
import { fromBase64, toBase64 } from '../canonical/index.js';
import { InputError, type Issue } from '../errors.js';
import { isSignatureAlg } from './by-alg.js';
import type { SignatureAlg } from './types.js';

export const KEY_SEED_BYTES = 32;
const MAX_KEY_TEXT = 4096;

export interface KeySeed {
  alg: SignatureAlg;
  seed: Uint8Array;
}

export function formatKeyText(alg: SignatureAlg, seed: Uint8Array): string {
  if (!isSignatureAlg(alg)) throw new InputError('ERR_KEY_FORMAT', `unsupported algorithm ${String(alg)}`);
  if (!(seed instanceof Uint8Array) || seed.length !== KEY_SEED_BYTES) {
    throw new InputError('ERR_KEY_FORMAT', `key seed must be ${KEY_SEED_BYTES} bytes`);
  }
  return `${JSON.stringify({ v: 1, alg, seed: toBase64(seed) })}\n`;
}

/** Parses key text; every problem is listed, none of them echoes the secret. */
export function parseKeyText(text: unknown): KeySeed {
  if (typeof text !== 'string' || text.length > MAX_KEY_TEXT) {
    throw new InputError('ERR_KEY_FORMAT', 'key text must be a string of at most 4096 characters');
  }
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    throw new InputError('ERR_KEY_FORMAT', 'key text is not JSON');
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    throw new InputError('ERR_KEY_FORMAT', 'key text must be a JSON object');
  }
  const o = obj as Record<string, unknown>;
  const issues: Issue[] = [];
  if (o.v !== 1) issues.push({ path: '/v', message: 'must be 1' });
  if (!isSignatureAlg(o.alg)) issues.push({ path: '/alg', message: 'must be "ML-DSA-65", "Ed25519" or "ML-DSA-44"' });
  let seed: Uint8Array | undefined;
  try {
    seed = fromBase64(o.seed as string);
    if (seed.length !== KEY_SEED_BYTES) issues.push({ path: '/seed', message: `must be ${KEY_SEED_BYTES} bytes` });
  } catch {
    issues.push({ path: '/seed', message: 'must be standard padded base64' });
  }
  for (const k of Object.keys(o)) {
    if (k !== 'v' && k !== 'alg' && k !== 'seed') issues.push({ path: `/${k}`, message: 'unknown member' });
  }
  if (issues.length > 0 || !seed) {
    throw new InputError('ERR_KEY_FORMAT', `malformed key: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
  }
  return { alg: o.alg as SignatureAlg, seed };
}
