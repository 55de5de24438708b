// Public keys as a JWKS: ML-DSA-65 as an RFC 9964 "AKP" key (alg "ML-DSA-65", raw FIPS 204
// public key in `pub`), Ed25519 as an RFC 8037 "OKP" key. Portable.
import { fromBase64, toBase64 } from '../canonical/index.js';
import { InputError, type Issue } from '../errors.js';
import { publicKeyLength } from './by-alg.js';
import type { SignatureAlg } from './types.js';

export interface AkpJwk {
  kty: 'AKP';
  alg: 'ML-DSA-65';
  pub: string;
  kid: string;
  use: 'sig';
}
export interface OkpJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  use: 'sig';
}
export type Jwk = AkpJwk | OkpJwk;
export interface Jwks {
  keys: Jwk[];
}
export interface PublicKeyEntry {
  alg: SignatureAlg;
  publicKey: Uint8Array;
  kid: string;
}

/** base64url without padding (RFC 7515 section 2). */
export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
}

/** Strict: only the unpadded canonical base64url text of some bytes. */
export function fromBase64Url(text: string): Uint8Array {
  if (typeof text !== 'string' || !/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) {
    throw new InputError('ERR_INPUT', 'not unpadded base64url');
  }
  const std = text.replace(/-/g, '+').replace(/_/g, '/');
  return fromBase64(std + '='.repeat((4 - (std.length % 4)) % 4));
}

export function toJwk(alg: SignatureAlg, publicKey: Uint8Array, kid: string): Jwk {
  if (alg === 'ML-DSA-65') return { kty: 'AKP', alg: 'ML-DSA-65', pub: toBase64Url(publicKey), kid, use: 'sig' };
  return { kty: 'OKP', crv: 'Ed25519', x: toBase64Url(publicKey), kid, use: 'sig' };
}

export function toJwks(keys: PublicKeyEntry[]): Jwks {
  return { keys: keys.map((k) => toJwk(k.alg, k.publicKey, k.kid)) };
}

const PRIVATE_MEMBERS = ['priv', 'd', 'seed'];

/**
 * Reads the keys vouch can verify with. Keys of other types (RSA, EC, other AKP algorithms) are
 * skipped, as RFC 7517 section 5 asks; a supported key with a bad member is an error, and so is
 * private key material, which must never sit in a published key set.
 */
export function parseJwks(input: unknown): PublicKeyEntry[] {
  const issues: Issue[] = [];
  const out: PublicKeyEntry[] = [];
  const keys = (input as { keys?: unknown } | null)?.keys;
  if (typeof input !== 'object' || input === null || !Array.isArray(keys)) {
    throw new InputError('ERR_INPUT', 'JWKS must be an object with a "keys" array', [{ path: '/keys', message: 'must be an array' }]);
  }
  keys.forEach((k: unknown, i) => {
    const at = `/keys/${i}`;
    if (typeof k !== 'object' || k === null || Array.isArray(k)) return void issues.push({ path: at, message: 'must be an object' });
    const j = k as Record<string, unknown>;
    for (const m of PRIVATE_MEMBERS) if (m in j) issues.push({ path: `${at}/${m}`, message: 'private key material in a public key set' });
    const alg: SignatureAlg | undefined =
      j.kty === 'AKP' && j.alg === 'ML-DSA-65' ? 'ML-DSA-65' : j.kty === 'OKP' && j.crv === 'Ed25519' ? 'Ed25519' : undefined;
    if (!alg) return;
    if (j.kty === 'OKP' && j.alg !== undefined && j.alg !== 'EdDSA' && j.alg !== 'Ed25519') {
      issues.push({ path: `${at}/alg`, message: 'must be "EdDSA" or "Ed25519" for an Ed25519 key' });
    }
    if (typeof j.kid !== 'string' || j.kid.length === 0) issues.push({ path: `${at}/kid`, message: 'must be a non-empty string' });
    if (j.use !== undefined && j.use !== 'sig') issues.push({ path: `${at}/use`, message: 'must be "sig"' });
    const member = alg === 'ML-DSA-65' ? 'pub' : 'x';
    let publicKey: Uint8Array | undefined;
    try {
      publicKey = fromBase64Url(j[member] as string);
    } catch {
      issues.push({ path: `${at}/${member}`, message: 'must be unpadded base64url' });
    }
    if (publicKey && publicKey.length !== publicKeyLength(alg)) {
      issues.push({ path: `${at}/${member}`, message: `must be ${publicKeyLength(alg)} bytes for ${alg}` });
      publicKey = undefined;
    }
    if (publicKey && typeof j.kid === 'string') out.push({ alg, publicKey, kid: j.kid });
  });
  if (issues.length > 0) {
    throw new InputError('ERR_INPUT', `malformed JWKS: ${issues.map((x) => `${x.path} ${x.message}`).join('; ')}`, issues);
  }
  return out;
}
