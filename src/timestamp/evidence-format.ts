// The shape of a time-stamp in receipts and bundles, and its strict parser (untrusted input). No
// ASN.1 here: receipt parsing (browser, Workers) stays free of pkijs; evidence.ts checks the token.
import { fromBase64, toBase64, toHex } from '../canonical/index.js';
import { InputError, type Issue } from '../errors.js';

const MAX_NOTE = 64 * 1024;
const MAX_TOKEN_B64 = 90 * 1024;

/** `timestamp` in a receipt (proof: the entry's inclusion in the stamped tree) or a line of a bundle's timestamps.json (proof: stamped tree to the bundle's). */
export interface TimestampEvidence {
  /** The stamped checkpoint note, byte for byte as the log signed it: the token's imprint is SHA-256 of it. */
  checkpoint: string;
  /** hex hashes (RFC 9162). */
  proof: string[];
  /** base64 of the token's DER, as the TSA sent it. */
  token: string;
}

/** Shape only (a receipt or bundle is untrusted input); every bad field is listed under `at`. */
export function parseTimestampEvidence(v: unknown, at: string, issues: Issue[]): TimestampEvidence | undefined {
  const bad = (p: string, m: string) => issues.push({ path: `${at}${p}`, message: m });
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return void bad('', 'must be {checkpoint, proof, token}');
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!['checkpoint', 'proof', 'token'].includes(k)) bad(`/${k}`, 'unknown field');
  if (typeof o.checkpoint !== 'string' || o.checkpoint.length > MAX_NOTE) bad('/checkpoint', 'must be the stamped checkpoint note');
  if (!Array.isArray(o.proof) || o.proof.length > 126 || !o.proof.every((h) => typeof h === 'string' && /^[0-9a-f]{64}$/.test(h))) bad('/proof', 'must be a list of 64-hex-digit hashes');
  if (typeof o.token !== 'string' || o.token.length > MAX_TOKEN_B64) bad('/token', 'must be base64 of the token DER');
  else {
    try {
      fromBase64(o.token);
    } catch {
      bad('/token', 'not standard base64');
    }
  }
  return issues.length ? undefined : (o as unknown as TimestampEvidence);
}

export function assertTimestampEvidence(v: unknown, at = ''): TimestampEvidence {
  const issues: Issue[] = [];
  const ev = parseTimestampEvidence(v, at, issues);
  if (!ev) throw new InputError('ERR_INPUT', `malformed time-stamp: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
  return ev;
}

export function buildTimestampEvidence(note: string, proof: Uint8Array[], token: Uint8Array): TimestampEvidence {
  return { checkpoint: note, proof: proof.map(toHex), token: toBase64(token) };
}
