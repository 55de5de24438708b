// Log entry v1 (DESIGN.md section 5): RFC 8785 bytes, stored exactly as hashed. The log adds
// the header fields (v, log, seq, prev); callers supply the body (type, time, and the rest).
import { canonicalBytes, canonicalMembers, canonicalText, parseJson, toHex, utf8, type Json } from '../canonical/index.js';
import { InputError, VerificationError } from '../errors.js';

// `pin`: a tool definition pinned, changed or approved (mcp/tool-pins.ts).
export type EntryType = 'decision' | 'execution' | 'policy' | 'key' | 'erasure' | 'pin';
export const ENTRY_TYPES: readonly EntryType[] = ['decision', 'execution', 'policy', 'key', 'erasure', 'pin'];
export const ENTRY_VERSION = 1;
/** prev of the first entry: 32 zero bytes in hex. */
export const GENESIS_PREV = '0'.repeat(64);

/** What a caller appends: the log fills in v, log, seq and prev. */
export interface EntryBody {
  type: EntryType;
  /** Decision time, RFC 3339, from the caller's context (the log never reads the clock). */
  time: string;
  [field: string]: Json | undefined;
}

export interface Entry extends EntryBody {
  v: 1;
  log: string;
  seq: number;
  prev: string;
}

const HEADER = ['v', 'log', 'seq', 'prev'] as const;

/**
 * A body in canonical form before its place in the log is known (encodeBody): its members' JCS
 * text in the five runs the header fields fall between ("log", "prev", "seq", "v", in JCS order).
 * The log thread gets this instead of the body's objects: a few strings copy between threads for
 * a fraction of what the object graph did, and the writer then only splices the header in.
 */
export interface EncodedBody {
  readonly encoded: readonly [string, string, string, string, string];
}

/** Header fields in JCS order, each with the run of body members that sorts before it. */
const SPLICE = ['log', 'prev', 'seq', 'v'] as const;

export function isEncodedBody(b: EntryBody | EncodedBody): b is EncodedBody {
  return Array.isArray((b as EncodedBody).encoded);
}

function refuseHeaderFields(body: EntryBody): void {
  for (const k of HEADER) {
    if (k in body) throw new InputError('ERR_INPUT', `entry body may not set header field ${k}`, [{ path: `/${k}`, message: 'reserved' }]);
  }
}

/** The body's canonical members, split for encodeEntry; throws what encodeEntry(…, body) would. */
export function encodeBody(body: EntryBody): EncodedBody {
  refuseHeaderFields(body);
  const runs: [string[], string[], string[], string[], string[]] = [[], [], [], [], []];
  let run = 0;
  for (const [k, text] of canonicalMembers(body)) {
    while (run < SPLICE.length && !(k < SPLICE[run])) run++;
    runs[run].push(text);
  }
  return { encoded: runs.map((r) => r.join(',')) as unknown as EncodedBody['encoded'] };
}

/** Build the exact bytes of entry `seq` of log `origin` whose predecessor's leaf hash is `prev`. */
export function encodeEntry(origin: string, seq: number, prev: Uint8Array | string, body: EntryBody | EncodedBody): Uint8Array {
  const prevHex = typeof prev === 'string' ? prev : toHex(prev);
  if (isEncodedBody(body)) {
    if (!Number.isSafeInteger(seq) || seq < 0) throw new InputError('ERR_INPUT', 'entry seq must be a non-negative integer');
    const header = [`"log":${canonicalText(origin)}`, `"prev":${canonicalText(prevHex)}`, `"seq":${seq}`, `"v":${ENTRY_VERSION}`];
    const parts: string[] = [];
    for (let i = 0; i < 5; i++) {
      if (body.encoded[i] !== '') parts.push(body.encoded[i]);
      if (i < 4) parts.push(header[i]);
    }
    return utf8.encode(`{${parts.join(',')}}`);
  }
  refuseHeaderFields(body);
  return canonicalBytes({ ...body, v: ENTRY_VERSION, log: origin, seq, prev: prevHex });
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Parse stored entry bytes. The bytes must already be canonical: an entry whose bytes are not
 * the JCS of their own value was not written by vouch (or was altered), so it is rejected.
 */
export function decodeEntry(bytes: Uint8Array): Entry {
  const text = utf8.decode(bytes);
  const value = parseJson(text);
  if (canonicalText(value) !== text) throw new VerificationError('ERR_VERIFY_ENTRY', 'entry bytes are not canonical JSON');
  const issues: string[] = [];
  const e = value as Record<string, unknown>;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new VerificationError('ERR_VERIFY_ENTRY', 'entry is not an object');
  if (e.v !== ENTRY_VERSION) issues.push('/v');
  if (typeof e.log !== 'string' || e.log.length === 0) issues.push('/log');
  if (!Number.isSafeInteger(e.seq) || (e.seq as number) < 0) issues.push('/seq');
  if (typeof e.prev !== 'string' || !/^[0-9a-f]{64}$/.test(e.prev)) issues.push('/prev');
  if (!ENTRY_TYPES.includes(e.type as EntryType)) issues.push('/type');
  if (typeof e.time !== 'string' || !RFC3339.test(e.time)) issues.push('/time');
  if (issues.length) throw new VerificationError('ERR_VERIFY_ENTRY', `entry has bad fields: ${issues.join(', ')}`);
  return value as Entry;
}
