// Which erasure entries removed a payload, folded from the log's `erasure` entries as the console
// reads them (GET /v1/payloads/:digest/erasure): the console says "erased by entry N" where a
// payload it shows (an input, an intent, an enricher's addition) is gone, never an error. Portable.
import type { Digest } from '../canonical/index.js';
import { erasedDigests, readErasureEntry } from '../entries/index.js';
import type { Entry } from '../log/index.js';

export interface ErasureRow {
  /** The erasure entry's seq. */
  seq: number;
  time: string;
  reason: string | null;
  by: string | null;
  /** A retention batch (only payloads no entry at or after `before` names) or one erased on request. */
  retention: boolean;
}

export class ErasureFold {
  /** digest -> every erasure entry naming it, in log order. */
  private readonly byDigest = new Map<Digest, ErasureRow[]>();

  /** One entry in log order; other types, and erasure entries their reader refuses, are ignored (verifiers name those). */
  add(seq: number, raw: Record<string, unknown>): void {
    if (raw.type !== 'erasure') return;
    let e;
    try {
      e = readErasureEntry(raw as unknown as Entry);
    } catch {
      return;
    }
    const row: ErasureRow = { seq, time: e.time, reason: e.reason ?? null, by: e.by ?? null, retention: e.digests !== undefined };
    for (const d of erasedDigests(e)) {
      const list = this.byDigest.get(d);
      if (list) list.push(row);
      else this.byDigest.set(d, [row]);
    }
  }

  /**
   * The first erasure of `digest` after entry `after` (the entry that named it: a payload stored
   * again by a later entry and erased again names the later erasure), below `size`.
   */
  after(digest: Digest, after: number, size: number): ErasureRow | undefined {
    return this.byDigest.get(digest)?.find((r) => r.seq > after && r.seq < size);
  }
}
