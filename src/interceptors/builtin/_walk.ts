// Walks every string value of a JSON payload at any depth (arguments, content[].text,
// structuredContent, messages...). Keys are content too for the redactors (_redact.ts) and joinStrings.
import { forEachText } from './_redact.js';

export type PathSegment = string | number;

/** Visits every string value with its path, in document order. */
export function forEachString(value: unknown, visit: (text: string, path: PathSegment[]) => void): void {
  walk(value, []);
  function walk(v: unknown, path: PathSegment[]): void {
    if (typeof v === 'string') visit(v, path);
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v !== null && typeof v === 'object') {
      for (const k of Object.keys(v)) walk((v as Record<string, unknown>)[k], [...path, k]);
    }
  }
}

/**
 * Returns `value` with every string passed through `fn`. Unchanged subtrees keep their
 * identity, so a payload with nothing to change comes back as the same object.
 */
export function mapStrings(value: unknown, fn: (text: string, path: PathSegment[]) => string): unknown {
  return map(value, []);
  function map(v: unknown, path: PathSegment[]): unknown {
    if (typeof v === 'string') return fn(v, path);
    if (Array.isArray(v)) {
      const out = v.map((x, i) => map(x, [...path, i]));
      return out.some((x, i) => x !== v[i]) ? out : v;
    }
    if (v !== null && typeof v === 'object') {
      const rec = v as Record<string, unknown>;
      const entries = Object.keys(rec).map((k) => [k, map(rec[k], [...path, k])] as const);
      // fromEntries defines own properties, so a "__proto__" key stays a plain key.
      return entries.some(([k, x]) => x !== rec[k]) ? Object.fromEntries(entries) : v;
    }
    return v;
  }
}

/** Human-readable dotted path, as used in validation messages (`requestedSchema.properties.x`). */
export function formatPath(path: readonly PathSegment[]): string {
  return path.map(String).join('.');
}

/**
 * All string values and object keys (zero-width characters removed, as the redactors see them)
 * joined by NUL, which no detected secret or PII contains.
 */
export function joinStrings(value: unknown): string {
  const parts: string[] = [];
  forEachText(value, (s) => parts.push(s));
  return parts.join('\u0000');
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
