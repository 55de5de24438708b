// The one-pass canonical scan (src/log/canonical-scan.ts) against the full check it stands in for
// (fast-entry.ts isCanonical: JSON.stringify of the parse equals the text, keys sorted): on generated
// entries and on every kind of edit an attacker could make to one, the scan never says canonical
// where the full check says not, and it does say canonical for the plain entries log verify reads.
import { describe, expect, it } from 'vitest';
import { scanCanonical } from '../../src/log/canonical-scan.js';
import { canonicalOf, isCanonical } from '../../src/log/fast-entry.js';
import { rng } from '../helpers/rng.js';

const KEYS = ['a', 'b', 'ab', 'B', 'Z', '_', 'seq', 'log', 'prev', 'type', 'time', 'v', '0', '1', '10', '01', '-1', '1.5', 'é', 'ä', '\u2028', '😀', 'a"b', 'a\\b', 'a\nb', '', ' ', 'A b', '__proto__', 'zz', 'z'];
const STRINGS = ['', 'x', 'hello world', 'a"b', 'back\\slash', 'nl\nx', 'tab\tx', '\b\f\r', '\u0000', '\u001f', '\u007f', 'é', '\u2028\u2029', '😀', '\ud800', '\udc00x', '/', '<script>', 'sha256:' + 'ab'.repeat(32)];
const NUMBERS = [0, 1, -1, 42, -42, 123456789012345, -123456789012345, 1234567890123456, 2 ** 53, 2 ** 53 + 2, 0.5, -0.25, 1e21, 1e-7, 3.14, -0, 1e300];

function value(r: () => number, depth: number): unknown {
  const k = r();
  if (depth > 3 || k < 0.45) {
    const p = r();
    if (p < 0.4) return STRINGS[Math.floor(r() * STRINGS.length)];
    if (p < 0.8) return NUMBERS[Math.floor(r() * NUMBERS.length)];
    return [true, false, null][Math.floor(r() * 3)];
  }
  if (k < 0.65) return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(r() * 5); i > 0; i--) o[KEYS[Math.floor(r() * KEYS.length)]] = value(r, depth + 1);
  return o;
}

/** The full check's verdict on a text: false where it does not even parse. */
function full(t: string): boolean {
  let v: unknown;
  try {
    v = JSON.parse(t);
  } catch {
    return false;
  }
  return isCanonical(v, t);
}

const EDITS: ((t: string, r: () => number) => string)[] = [
  (t, r) => insertAt(t, r, [' ', '\n', '\t', '\r'][Math.floor(r() * 4)]),
  (t, r) => swapKeys(t, r),
  (t, r) => dupKey(t, r),
  ...(['b', 'f', 'n', 'r', 't'] as const).map((e) => (t: string) => t.replace(`\\${e}`, `\\u00${{ b: '08', f: '0c', n: '0a', r: '0d', t: '09' }[e]}`)),
  (t) => t.replace(/\\u00([0-9a-f]{2})/, (_m, h: string) => `\\u00${h.toUpperCase()}`),
  (t) => t.replace(/\//, '\\/'),
  (t) => t.replace(/"x"/, '"\\u0078"'),
  (t) => t.replace(/\\"/, '\\u0022'),
  (t) => t.replace(/é/, '\\u00e9'),
  (t) => t.replace(/😀/, '\\ud83d\\ude00'),
  (t) => t.replace(/:(-?\d+)([,}\]])/, ':$1.0$2'),
  (t) => t.replace(/:(-?\d+)([,}\]])/, ':$1e0$2'),
  (t) => t.replace(/:42([,}\]])/, ':4.2e1$1'),
  (t) => t.replace(/:1([,}\]])/, ':1E0$1'),
  (t) => t.replace(/:0([,}\]])/, ':-0$1'),
  (t) => t.replace(/:1([,}\]])/, ':01$1'),
  (t) => t.replace(/:1([,}\]])/, ':100000000000000000000$1'),
  (t) => t.replace(/:-1([,}\]])/, ':-1.5$1'),
  (t) => t.replace(/0\.5/, '0.50'),
  (t) => t.replace(/0\.5/, '5e-1'),
  (t) => t.replace(/1e\+21/, '1e21'),
  (t) => t.replace(/3\.14/, '3.140'),
  (t) => t.replace(/true/, 'tru'),
  (t) => t.replace(/null/, 'nul1'),
  (t) => `${t} `,
  (t) => `${t}{}`,
  (t) => t.slice(0, -1),
  (t) => t.replace(/"a"/, '"b"'),
  (t) => t.replace(/"z"/, '"Z"'),
  (t) => t.replace(/,/, ',,'),
  (t) => t.replace(/\[/, '[,'),
  (t, r) => { const i = Math.floor(r() * t.length); return t.slice(0, i) + t.slice(i + 1); },
  (t, r) => insertAt(t, r, String.fromCharCode(Math.floor(r() * 128))),
];

