// Bilateral co-signing: a caller signs the JCS bytes of its request payload (ML-DSA-65 or
// Ed25519); vouch checks that signature against the caller keys configured for the tenant
// before deciding, and the receipt then carries it, so a verifier can hold both parties to the
// same bytes: vouch's checkpoint over the entry, and the caller's signature over the input.
import { canonicalBytes, digestBytes, fromBase64, setMember, toBase64, type Digest } from '../canonical/index.js';
import { createVerifier, isSignatureAlg, parseJwks, type PublicKeyEntry, type SignatureAlg } from '../crypto/index.js';
import { InputError, type Issue } from '../errors.js';
import type { Entry } from '../log/index.js';
import type { CallerSignature, Receipt } from './format.js';
import type { Check } from './verify.js';

/** Where a caller puts its signature: `_meta` key on MCP, header on REST (base64 of the JSON). */
export const CALLER_SIGNATURE_META = 'io.vouch/caller-signature';
export const CALLER_SIGNATURE_HEADER = 'x-vouch-caller-signature';

/** What the caller sends. */
export interface CallerSignatureClaim {
  alg: SignatureAlg;
  keyId: string;
  /** base64 signature over the JCS bytes of the request payload. */
  signature: string;
}

/** What the entry records of it: digests only, so the entry stays small and the payload erasable. */
export interface CallerSignatureRecord {
  alg: SignatureAlg;
  keyId: string;
  /** sha256 of the signature bytes. */
  digest: Digest;
  /** sha256 of the signed bytes (equals the entry's input digest when the signature is for this payload). */
  payload: Digest | null;
}

export interface CallerCheck {
  ok: boolean;
  /** Why the signature does not count (a deny reason); absent when ok. */
  reason?: string;
  record: CallerSignatureRecord;
  /** For the receipt, when ok. */
  receipt?: CallerSignature;
}

const MAX_SIGNATURE_B64 = 8192; // an ML-DSA-65 signature is 3309 bytes

