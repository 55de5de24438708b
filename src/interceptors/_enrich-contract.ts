// The enricher contract (docs/enrichers.md), enforced by vouch and not by the enricher: of what an
// enricher answers, keep only assistant-audience text blocks appended to `content` and one record
// under `_meta["io.vouch/enrichment"]`, each bounded in size; every other change is a violation,
// discarded and named. Pure: the same answer gives the same addition live and in every replay.
import { canonicalBytes, canonicalText, escapePointer, isPlainObject, type Json } from '../canonical/index.js';

/** Where the structured record goes, in an enricher's answer and in the result the client gets. */
export const ENRICHMENT_META = 'io.vouch/enrichment';

/** Per enricher: at most this many appended blocks, this much text (UTF-16 units) and this large a record. */
export const MAX_ENRICHMENT_BLOCKS = 4;
export const MAX_ENRICHMENT_TEXT = 8_192;
export const MAX_ENRICHMENT_RECORD_BYTES = 16_384;
/** At most this many violations are named (an answer that rewrote everything names the first ones). */
const MAX_VIOLATIONS = 8;

/** What one enricher added, as vouch keeps it: the text blocks and the record (each may be absent). */
export interface Addition {
  content?: Json[];
  record?: Json;
}

export interface Enforced {
  addition: Addition;
  /** Changes that were not additions (discarded), by JSON Pointer into the result. */
  violations: string[];
  /** What the size bounds cut or dropped. */
  bounded: string[];
}

// A member one side lacks is `undefined` there: equal only when both lack it.
const same = (a: unknown, b: unknown) => (a === undefined || b === undefined ? a === b : canonicalText(a) === canonicalText(b));

/** A model-visible block of the one shape an enricher may append. */
function isAnnotationBlock(b: unknown): b is { type: 'text'; text: string; annotations: { audience: ['assistant'] } } {
  if (!isPlainObject(b) || b.type !== 'text' || typeof b.text !== 'string') return false;
  if (Object.keys(b).some((k) => k !== 'type' && k !== 'text' && k !== 'annotations')) return false;
  const a = b.annotations;
  return isPlainObject(a) && Object.keys(a).length === 1 && Array.isArray(a.audience) && a.audience.length === 1 && a.audience[0] === 'assistant';
}

/**
 * Compare `answer` with `given` (the result the enricher was handed) and keep only the allowed
 * additions. `given` is what vouch builds the output from: nothing of `answer` but the addition
 * ever reaches the client.
 */
export function enforceContract(given: Json, answer: unknown): Enforced {
  const violations: string[] = [];
  const bounded: string[] = [];
  const violate = (v: string) => {
    if (violations.length < MAX_VIOLATIONS) violations.push(v);
  };
  const addition: Addition = {};
  if (!isPlainObject(answer) || !isPlainObject(given)) {
    if (!same(answer, given)) violate('/: the answer is not the result it was given plus additions');
    return { addition, violations, bounded };
  }
  for (const k of new Set([...Object.keys(given), ...Object.keys(answer)])) {
    if (k === 'content' || k === '_meta') continue;
    if (!same(given[k], answer[k])) violate(`/${escapePointer(k)}`);
  }
  addition.content = appendedBlocks(given.content, answer.content, violate, bounded);
  if (addition.content.length === 0) delete addition.content;
  const record = metaRecord(given._meta, answer._meta, violate);
  if (record !== undefined) {
    const size = canonicalBytes(record).length;
    if (size > MAX_ENRICHMENT_RECORD_BYTES) bounded.push(`record dropped: ${size} bytes, over ${MAX_ENRICHMENT_RECORD_BYTES}`);
    else addition.record = record;
  }
  return { addition, violations, bounded };
}

function appendedBlocks(given: unknown, answer: unknown, violate: (v: string) => void, bounded: string[]): Json[] {
  if (same(given, answer)) return [];
  // Only a result that has content can be annotated: creating `content` would change its shape.
  if (!Array.isArray(given) || !Array.isArray(answer)) {
    violate('/content');
    return [];
  }
  const prefixKept = answer.length >= given.length && given.every((b, i) => same(b, answer[i]));
  if (!prefixKept) {
    // Rewritten or removed blocks: nothing of this answer's content is taken, not even its tail
    // (which block is "appended" cannot be told once the ones before it moved).
    for (let i = 0; i < Math.max(given.length, answer.length); i++) if (!same(given[i], answer[i])) violate(`/content/${i}`);
    return [];
  }
  const out: Json[] = [];
  let budget = MAX_ENRICHMENT_TEXT;
  for (let i = given.length; i < answer.length; i++) {
    const b = answer[i];
    if (!isAnnotationBlock(b)) {
      violate(`/content/${i}: not a text block addressed to the assistant alone`);
      continue;
    }
    if (out.length >= MAX_ENRICHMENT_BLOCKS) {
      bounded.push(`block /content/${i} dropped: more than ${MAX_ENRICHMENT_BLOCKS} blocks`);
      continue;
    }
    if (budget <= 0) {
      bounded.push(`block /content/${i} dropped: text over ${MAX_ENRICHMENT_TEXT} characters`);
      continue;
    }
    let text = b.text;
    if (text.length > budget) {
      bounded.push(`block /content/${i} cut from ${text.length} to ${budget} characters`);
      text = cutText(text, budget);
    }
    budget -= text.length;
    out.push({ type: 'text', text, annotations: { audience: ['assistant'] } });
  }
  return out;
}

/** At most `max` UTF-16 units, never splitting a surrogate pair. */
function cutText(text: string, max: number): string {
  let end = max;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

function metaRecord(given: unknown, answer: unknown, violate: (v: string) => void): Json | undefined {
  const g = isPlainObject(given) ? given : {};
  if (answer !== undefined && !isPlainObject(answer)) {
    violate('/_meta');
    return undefined;
  }
  const a = answer ?? {};
  for (const k of new Set([...Object.keys(g), ...Object.keys(a)])) {
    if (k === ENRICHMENT_META) continue;
    if (!same(g[k], a[k])) violate(`/_meta/${escapePointer(k)}`);
  }
  const record = a[ENRICHMENT_META];
  if (record === undefined) return undefined;
  if (!isPlainObject(record)) {
    violate(`/_meta/${escapePointer(ENRICHMENT_META)}: must be an object`);
    return undefined;
  }
  return record as Json;
}