function insertAt(t: string, r: () => number, s: string): string {
  const i = Math.floor(r() * (t.length + 1));
  return t.slice(0, i) + s + t.slice(i);
}

function swapKeys(t: string, r: () => number): string {
  const keys = [...t.matchAll(/"([a-zA-Z_]+)":/g)];
  if (keys.length < 2) return t;
  const a = keys[Math.floor(r() * keys.length)];
  return t.replace(`"${a[1]}":`, '"\u0000":').replace(`"${keys[0][1]}":`, `"${a[1]}":`).replace('"\u0000":', `"${keys[0][1]}":`);
}

function dupKey(t: string, r: () => number): string {
  const m = [...t.matchAll(/\{"([a-zA-Z_]+)":/g)];
  if (m.length === 0) return t;
  const k = m[Math.floor(r() * m.length)];
  return t.replace(k[0], `{"${k[1]}":0,"${k[1]}":`);
}

function entryLike(r: () => number): Record<string, unknown> {
  return { v: 1, log: 'vouch.local', seq: Math.floor(r() * 1e9), prev: 'ab'.repeat(32), type: 'decision', time: '2026-01-01T00:00:00Z', body: value(r, 0) };
}

describe('scanCanonical against the full canonical check', () => {
  it('never says canonical where the full check does not, on generated texts and their edits', () => {
    const r = rng(8785);
    let passed = 0;
    let edited = 0;
    for (let n = 0; n < 4000; n++) {
      const base = canonicalOf(entryLike(r))!;
      const texts = [base, JSON.stringify(entryLike(r)), ...EDITS.map((e) => e(base, r))];
      for (const t of texts) {
        const scan = scanCanonical(t);
        if (scan) expect(full(t), t).toBe(true);
        if (scan) passed++;
        if (t !== base) edited++;
      }
    }
    expect(passed).toBeGreaterThan(4000);
    expect(edited).toBeGreaterThan(50_000);
  });

  it('says canonical for plain entries: ASCII keys, numbers as JSON.stringify writes them, the escapes JSON.stringify writes', () => {
    const plain = { a: 'x\n\t"\\\u0001\u001f\u007f', b: [1, -42, 0, 123456789012345, 1234567890123456, 0.4, -0.25, 1e21, 1e-7, 5e-324, true, false, null, {}, []], c: { d: 'é😀\u2028' }, time: '2026-01-01T00:00:00Z' };
    const t = canonicalOf(plain)!;
    expect(full(t)).toBe(true);
    expect(scanCanonical(t)).toBe(true);
  });

  it('leaves to the full check what it cannot be sure of, whatever the full check says', () => {
    for (const t of ['{"0":1}', '{"a":1e21}', '{"a":1.50}', '{"a":1E+21}', '{"a":0.0}', '{"a":1e400}', '{"a":1.}', '{"a":.5}', '{"a":1e}', '{"é":1}', '{"a\\nb":1}', '{"a":12345678901234567890}', '{"a":"\\ud800"}', '{"a":-0}', '{"b":1,"a":2}', '{"a":1,"a":2}', '{"a":"\\u000A"}', '{"a":"\\/"}', '{ "a":1}']) {
      expect(scanCanonical(t), t).toBe(false);
    }
    let deep = '1';
    for (let i = 0; i < 64; i++) deep = `[${deep}]`;
    expect(scanCanonical(`{"a":${deep}}`)).toBe(false);
    expect(full(`{"a":${deep}}`)).toBe(false);
    deep = '1';
    for (let i = 0; i < 63; i++) deep = `[${deep}]`;
    expect(scanCanonical(`{"a":${deep}}`)).toBe(true);
    expect(full(`{"a":${deep}}`)).toBe(true);
  });
});
