// Where two JSON values differ, as RFC 6901 JSON Pointers: what a replay mismatch reports, so
// an auditor sees "/decision/results/3/valid" instead of two long canonical strings.

/** RFC 6901 section 3: `~` is written `~0` and `/` is written `~1`. */
export function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Every path where `a` and `b` differ, deepest first reached, in key order; a value present on
 * one side only is reported at its own path. At most `limit` paths (a whole-tree rewrite would
 * otherwise list every leaf).
 */
export function diffJson(a: unknown, b: unknown, base = '', limit = 50): string[] {
  const out: string[] = [];
  walk(a, b, base, out, limit);
  return out;
}

function walk(a: unknown, b: unknown, path: string, out: string[], limit: number): void {
  if (out.length >= limit) return;
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n && out.length < limit; i++) {
      if (i >= a.length || i >= b.length) out.push(`${path}/${i}`);
      else walk(a[i], b[i], `${path}/${i}`, out, limit);
    }
    return;
  }
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) {
      if (out.length >= limit) return;
      const p = `${path}/${escapePointer(k)}`;
      if (!(k in a) || !(k in b)) out.push(p);
      else walk(a[k], b[k], p, out, limit);
    }
    return;
  }
  if (a !== b) out.push(path);
}
