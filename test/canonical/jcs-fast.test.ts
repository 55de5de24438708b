// canonicalText serializes and checks in one pass. This holds it to the reference it replaced: the
// `canonicalize` package's text (a devDependency now, RFC 8785's serializer) for every value the
// check accepts, and assertJson's exact error (code, message, culprit's path) for every value it
// refuses, over seeded random JSON-like values that include each thing JCS refuses, at every depth.
import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { assertJson, canonicalText, MAX_DEPTH } from '../../src/canonical/jcs.js';
import { rng } from '../helpers/rng.js';

/** The previous canonicalText: check the whole value, then the package's serialization. */
function reference(v: unknown): { text: string } | { error: unknown } {
  try {
    assertJson(v);
    const text = canonicalize(v);
    if (text === undefined) throw new Error('no JSON form');
    return { text };
  } catch (error) {
    return { error };
  }
}

function actual(v: unknown): { text: string } | { error: unknown } {
  try {
    return { text: canonicalText(v) };
  } catch (error) {
    return { error };
  }
}

const STRINGS = ['', 'a', 'b', 'A', '10', '2', '__proto__', 'toJSON', 'é', 'e\u0301', '\u20ac', '\uD83D\uDE00', '\uE000', '\uFFFF', '"q"', '\\', '\n\t\b\f\r', '\u0000\u001f\u007f', '\u2028\u2029', 'κλειδί', 'constructor'];
const BAD_STRINGS = ['\uD800', 'x\uDC00', '\uDBFF\uDBFF', '\uDE00\uD83D'];
const NUMBERS = [0, -0, 1, -1, 1.5, 1e21, 1e-7, 123456789012345680000, 5e-324, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, 0.1 + 0.2, -1e-300];

function gen(r: () => number, depth: number, bad: number): unknown {
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const k = r();
  if (bad > 0 && k < bad) {
    return pick<unknown>([NaN, Infinity, -Infinity, pick(BAD_STRINGS), () => 1, 1n, Symbol('s'), new Date(0), new Map(), undefined, Object.create({ inherited: 1 })]);
  }
  if (depth <= 0 || k < 0.45) return pick<unknown>([null, true, false, pick(STRINGS), pick(NUMBERS), Math.floor(r() * 1e6) / 1e3]);
  if (k < 0.7) return Array.from({ length: Math.floor(r() * 4) }, () => gen(r, depth - 1, bad));
  const o: Record<string, unknown> = r() < 0.1 ? Object.create(null) : {};
  const n = Math.floor(r() * 6);
  for (let i = 0; i < n; i++) o[r() < 0.05 && bad > 0 ? pick(BAD_STRINGS) : pick(STRINGS) + (r() < 0.3 ? String(i) : '')] = r() < 0.05 ? undefined : gen(r, depth - 1, bad);
  return o;
}

function nest(depth: number, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { k: v };
  return v;
}

describe('canonicalText against the package and assertJson', () => {
  it('equal text for 20,000 seeded values JCS accepts, equal error for those it refuses', () => {
    const r = rng(2624);
    let accepted = 0;
    let refused = 0;
    for (let i = 0; i < 20_000; i++) {
      const v = gen(r, 1 + Math.floor(r() * 6), i % 2 ? 0.02 : 0);
      const want = reference(v);
      const got = actual(v);
      if ('text' in want) {
        accepted++;
        expect(got).toEqual(want);
      } else {
        refused++;
        expect('error' in got).toBe(true);
        const e = (got as { error: { code: string; message: string; issues: unknown } }).error;
        const w = want.error as { code: string; message: string; issues: unknown };
        expect(w.issues).toBeInstanceOf(Array); // the culprit's path is compared, not two undefineds
        expect({ code: e.code, message: e.message, issues: e.issues }).toEqual({ code: w.code, message: w.message, issues: w.issues });
      }
    }
    // Both halves are exercised, or the comparison proves nothing.
    expect(accepted).toBeGreaterThan(10_000);
    expect(refused).toBeGreaterThan(1_000);
  });

  it('depth: MAX_DEPTH levels pass, one more is ERR_TOO_DEEP at the same path, for a leaf of every kind', () => {
    for (const leaf of [1, 'x', null, [], {}]) {
      expect(actual(nest(MAX_DEPTH, leaf))).toEqual(reference(nest(MAX_DEPTH, leaf)));
      const deep = nest(MAX_DEPTH + 1, leaf);
      const want = reference(deep) as { error: { code: string; issues: { path: string }[] } };
      const got = actual(deep) as { error: { code: string; issues: unknown } };
      expect(want.error.code).toBe('ERR_TOO_DEEP');
      expect(want.error.issues[0].path.length).toBeGreaterThan(MAX_DEPTH);
      expect([got.error.code, got.error.issues]).toEqual([want.error.code, want.error.issues]);
    }
  });

  it('a key with a lone surrogate is refused even when its value is undefined', () => {
    const v = { ['\uD800']: undefined, a: 1 };
    expect((actual(v) as { error: { code: string } }).error.code).toBe('ERR_NOT_CANONICAL');
    expect('error' in reference(v)).toBe(true);
  });

  it('sorts integer-like keys as strings and keeps a "toJSON" member as data', () => {
    expect(canonicalText({ 10: 1, 2: 2, a: 3, '': 4 })).toBe('{"":4,"10":1,"2":2,"a":3}');
    expect(canonicalText({ toJSON: 'x', b: 1, a: 2 })).toBe('{"a":2,"b":1,"toJSON":"x"}');
    expect(canonicalText({ '\uE000': 1, '\uD83D\uDE00': 2 })).toBe('{"\uD83D\uDE00":2,"\uE000":1}'); // UTF-16 code units, not code points
  });
});
