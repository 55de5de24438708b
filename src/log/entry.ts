// Log entry v1 (DESIGN.md section 5): RFC 8785 bytes, stored exactly as hashed. The log adds
// the header fields (v, log, seq, prev); callers supply the body (type, time, and the rest).
import { canonicalBytes, canonicalText, parseJson, toHex, utf8, type Json } from '../canonical/index.js';
import { InputError, VerificationError } from '../errors.js';
import { isHeads, type Heads } from './heads.js';

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
  /** The state the log commits to with this entry included (heads.ts); absent on entries written before issue 35. */
  heads?: Heads;
}

const HEADER = ['v', 'log', 'seq', 'prev', 'heads'] as const;

/**
 * Build the exact bytes of entry `seq` of log `origin` whose predecessor's leaf hash is `prev`;
 * `heads`: the log's state with this entry included (the appender tracks it).
 */
export function encodeEntry(origin: string, seq: number, prev: Uint8Array | string, body: EntryBody, heads?: Heads): Uint8Array {
  for (const k of HEADER) {
    if (k in body) throw new InputError('ERR_INPUT', `entry body may not set header field ${k}`, [{ path: `/${k}`, message: 'reserved' }]);
  }
  const prevHex = typeof prev === 'string' ? prev : toHex(prev);
  return canonicalBytes({ ...body, v: ENTRY_VERSION, log: origin, seq, prev: prevHex, ...(heads && { heads }) });
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
  if (e.heads !== undefined && !isHeads(e.heads, e.seq as number)) issues.push('/heads');
  if (issues.length) throw new VerificationError('ERR_VERIFY_ENTRY', `entry has bad fields: ${issues.join(', ')}`);
  return value as Entry;
}
