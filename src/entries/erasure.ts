// The `erasure` entry (DESIGN.md section 5): payloads left the payload table; the entry says when,
// which digest (one on request) or digests (a batch, payload retention: audit/retention.ts), why and
// at whose request. Writers: audit/erase.ts, audit/retention.ts; readers go through erasedDigests.
import { isDigest, type Digest } from '../canonical/index.js';
import type { Entry, EntryBody } from '../log/index.js';
import { checkerFor, compact, type FieldSpec } from './_check.js';

/** At most this many digests in one erasure entry (a batch stays a few tens of KB). */
export const MAX_ERASURE_DIGESTS = 1000;

export interface ErasureFields {
  time: string;
  /** One payload (erasure on request). Exactly one of digest and digests is present. */
  digest?: Digest;
  /** A batch of payloads (retention), 1..MAX_ERASURE_DIGESTS, distinct. */
  digests?: Digest[];
  /** With digests (retention): only payloads no entry at or after this seq names (log/activation-check.ts checks it). */
  before?: number;
  reason?: string;
  /** Who asked (principal), or `operator:retention`. */
  by?: string;
}

export type ErasureEntry = ErasureFields & { type: 'erasure'; v: 1; log: string; seq: number; prev: string };

export const ERASURE_FIELDS: FieldSpec<ErasureFields> = { time: 'required', digest: 'optional', digests: 'optional', before: 'optional', reason: 'optional', by: 'optional' };

export function erasureEntryBody(f: ErasureFields): EntryBody {
  if ((f.digest === undefined) === (f.digests === undefined)) throw new TypeError('an erasure names a digest or a list of digests, not both or neither');
  return compact({ time: f.time, digest: f.digest, digests: f.digests, before: f.before, reason: f.reason, by: f.by, type: 'erasure' as const });
}

export function readErasureEntry(e: Entry): ErasureEntry {
  const c = checkerFor(e, 'erasure');
  if (e.digests === undefined) c.digest('digest');
  else if (e.digest !== undefined) c.bad('/digests', 'an erasure names digest or digests, not both');
  else if (!Array.isArray(e.digests) || e.digests.length === 0 || e.digests.length > MAX_ERASURE_DIGESTS || !e.digests.every(isDigest) || new Set(e.digests).size !== e.digests.length) {
    c.bad('/digests', `must be 1..${MAX_ERASURE_DIGESTS} distinct sha256:<64 hex> digests`);
  }
  if (e.before !== undefined && (e.digests === undefined || !Number.isSafeInteger(e.before) || (e.before as number) < 0)) c.bad('/before', 'must be an entry seq, with digests');
  c.str('reason');
  c.str('by');
  c.done('erasure');
  return e as unknown as ErasureEntry;
}

/**
 * The digests an erasure entry names (one or a batch), for readers that skip malformed entries
 * (a verifier names those elsewhere): only well-formed digests are returned.
 */
export function erasedDigests(e: { digest?: unknown; digests?: unknown }): Digest[] {
  if (isDigest(e.digest)) return [e.digest];
  return Array.isArray(e.digests) ? e.digests.filter(isDigest) : [];
}
