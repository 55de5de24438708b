// Public keys as a JWKS: ML-DSA-65 and ML-DSA-44 as RFC 9964 "AKP" keys (alg "ML-DSA-65"/"ML-DSA-44", raw FIPS 204
// public key in `pub`), Ed25519 as an RFC 8037 "OKP" key. Portable.
import { fromBase64, setMember, toBase64 } from '../canonical/index.js';
import { InputError, type Issue } from '../errors.js';
import { publicKeyLength } from './by-alg.js';
import type { SignatureAlg } from './types.js';

export interface AkpJwk {
  kty: 'AKP';
  alg: 'ML-DSA-65' | 'ML-DSA-44';
  pub: string;
  kid: string;
  use: 'sig';
  vouch_logs?: Record<string, KeyWindowJson>;
}
export interface OkpJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  use: 'sig';
  vouch_logs?: Record<string, KeyWindowJson>;
}
export type Jwk = AkpJwk | OkpJwk;
export interface Jwks {
  keys: Jwk[];
}
export interface PublicKeyEntry {
  alg: SignatureAlg;
  publicKey: Uint8Array;
  kid: string;
  /**
   * Key history (issue 18): per log origin, the tree sizes this key signs there (from, to: the
   * handover of the rotation that retired it) and the size after which it is revoked. Published
   * as the JWK member `vouch_logs`; verifiers refuse the key's checkpoints outside them.
   */
  logs?: Record<string, KeyWindowJson>;
}
/** A key's window in a published key set: sizes it signs in one log. */
export interface KeyWindowJson {
  from: number;
  to?: number;
  revokedAfter?: number;
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
  if (alg === 'ML-DSA-65' || alg === 'ML-DSA-44') return { kty: 'AKP', alg, pub: toBase64Url(publicKey), kid, use: 'sig' };
  return { kty: 'OKP', crv: 'Ed25519', x: toBase64Url(publicKey), kid, use: 'sig' };
}

export function toJwks(keys: PublicKeyEntry[]): Jwks {
  return { keys: keys.map((k) => (k.logs && Object.keys(k.logs).length ? { ...toJwk(k.alg, k.publicKey, k.kid), vouch_logs: k.logs } : toJwk(k.alg, k.publicKey, k.kid))) };
}

const isSize = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** `vouch_logs` of a JWK: {origin: {from, to?, revokedAfter?}}; undefined when absent, issues when malformed. */
function readLogs(v: unknown, at: string, issues: Issue[]): Record<string, KeyWindowJson> | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return void issues.push({ path: at, message: 'must be an object of log origins' });
  const out: Record<string, KeyWindowJson> = {};
  for (const [origin, w] of Object.entries(v as Record<string, unknown>)) {
    const o = w as Record<string, unknown> | null;
    if (!o || typeof o !== 'object' || !isSize(o.from) || (o.to !== undefined && !isSize(o.to)) || (o.revokedAfter !== undefined && !isSize(o.revokedAfter))) {
      issues.push({ path: `${at}/${origin}`, message: 'must be {from, to?, revokedAfter?} tree sizes' });
      continue;
    }
    setMember(out, origin, { from: o.from as number, ...(o.to !== undefined ? { to: o.to as number } : {}), ...(o.revokedAfter !== undefined ? { revokedAfter: o.revokedAfter as number } : {}) });
  }
  return out;
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
      j.kty === 'AKP' && (j.alg === 'ML-DSA-65' || j.alg === 'ML-DSA-44') ? j.alg : j.kty === 'OKP' && j.crv === 'Ed25519' ? 'Ed25519' : undefined;
    if (!alg) return;
    if (j.kty === 'OKP' && j.alg !== undefined && j.alg !== 'EdDSA' && j.alg !== 'Ed25519') {
      issues.push({ path: `${at}/alg`, message: 'must be "EdDSA" or "Ed25519" for an Ed25519 key' });
    }
    if (typeof j.kid !== 'string' || j.kid.length === 0) issues.push({ path: `${at}/kid`, message: 'must be a non-empty string' });
    if (j.use !== undefined && j.use !== 'sig') issues.push({ path: `${at}/use`, message: 'must be "sig"' });
    const member = alg === 'Ed25519' ? 'x' : 'pub';
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
    const logs = readLogs(j.vouch_logs, `${at}/vouch_logs`, issues);
    if (publicKey && typeof j.kid === 'string') out.push({ alg, publicKey, kid: j.kid, ...(logs ? { logs } : {}) });
  });
  if (issues.length > 0) {
    throw new InputError('ERR_INPUT', `malformed JWKS: ${issues.map((x) => `${x.path} ${x.message}`).join('; ')}`, issues);
  }
  return out;
}
