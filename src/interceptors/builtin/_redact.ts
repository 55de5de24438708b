// The redactors' walk over a payload: every string value, every object key, and integers that
// are card or phone numbers sent as JSON numbers. Zero-width characters hidden inside a value
// neither split a match nor hide its start: detection runs on the text without them and on the
// text where each stands as a space (and a redacted text loses them).
import { resolveOverlaps, type Hit } from './_patterns.js';

type Rec = Record<string, unknown>;

/** Which invisible characters a redaction looks through: one test pattern and the same, global. */
export interface Invisible {
  test: RegExp;
  all: RegExp;
}

/**
 * Invisible characters an attacker can put inside a value to break a pattern: every format
 * character (zero-width, bidi), every Default_Ignorable_Code_Point (U+034F, variation selectors,
 * Hangul fillers, tag characters: a renderer shows nothing), and U+2800, a blank braille glyph
 * that is neither. A list of code points missed some; the Unicode properties name the class.
 */
export const INVISIBLE_CLASS = '\\p{Cf}\\p{Default_Ignorable_Code_Point}\\u2800';
const ZERO_WIDTH = new RegExp(`[${INVISIBLE_CLASS}]`, 'u');
const ZERO_WIDTH_ALL = new RegExp(ZERO_WIDTH.source, 'gu');
export const ZERO_WIDTH_CHARS: Invisible = { test: ZERO_WIDTH, all: ZERO_WIDTH_ALL };

/**
 * The hits of `s`, in the text without its invisible characters (`base`), or undefined when there
 * are none. An invisible character may split a match (`gh\u200bp_...`: found in the text without
 * it) or stand where a boundary belongs (`x\u200bghp_...`: found where each counts as a space):
 * both are looked for, and the longer of two overlapping hits wins.
 */
export function findHidden<K extends string>(s: string, r: Pick<TextRedactor<K>, 'find'>, invisible: Invisible = ZERO_WIDTH_CHARS): { base: string; hits: Hit<K>[] } | undefined {
  if (!invisible.test.test(s)) {
    const hits = r.find(s);
    return hits.length === 0 ? undefined : { base: s, hits };
  }
  const base = s.replace(invisible.all, '');
  const spaced = s.replace(invisible.all, (m) => ' '.repeat(m.length));
  // toBase[i]: the position in `base` of position i of `s` (and of `spaced`, the same length).
  const toBase = new Uint32Array(s.length + 1);
  let from = 0;
  let to = 0;
  for (const m of s.matchAll(invisible.all)) {
    for (; from < m.index; from++) toBase[from] = to++;
    for (; from < m.index + m[0].length; from++) toBase[from] = to; // an invisible one: where the next visible one lands
  }
  for (; from <= s.length; from++) toBase[from] = to++;
  const split = r.find(spaced).map((h) => ({ ...h, start: toBase[h.start], end: toBase[h.end], value: base.slice(toBase[h.start], toBase[h.end]) }));
  const hits = resolveOverlaps([...r.find(base), ...split.filter((h) => h.end > h.start)], (a, b) => b.end - b.start - (a.end - a.start));
  return hits.length === 0 ? undefined : { base, hits };
}

export interface TextRedactor<K extends string> {
  find(text: string): Hit<K>[];
  placeholder(hit: Hit<K>): string;
  /** The kind of an integer sent as a JSON number under `key`, if it is one to redact. */
  numberKind?(n: number, key: string | undefined): K | undefined;
}

export interface Redacted<K extends string> {
  payload: unknown;
  byKind: Partial<Record<K, number>>;
  total: number;
}

/** Pure: `payload` with every hit replaced; unchanged subtrees keep their identity. */
/** Passes over one string before it is taken as redacted (each pass only on what the previous one changed). */
const MAX_PASSES = 8;

export function redactPayload<K extends string>(payload: unknown, r: TextRedactor<K>, invisible: Invisible = ZERO_WIDTH_CHARS): Redacted<K> {
  const byKind: Partial<Record<K, number>> = {};
  let total = 0;
  const count = (kind: K) => {
    byKind[kind] = (byKind[kind] ?? 0) + 1;
    total += 1;
  };
  // Until nothing more is found: a replacement can give the text after it the boundary its detector
  // needs (a 255-character token cut short by its pattern, then a key id right after it), and a
  // second pass over redacted text must find nothing (replay and recorded labels rely on it).
  const text = (s: string): string => {
    let cur = s;
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const found = findHidden(cur, r, invisible);
      if (found === undefined) return cur;
      for (const h of found.hits) count(h.kind);
      let out = '';
      let at = 0;
      for (const h of found.hits) {
        out += found.base.slice(at, h.start) + r.placeholder(h);
        at = h.end;
      }
      cur = out + found.base.slice(at);
    }
    return cur;
  };
  const map = (v: unknown, key: string | undefined): unknown => {
    if (typeof v === 'string') return text(v);
    if (typeof v === 'number') {
      const kind = r.numberKind?.(v, key);
      if (kind === undefined) return v;
      count(kind);
      return r.placeholder({ kind, start: 0, end: 0, value: '' });
    }
    if (Array.isArray(v)) {
      const out = v.map((x) => map(x, key));
      return out.some((x, i) => x !== v[i]) ? out : v;
    }
    if (v !== null && typeof v === 'object') {
      const rec = v as Rec;
      const keys = Object.keys(rec);
      // Built only from the first key or value that changes: a payload with nothing to redact is
      // walked without a copy (every decision record is walked too: recorded-text.ts).
      let entries: (readonly [string, unknown])[] | undefined;
      let used: Set<string> | undefined;
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        const value = map(rec[k], k);
        const redacted = text(k);
        if (entries === undefined) {
          if (redacted === k && value === rec[k]) continue;
          entries = keys.slice(0, i).map((p) => [p, rec[p]] as const);
          used = new Set(keys.slice(0, i));
        }
        let nk = redacted;
        // Two keys redacted alike must not overwrite each other (nor an existing key): number the later ones.
        for (let n = 2; nk !== k && (used!.has(nk) || Object.hasOwn(rec, nk)); n++) nk = `${redacted}#${n}`;
        used!.add(nk);
        entries.push([nk, value]);
      }
      // fromEntries defines own properties, so a "__proto__" key stays a plain key.
      return entries ? Object.fromEntries(entries) : v;
    }
    return v;
  };
  const out = map(payload, undefined);
  return { payload: out, byKind, total };
}

/** Every text of a payload a redactor looks at: string values and object keys, zero-width characters removed. */
export function forEachText(value: unknown, visit: (text: string, path: (string | number)[]) => void): void {
  const clean = (s: string) => (ZERO_WIDTH.test(s) ? s.replace(ZERO_WIDTH_ALL, '') : s);
  const walk = (v: unknown, path: (string | number)[]): void => {
    if (typeof v === 'string') visit(clean(v), path);
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v !== null && typeof v === 'object') {
      for (const k of Object.keys(v)) {
        visit(clean(k), [...path, k]);
        walk((v as Rec)[k], [...path, k]);
      }
    }
  };
  walk(value, []);
}
