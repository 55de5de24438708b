// Receipt v1 (DESIGN.md section 7): everything needed to check one entry offline with a
// trusted public key: the exact entry bytes, its leaf hash and index, the inclusion proof and
// the signed checkpoint. Also convertible to and from C2SP tlog-proof@v1 text.
import { fromBase64, fromHex, toBase64, toHex } from '../canonical/index.js';
import { isSignatureAlg, type SignatureAlg } from '../crypto/index.js';
import { InputError, type Issue } from '../errors.js';
import { parseTimestampEvidence, type TimestampEvidence } from '../timestamp/evidence-format.js';

export const RECEIPT_VERSION = 1;
/** Bounds for untrusted receipts: a proof longer than 63 hashes cannot be for a 2^63 tree. */
const MAX_PROOF = 63;
const MAX_ENTRY_BYTES = 4 * 1024 * 1024;
const MAX_NOTE = 64 * 1024;

export interface Receipt {
  v: 1;
  /** base64 of the exact entry bytes. */
  entry: string;
  /** hex SHA-256(0x00 || entry bytes). */
  leafHash: string;
  index: number;
  /** hex hashes, leaf to root (RFC 9162 inclusion proof). */
  proof: string[];
  /** The signed checkpoint note, exactly as signed. */
  checkpoint: string;
  /** Optional: the caller's own signature over its request (bilateral co-signing). */
  callerSignature?: CallerSignature;
  /**
   * Optional: an RFC 3161 time-stamp of the earliest stamped checkpoint holding this entry (its
   * note as signed, the entry's inclusion proof into it, the TSA token): trusted time it existed by.
   */
  timestamp?: TimestampEvidence;
}

export interface CallerSignature {
  alg: SignatureAlg;
  keyId: string;
  /** base64 signature over the JCS bytes of the request payload. */
  signature: string;
  /** base64 of the exact JCS bytes that were signed. */
  payload: string;
}

export function buildReceipt(a: { bytes: Uint8Array; leaf: Uint8Array; seq: number; proof: Uint8Array[]; checkpoint: string; timestamp?: TimestampEvidence }): Receipt {
  return { v: 1, entry: toBase64(a.bytes), leafHash: toHex(a.leaf), index: a.seq, proof: a.proof.map(toHex), checkpoint: a.checkpoint, ...(a.timestamp && { timestamp: a.timestamp }) };
}

/** Parse an untrusted receipt; every bad field is listed. Does not verify anything. */
export function parseReceipt(input: unknown): Receipt {
  const issues: Issue[] = [];
  const bad = (path: string, message: string) => issues.push({ path, message });
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new InputError('ERR_INPUT', 'receipt must be a JSON object', [{ path: '', message: 'not an object' }]);
  const r = input as Record<string, unknown>;
  if (r.v !== RECEIPT_VERSION) bad('/v', `unsupported receipt version (want ${RECEIPT_VERSION})`);
  if (typeof r.entry !== 'string' || r.entry.length > (MAX_ENTRY_BYTES * 4) / 3 + 4) bad('/entry', 'must be base64 of the entry bytes');
  else {
    try {
      fromBase64(r.entry);
    } catch {
      bad('/entry', 'not standard base64');
    }
  }
  if (typeof r.leafHash !== 'string' || !/^[0-9a-f]{64}$/.test(r.leafHash)) bad('/leafHash', 'must be 64 lowercase hex digits');
  if (!Number.isSafeInteger(r.index) || (r.index as number) < 0) bad('/index', 'must be a non-negative integer');
  if (!Array.isArray(r.proof) || r.proof.length > MAX_PROOF) bad('/proof', `must be an array of at most ${MAX_PROOF} hashes`);
  else r.proof.forEach((h, i) => typeof h === 'string' && /^[0-9a-f]{64}$/.test(h) || bad(`/proof/${i}`, 'must be 64 lowercase hex digits'));
  if (typeof r.checkpoint !== 'string' || r.checkpoint.length > MAX_NOTE) bad('/checkpoint', 'must be the signed checkpoint note text');
  if (r.callerSignature !== undefined) parseCallerSignature(r.callerSignature, '/callerSignature', bad);
  if (r.timestamp !== undefined) parseTimestampEvidence(r.timestamp, '/timestamp', issues);
  const known = new Set(['v', 'entry', 'leafHash', 'index', 'proof', 'checkpoint', 'callerSignature', 'timestamp']);
  for (const k of Object.keys(r)) if (!known.has(k)) bad(`/${k}`, 'unknown field');
  if (issues.length) throw new InputError('ERR_INPUT', `malformed receipt: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
  return r as unknown as Receipt;
}

function parseCallerSignature(v: unknown, path: string, bad: (p: string, m: string) => void): void {
  if (typeof v !== 'object' || v === null) return bad(path, 'must be an object');
  const s = v as Record<string, unknown>;
  if (!isSignatureAlg(s.alg)) bad(`${path}/alg`, 'must be ML-DSA-65, ML-DSA-44 or Ed25519');
  if (typeof s.keyId !== 'string' || s.keyId.length === 0 || s.keyId.length > 200) bad(`${path}/keyId`, 'must be a key id');
  for (const k of ['signature', 'payload'] as const) {
    try {
      fromBase64(s[k] as string);
    } catch {
      bad(`${path}/${k}`, 'must be standard base64');
    }
  }
}

const PROOF_HEADER = 'c2sp.org/tlog-proof@v1';

/** C2SP tlog-proof@v1 text; the entry bytes travel in the `extra` line. */
export function formatTlogProof(r: Receipt): string {
  const hashes = r.proof.map((h) => toBase64(fromHex(h)));
  return [PROOF_HEADER, `extra ${r.entry}`, `index ${r.index}`, ...hashes, '', r.checkpoint].join('\n');
}

/** Parse tlog-proof@v1 text back into a receipt (the leaf hash is recomputed by verification). */
export function parseTlogProof(text: string, leafHashOf: (entry: Uint8Array) => Uint8Array): Receipt {
  const fail = (m: string): never => {
    throw new InputError('ERR_INPUT', `malformed tlog-proof: ${m}`);
  };
  const split = text.indexOf('\n\n');
  if (split < 0) fail('no blank line before the checkpoint');
  const head = text.slice(0, split).split('\n');
  const checkpoint = text.slice(split + 2);
  if (head[0] !== PROOF_HEADER) fail(`first line must be ${PROOF_HEADER}`);
  let i = 1;
  let entry: string | undefined;
  if (head[i]?.startsWith('extra ')) entry = head[i++].slice(6);
  if (entry === undefined) fail('vouch proofs carry the entry bytes in an extra line');
  const m = /^index (0|[1-9][0-9]*)$/.exec(head[i++] ?? '');
  if (!m) fail('missing or bad index line');
  const proof = head.slice(i).map((l) => {
    try {
      const b = fromBase64(l);
      if (b.length !== 32) fail('proof hash is not 32 bytes');
      return toHex(b);
    } catch {
      return fail('proof line is not base64');
    }
  });
  const bytes = fromBase64(entry!);
  return parseReceipt({ v: 1, entry, leafHash: toHex(leafHashOf(bytes)), index: Number(m![1]), proof, checkpoint });
}
