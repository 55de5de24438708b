// The redactors' walk over a payload: every string value, every object key, and integers that
// are card or phone numbers sent as JSON numbers. Zero-width characters hidden inside a value
// do not split a match: detection runs on the text without them (and a redacted text loses them).
import type { Hit } from './_patterns.js';

type Rec = Record<string, unknown>;

/** Invisible format characters an attacker can put inside a value to break a pattern. */
const ZERO_WIDTH = /[\u00AD\u180E\u200B-\u200F\u2060-\u2064\uFEFF]/;
const ZERO_WIDTH_ALL = new RegExp(ZERO_WIDTH.source, 'g');

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
export function redactPayload<K extends string>(payload: unknown, r: TextRedactor<K>): Redacted<K> {
  const byKind: Partial<Record<K, number>> = {};
  let total = 0;
  const count = (kind: K) => {
    byKind[kind] = (byKind[kind] ?? 0) + 1;
    total += 1;
  };
  const text = (s: string): string => {
    // With zero-width characters present, detection runs on the text without them (a plain hit
    // must not hide a split one next to it); the redacted text loses them.
    const base = ZERO_WIDTH.test(s) ? s.replace(ZERO_WIDTH_ALL, '') : s;
    const hits = r.find(base);
    if (hits.length === 0) return s;
    for (const h of hits) count(h.kind);
    let out = '';
    let at = 0;
    for (const h of hits) {
      out += base.slice(at, h.start) + r.placeholder(h);
      at = h.end;
    }
    return out + base.slice(at);
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
      const used = new Set<string>();
      let changed = false;
      const entries = Object.keys(rec).map((k) => {
        const value = map(rec[k], k);
        const redacted = text(k);
        let nk = redacted;
        // Two keys redacted alike must not overwrite each other (nor an existing key): number the later ones.
        for (let n = 2; nk !== k && (used.has(nk) || Object.hasOwn(rec, nk)); n++) nk = `${redacted}#${n}`;
        used.add(nk);
        if (nk !== k || value !== rec[k]) changed = true;
        return [nk, value] as const;
      });
      // fromEntries defines own properties, so a "__proto__" key stays a plain key.
      return changed ? Object.fromEntries(entries) : v;
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
