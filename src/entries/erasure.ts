// The `erasure` entry (DESIGN.md section 5): a payload left the payload table; the entry says when,
// which digest, why and at whose request. One writer (audit/erase.ts), one reader (audit/erasures.ts).
import type { Digest } from '../canonical/index.js';
import type { Entry, EntryBody } from '../log/index.js';
import { checkerFor, compact, type FieldSpec } from './_check.js';

export interface ErasureFields {
  time: string;
  digest: Digest;
  reason?: string;
  /** Who asked (principal). */
  by?: string;
}

export type ErasureEntry = ErasureFields & { type: 'erasure'; v: 1; log: string; seq: number; prev: string };

export const ERASURE_FIELDS: FieldSpec<ErasureFields> = { time: 'required', digest: 'required', reason: 'optional', by: 'optional' };

export function erasureEntryBody(f: ErasureFields): EntryBody {
  return compact({ time: f.time, digest: f.digest, reason: f.reason, by: f.by, type: 'erasure' as const });
}

export function readErasureEntry(e: Entry): ErasureEntry {
  const c = checkerFor(e, 'erasure');
  c.digest('digest');
  c.str('reason');
  c.str('by');
  c.done('erasure');
  return e as unknown as ErasureEntry;
}
