// Which payloads erasure entries removed: one pass over a log's entries, parsing only those
// that can be erasure entries. Replay uses it to tell "erased" from "missing".
import type { Digest } from '../canonical/index.js';
import { erasedDigests, readErasureEntry } from '../entries/index.js';
import { decodeEntry } from '../log/index.js';

const MARK = '"type":"erasure"';
const text = new TextDecoder();

/** digest -> seq of the first erasure entry naming it. */
export async function scanErasures(entries: AsyncIterable<{ seq: number; bytes: Uint8Array }>): Promise<Map<Digest, number>> {
  const out = new Map<Digest, number>();
  for await (const { seq, bytes } of entries) {
    const s = text.decode(bytes);
    if (!s.includes(MARK)) continue;
    let e;
    try {
      const decoded = decodeEntry(bytes);
      if (decoded.type !== 'erasure') continue;
      e = readErasureEntry(decoded);
    } catch {
      continue; // not this pass's business: verifyLog names broken entries
    }
    for (const d of erasedDigests(e)) if (!out.has(d)) out.set(d, seq);
  }
  return out;
}
