// A time-stamp as it travels in receipts and bundles, and its offline check: the stamped checkpoint
// (its note exactly as the log signed it, opened with the log's keys), a proof tying it to what is
// verified (an entry's inclusion, or a bundle tree's consistency), and the token checked against the
// TSA certificate the auditor pins. Without a pinned certificate the token is "not checked", never INVALID.
import type { Certificate } from 'pkijs';
import { fromBase64, fromHex, toBase64, toHex, utf8 } from '../canonical/index.js';
import { InputError, type Issue } from '../errors.js';
import { openSignedCheckpoint, type Checkpoint } from '../log/checkpoint.js';
import { checkExtends } from '../log/consistency.js';
import { verifyInclusion } from '../log/merkle.js';
import type { NoteVerifier } from '../log/note.js';
import { readToken, verifyTimestampToken } from './token.js';

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

export interface TimestampCheck {
  name: 'timestamp';
  ok: boolean;
  /** verified: the token holds against the pinned TSA certificate; not checked: no certificate pinned. */
  status: 'verified' | 'not checked' | 'invalid';
  detail: string;
  tsa?: string;
  genTime?: string;
  /** Size of the stamped checkpoint. */
  size?: number;
}

export function buildTimestampEvidence(note: string, proof: Uint8Array[], token: Uint8Array): TimestampEvidence {
  return { checkpoint: note, proof: proof.map(toHex), token: toBase64(token) };
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

export interface CheckTimestampOptions {
  /** The log's trusted keys (the same the receipt or bundle is checked with). */
  verifiers: NoteVerifier[];
  classicalOk?: boolean;
  /** The TSA certificate(s) the auditor pins (`--tsa-cert`); none: the token is not checked. */
  pinned?: Certificate[];
  /** What the stamp must cover: an entry (index, leaf hash) of this log, or a tree it must be a prefix of. */
  covers: { origin: string; entry: { index: number; leaf: Uint8Array } } | { origin: string; tree: Checkpoint };
}

/** Check one stamp; never throws: a failure is an INVALID check naming the reason. */
export async function checkTimestamp(ev: TimestampEvidence, o: CheckTimestampOptions): Promise<TimestampCheck> {
  const invalid = (detail: string): TimestampCheck => ({ name: 'timestamp', ok: false, status: 'invalid', detail });
  let cp: Checkpoint;
  try {
    cp = openSignedCheckpoint(ev.checkpoint, o.verifiers, { classicalOk: o.classicalOk }).checkpoint;
  } catch (e) {
    return invalid(`the stamped checkpoint does not verify with the log's keys: ${(e as Error).message}`);
  }
  if (cp.origin !== o.covers.origin) return invalid(`the stamped checkpoint is of log ${cp.origin}, not ${o.covers.origin}`);
  const proof = ev.proof.map(fromHex);
  let what: string;
  if ('entry' in o.covers) {
    const { index, leaf } = o.covers.entry;
    if (index >= cp.size || !verifyInclusion(index, cp.size, leaf, proof, cp.root)) return invalid(`entry ${index} is not proven in the stamped tree of size ${cp.size}`);
    what = `entry ${index} existed by then (stamped checkpoint size ${cp.size})`;
  } else {
    const r = checkExtends(cp, o.covers.tree, proof);
    if (!r.ok) return invalid(`the stamped checkpoint of size ${cp.size} is not a prefix of the tree of size ${o.covers.tree.size}: ${r.message}`);
    what = `the first ${cp.size} entries existed by then`;
  }
  const token = fromBase64(ev.token);
  const data = utf8.encode(ev.checkpoint);
  if (!o.pinned || o.pinned.length === 0) {
    let said = '';
    try {
      const t = readToken(token);
      said = ` (it says ${t.tsa} at ${t.genTime})`;
    } catch {
      said = ' (it does not parse)';
    }
    return { name: 'timestamp', ok: true, status: 'not checked', size: cp.size, detail: `a TSA token over checkpoint size ${cp.size}${said}: not checked (give --tsa-cert FILE, the TSA certificate you trust)` };
  }
  try {
    const f = await verifyTimestampToken(token, data, o.pinned);
    return { name: 'timestamp', ok: true, status: 'verified', tsa: f.tsa, genTime: f.genTime, size: cp.size, detail: `time-stamped by ${f.tsa} at ${f.genTime}: ${what}` };
  } catch (e) {
    return invalid(`TSA token: ${(e as Error).message}`);
  }
}