/** Parse the caller's claim (untrusted); every bad field is listed. */
export function parseCallerSignatureClaim(input: unknown, at = ''): CallerSignatureClaim {
  const issues: Issue[] = [];
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new InputError('ERR_INPUT', 'caller signature must be an object {alg, keyId, signature}', [{ path: at, message: 'must be an object' }]);
  const o = input as Record<string, unknown>;
  if (!isSignatureAlg(o.alg)) issues.push({ path: `${at}/alg`, message: 'must be ML-DSA-65, ML-DSA-44 or Ed25519' });
  if (typeof o.keyId !== 'string' || o.keyId.length === 0 || o.keyId.length > 200) issues.push({ path: `${at}/keyId`, message: 'must be a key id of at most 200 characters' });
  if (typeof o.signature !== 'string' || o.signature.length > MAX_SIGNATURE_B64) issues.push({ path: `${at}/signature`, message: 'must be a base64 signature' });
  else {
    try {
      fromBase64(o.signature);
    } catch {
      issues.push({ path: `${at}/signature`, message: 'must be standard padded base64' });
    }
  }
  for (const k of Object.keys(o)) if (!['alg', 'keyId', 'signature'].includes(k)) issues.push({ path: `${at}/${k}`, message: 'unknown field' });
  if (issues.length) throw new InputError('ERR_INPUT', `malformed caller signature: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
  return { alg: o.alg as SignatureAlg, keyId: o.keyId as string, signature: o.signature as string };
}

/** The REST header: base64 of the claim's JSON. */
export function parseCallerSignatureHeader(value: string): CallerSignatureClaim {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(fromBase64(value.trim())));
  } catch {
    throw new InputError('ERR_INPUT', `${CALLER_SIGNATURE_HEADER} must be base64 of a JSON object {alg, keyId, signature}`, [{ path: `/headers/${CALLER_SIGNATURE_HEADER}`, message: 'not base64 JSON' }]);
  }
  return parseCallerSignatureClaim(json, `/headers/${CALLER_SIGNATURE_HEADER}`);
}

/** The signature header for a claim (what a caller library sends). */
export function formatCallerSignatureHeader(claim: CallerSignatureClaim): string {
  return toBase64(new TextEncoder().encode(JSON.stringify(claim)));
}

function safeVerify(alg: SignatureAlg, key: Uint8Array, msg: Uint8Array, sig: Uint8Array): boolean {
  try {
    return createVerifier(alg, key).verify(msg, sig);
  } catch {
    return false; // a signature of the wrong length is just a bad signature
  }
}

/** Check a claim over `payload` against the tenant's caller keys. A bad signature is a result, never an exception. */
export function checkCallerSignature(claim: CallerSignatureClaim, payload: unknown, keys: PublicKeyEntry[]): CallerCheck {
  const sig = fromBase64(claim.signature);
  let bytes: Uint8Array | undefined;
  try {
    bytes = canonicalBytes(payload);
  } catch {
    bytes = undefined;
  }
  const record: CallerSignatureRecord = { alg: claim.alg, keyId: claim.keyId, digest: digestBytes(sig), payload: bytes ? digestBytes(bytes) : null };
  const fail = (reason: string): CallerCheck => ({ ok: false, reason: `caller signature rejected: ${reason}`, record });
  if (!bytes) return fail('the payload has no canonical form to verify against');
  const key = keys.find((k) => k.kid === claim.keyId);
  if (!key) return fail(`unknown caller key ${JSON.stringify(claim.keyId)}`);
  if (key.alg !== claim.alg) return fail(`key ${JSON.stringify(claim.keyId)} is ${key.alg}, the signature claims ${claim.alg}`);
  if (!safeVerify(key.alg, key.publicKey, bytes, sig)) return fail(`signature by ${JSON.stringify(claim.keyId)} does not verify over this payload`);
  return { ok: true, record, receipt: { alg: claim.alg, keyId: claim.keyId, signature: claim.signature, payload: toBase64(bytes) } };
}

/**
 * The receipt side (offline): the caller's signature verifies over the payload bytes the receipt
 * carries, those bytes are the entry's input (sha256 = input digest), and the entry recorded
 * this very signature (same key, same signature digest) when it decided.
 */
export function verifyCallerSignature(receipt: Receipt, entry: Entry, keys: PublicKeyEntry[]): Check {
  const fail = (detail: string): Check => ({ name: 'caller-signature', ok: false, detail });
  const cs = receipt.callerSignature;
  if (!cs) return fail('receipt carries no caller signature');
  const key = keys.find((k) => k.kid === cs.keyId && k.alg === cs.alg);
  if (!key) return fail(`caller key ${JSON.stringify(cs.keyId)} (${cs.alg}) is not among the trusted caller keys`);
  const payload = fromBase64(cs.payload);
  const sig = fromBase64(cs.signature);
  const problems: string[] = [];
  if (!safeVerify(key.alg, key.publicKey, payload, sig)) problems.push('signature does not verify over the payload bytes');
  const input = (entry.input as { digest?: unknown } | undefined)?.digest;
  if (input !== digestBytes(payload)) problems.push("signed payload is not the entry's input (digest differs)");
  const rec = entry.callerSignature as Partial<CallerSignatureRecord> | undefined;
  if (!rec || rec.digest !== digestBytes(sig) || rec.keyId !== cs.keyId || rec.alg !== cs.alg) problems.push('the entry does not record this signature');
  if (entry.callerKey !== cs.keyId) problems.push('the entry does not name this caller key as verified');
  if (problems.length) return fail(problems.join('; '));
  return { name: 'caller-signature', ok: true, detail: `caller key ${cs.keyId} (${cs.alg}) signed the entry's input` };
}

/** For VerifyReceiptOptions.verifyCaller. */
export function callerVerifier(keys: PublicKeyEntry[]): (r: Receipt, e: Entry) => Check {
  return (r, e) => verifyCallerSignature(r, e, keys);
}

/** A callers file: `{"<tenant>": <JWKS>, ...}`, the keys each tenant's callers co-sign with. */
export function parseCallerKeys(input: unknown): Record<string, PublicKeyEntry[]> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new InputError('ERR_INPUT', 'callers file must be an object {tenant: JWKS}', [{ path: '', message: 'must be an object' }]);
  const out: Record<string, PublicKeyEntry[]> = {};
  const issues: Issue[] = [];
  for (const [tenant, jwks] of Object.entries(input)) {
    try {
      setMember(out, tenant, parseJwks(jwks));
    } catch (e) {
      const sub = (e as InputError).issues ?? [];
      issues.push(...(sub.length ? sub.map((s) => ({ path: `/${tenant}${s.path}`, message: s.message })) : [{ path: `/${tenant}`, message: (e as Error).message }]));
    }
  }
  if (issues.length) throw new InputError('ERR_INPUT', `bad callers file: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
  return out;
}
