// What enrichers added to a recorded decision, read back for replay and what-if: the band's record
// in the entry's state names each addition by digest; the bytes are in the payload store (erasable,
// like the input). Replay applies them; it never runs an enricher (live evidence changes).
import { digestBytes, isDigest, parseJson, utf8, type Digest } from '../canonical/index.js';
import { ENRICH_STATE_KEY } from '../interceptors/chain.js';
import type { InterceptorResult, Json } from '../interceptors/types.js';
import type { UnreplayableReason } from './_rebuild.js';
import type { DecisionFacts } from './_decision-facts.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The band's recorded entries (name, and the digest of what it added, when it added anything). */
export function recordedEnrichers(state: Record<string, Json>): { name: string; enrichment?: Digest }[] {
  const band = state[ENRICH_STATE_KEY];
  if (!Array.isArray(band)) return [];
  return (band.filter(isRecord) as Record<string, unknown>[]).flatMap((r) => (typeof r.name === 'string' ? [{ name: r.name, ...(isDigest(r.enrichment) && { enrichment: r.enrichment as Digest }) }] : []));
}

/** The enrichers a (re-)run chain ran, by name, in band order. */
export function enrichersRan(results: readonly InterceptorResult[]): string[] {
  return results.filter((r) => r.type === 'mutation' && isRecord(r.info) && r.info.role === 'enricher').map((r) => r.interceptor);
}

type Source = { payload(digest: Digest, seq: number): Promise<Uint8Array | undefined>; erasedAt?(digest: Digest, seq: number): Promise<number | undefined> };

/** Every recorded addition of the decision by digest, or why one cannot be had (erased, missing, altered). */
export async function loadEnrichments(source: Source, f: DecisionFacts): Promise<{ additions: Record<string, Json> } | { reason: UnreplayableReason; detail: string }> {
  const additions: Record<string, Json> = {};
  for (const { name, enrichment } of recordedEnrichers(f.state)) {
    if (enrichment === undefined || Object.hasOwn(additions, enrichment)) continue;
    const bytes = await source.payload(enrichment, f.seq);
    if (!bytes) {
      const at = await source.erasedAt?.(enrichment, f.seq);
      if (at !== undefined) return { reason: 'payload erased', detail: `enrichment ${enrichment} of ${name} erased by entry ${at}` };
      return { reason: 'payload missing', detail: `enrichment ${enrichment} of ${name} is not stored` };
    }
    if (digestBytes(bytes) !== enrichment) return { reason: 'payload digest mismatch', detail: `the enrichment given for ${enrichment} hashes to ${digestBytes(bytes)}` };
    try {
      additions[enrichment] = parseJson(utf8.decode(bytes)) as Json;
    } catch {
      return { reason: 'payload digest mismatch', detail: `enrichment ${enrichment} is not JSON` };
    }
  }
  return { additions };
}
