// One pass over an entry's JSON text that says "canonical" only where JSON.stringify of its parse
// would give the same text with every object's keys sorted (fast-entry.ts isCanonical): log verify
// ran that re-serialization per entry. Anything it does not know for sure answers false: the caller
// then takes the full check, so the verdict is never weaker.

/** Containers nested this deep fail the full check (fast-entry.ts MAX_DEPTH). */
const MAX_DEPTH = 64;

const kinds = new Uint8Array(MAX_DEPTH); // 1: object, 2: array
const keyStart = new Int32Array(MAX_DEPTH); // the previous key of each open object, -1 before its first
const keyEnd = new Int32Array(MAX_DEPTH);

const OBJECT = 1;
const VALUE = 0;
const KEY = 1;
const AFTER = 2;

/**
 * True only if `t` is certainly canonical as the full check judges it: no whitespace; keys printable
 * ASCII with no escapes, not all digits (V8 moves those first), strictly increasing; string escapes
 * exactly as JSON.stringify writes them; numbers as JSON.stringify writes their values; at most
 * MAX_DEPTH containers deep. False means "not known", never "not canonical".
 */
export function scanCanonical(t: string): boolean {
  const n = t.length;
  let i = 0;
  let depth = 0;
  let mode = VALUE;
  for (;;) {
    if (mode === AFTER) {
      if (depth === 0) return i === n;
      const c = t.charCodeAt(i);
      if (c === 0x2c) {
        i++;
        mode = kinds[depth - 1] === OBJECT ? KEY : VALUE;
      } else if (c === (kinds[depth - 1] === OBJECT ? 0x7d : 0x5d)) {
        i++;
        depth--;
      } else return false;
    } else if (mode === KEY) {
      if (t.charCodeAt(i) !== 0x22) return false;
      const s = ++i;
      let digits = true;
      for (;;) {
        const c = t.charCodeAt(i); // NaN past the end: fails every test below
        if (c === 0x22) break;
        if (!(c >= 0x20 && c <= 0x7e) || c === 0x5c) return false;
        if (c < 0x30 || c > 0x39) digits = false;
        i++;
      }
      if (digits && i > s) return false;
      const d = depth - 1;
      if (keyStart[d] >= 0 && !asciiLess(t, keyStart[d], keyEnd[d], s, i)) return false;
      keyStart[d] = s;
      keyEnd[d] = i;
      if (t.charCodeAt(i + 1) !== 0x3a) return false;
      i += 2;
      mode = VALUE;
    } else {
      const c = t.charCodeAt(i);
      if (c === 0x7b || c === 0x5b) {
        if (depth >= MAX_DEPTH) return false;
        i++;
        if (t.charCodeAt(i) === (c === 0x7b ? 0x7d : 0x5d)) {
          i++;
          mode = AFTER;
        } else {
          kinds[depth] = c === 0x7b ? OBJECT : 2;
          keyStart[depth] = -1;
          depth++;
          mode = c === 0x7b ? KEY : VALUE;
        }
        continue;
      }
      if (c === 0x22) i = skipString(t, i);
      else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) i = skipNumber(t, i);
      else if (c === 0x74) i = t.startsWith('true', i) ? i + 4 : -1;
      else if (c === 0x66) i = t.startsWith('false', i) ? i + 5 : -1;
      else if (c === 0x6e) i = t.startsWith('null', i) ? i + 4 : -1;
      else return false;
      if (i < 0) return false;
      mode = AFTER;
    }
  }
}

/** t[a, b) < t[c, d) by code units. */
function asciiLess(t: string, a: number, b: number, c: number, d: number): boolean {
  for (; a < b && c < d; a++, c++) {
    const x = t.charCodeAt(a);
    const y = t.charCodeAt(c);
    if (x !== y) return x < y;
  }
  return a === b && c < d;
}

/** The index after the string starting at t[i] (a quote), or -1 where JSON.stringify would write it otherwise. */
function skipString(t: string, i: number): number {
  for (i++; ; ) {
    const c = t.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c === 0x5c) {
      const e = t.charCodeAt(i + 1);
      if (e === 0x22 || e === 0x5c || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
        i += 2;
        continue;
      }
      // \u00xx, lowercase, only for controls without a short form
      if (e !== 0x75 || t.charCodeAt(i + 2) !== 0x30 || t.charCodeAt(i + 3) !== 0x30) return -1;
      const h = t.charCodeAt(i + 4);
      const l = t.charCodeAt(i + 5);
      if (h !== 0x30 && h !== 0x31) return -1;
      let v = (h - 0x30) * 16;
      if (l >= 0x30 && l <= 0x39) v += l - 0x30;
      else if (l >= 0x61 && l <= 0x66) v += l - 0x61 + 10;
      else return -1;
      if (v === 8 || v === 9 || v === 10 || v === 12 || v === 13) return -1;
      i += 6;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      // a pair is written as is; a lone surrogate JSON.stringify escapes
      const lo = t.charCodeAt(i + 1);
      if (c > 0xdbff || !(lo >= 0xdc00 && lo <= 0xdfff)) return -1;
      i += 2;
      continue;
    }
    if (!(c >= 0x20)) return -1; // a raw control, or the end (NaN)
    i++;
  }
}

/**
 * The index after the number starting at t[i], or -1 unless JSON.stringify writes its value as that
 * very token. Integers of at most 15 digits (not -0) are so by sight; any other number (a fraction,
 * an exponent, more digits, -0) is tested by writing its value back.
 */
function skipNumber(t: string, i: number): number {
  let j = t.charCodeAt(i) === 0x2d ? i + 1 : i;
  const first = t.charCodeAt(j);
  if (first === 0x30) j++;
  else if (first >= 0x31 && first <= 0x39) j = digitsEnd(t, j + 1);
  else return -1;
  let plain = j - i <= 15 && !(first === 0x30 && j - i === 2); // not -0
  if (t.charCodeAt(j) === 0x2e) {
    const k = digitsEnd(t, j + 1);
    if (k === j + 1) return -1;
    j = k;
    plain = false;
  }
  const e = t.charCodeAt(j);
  if (e === 0x65 || e === 0x45) {
    let k = j + 1;
    const sign = t.charCodeAt(k);
    if (sign === 0x2b || sign === 0x2d) k++;
    const end = digitsEnd(t, k);
    if (end === k) return -1;
    j = end;
    plain = false;
  }
  if (plain) return j;
  const tok = t.slice(i, j);
  return String(Number(tok)) === tok ? j : -1;
}

function digitsEnd(t: string, j: number): number {
  for (; ; j++) {
    const c = t.charCodeAt(j);
    if (!(c >= 0x30 && c <= 0x39)) return j;
  }
}
