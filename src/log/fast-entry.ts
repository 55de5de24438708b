// decodeEntry's contract (canonical JSON, the header fields) at bundle speed: one JSON.parse and
// one canonical re-serialization compared with the text. Anything unusual (escaped surrogates,
// deep nesting, a bad field) goes to decodeEntry itself, which throws the precise error.
import { utf8 } from '../canonical/index.js';
import { decodeEntry, ENTRY_TYPES, ENTRY_VERSION, type Entry, type EntryType } from './entry.js';
import { scanCanonical } from './canonical-scan.js';
import { isHeads } from './heads.js';

const ESCAPED_SURROGATE = /\\u[dD][89a-fA-F]/;
const HEX64 = /^[0-9a-f]{64}$/;
const MAX_DEPTH = 64;

/**
 * RFC 8785 for values JSON.parse produced: object keys sorted by UTF-16 code units (the default
 * sort), strings and numbers as ECMAScript JSON.stringify writes them (what JCS specifies).
 * Returns undefined past MAX_DEPTH.
 */
export function canonicalOf(v: unknown, depth = 0): string | undefined {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (depth >= MAX_DEPTH) return undefined;
  if (Array.isArray(v)) {
    let s = '[';
    for (let i = 0; i < v.length; i++) {
      const c = canonicalOf(v[i], depth + 1);
      if (c === undefined) return undefined;
      s += i === 0 ? c : `,${c}`;
    }
    return `${s}]`;
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  let s = '{';
  for (let i = 0; i < keys.length; i++) {
    const c = canonicalOf(o[keys[i]], depth + 1);
    if (c === undefined) return undefined;
    s += `${i === 0 ? '' : ','}${JSON.stringify(keys[i])}:${c}`;
  }
  return `${s}}`;
}

/** Every object's keys already in JCS order (and no nesting past MAX_DEPTH). */
function sortedDeep(v: unknown, depth: number): boolean {
  if (v === null || typeof v !== 'object') return true;
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(v)) {
    for (const x of v) if (!sortedDeep(x, depth + 1)) return false;
    return true;
  }
  let prev: string | undefined;
  for (const k in v) {
    if (prev !== undefined && !(prev < k)) return false;
    prev = k;
    if (!sortedDeep((v as Record<string, unknown>)[k], depth + 1)) return false;
  }
  return true;
}

/**
 * JSON.stringify writes keys in the parsed text's order and strings and numbers the JCS way: so
 * a text equal to JSON.stringify of its own parse, with every object's keys sorted, is canonical.
 * (Integer-like keys, which V8 reorders, simply fail here and take decodeEntry's full check.)
 */
export function isCanonical(v: unknown, text: string): boolean {
  return JSON.stringify(v) === text && sortedDeep(v, 0);
}

/**
 * decodeEntry's contract, fast. `canonical`: scanCanonical already passed these very bytes' text
 * (log verify's reading thread, verify-pages.ts markCanonical), so it is not scanned again.
 */
export function readEntry(bytes: Uint8Array, canonical = false): Entry {
  let text: string;
  let v: Record<string, unknown>;
  let scanned: boolean;
  try {
    text = utf8.decode(bytes); // the platform's strict decoder where installed (Node: 15x a TextDecoder's rate)
    // A text the scan passes has no \u escape but \u00xx: no escaped surrogate to look for.
    scanned = canonical || scanCanonical(text);
    if (!scanned && ESCAPED_SURROGATE.test(text)) return decodeEntry(bytes);
    v = JSON.parse(text);
  } catch {
    return decodeEntry(bytes);
  }
  if (
    typeof v !== 'object' || v === null || Array.isArray(v) ||
    v.v !== ENTRY_VERSION || typeof v.log !== 'string' || v.log === '' || !Number.isSafeInteger(v.seq) || (v.seq as number) < 0 ||
    typeof v.prev !== 'string' || !HEX64.test(v.prev) || !ENTRY_TYPES.includes(v.type as EntryType) || typeof v.time !== 'string' ||
    (v.heads !== undefined && !isHeads(v.heads, v.seq as number)) || !(scanned || isCanonical(v, text))
  ) {
    return decodeEntry(bytes);
  }
  // The time format is decodeEntry's to judge: rare enough to ask it only when it differs.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/.test(v.time as string)) return decodeEntry(bytes);
  return v as unknown as Entry;
}
