// RFC 8785 pairs from cyberphone/json-canonicalization (fixtures/vectors/jcs, Apache-2.0).
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalBytes, canonicalText, digestJson, fromBase64, fromHex, parseJson, toBase64, toHex } from '../../src/canonical/index.js';

const dir = new URL('../../fixtures/vectors/jcs/', import.meta.url);

describe('JCS (RFC 8785) vectors', () => {
  const names = readdirSync(new URL('input/', dir)).map((f) => f.replace(/\.json$/, ''));
  it('has the six upstream pairs', () => expect(names.sort()).toEqual(['arrays', 'french', 'structures', 'unicode', 'values', 'weird']));
  for (const name of names) {
    it(`${name}: bytes equal the expected output exactly`, () => {
      const input = JSON.parse(readFileSync(new URL(`input/${name}.json`, dir), 'utf8'));
      const expected = readFileSync(new URL(`output/${name}.json`, dir));
      const hex = readFileSync(new URL(`outhex/${name}.txt`, dir), 'utf8').trim().split(/\s+/).join('');
      const got = canonicalBytes(input);
      expect(Buffer.from(got).equals(expected)).toBe(true);
      expect(toHex(got)).toBe(hex);
    });
  }
  it('serializes the ES6 number samples', () => {
    const lines = readFileSync(new URL('es6-number-samples.txt', dir), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
    expect(lines.length).toBe(7);
    for (const line of lines) {
      const [hex, want] = line.split(',');
      const num = Buffer.from(hex.padStart(16, '0'), 'hex').readDoubleBE(0);
      if (!Number.isFinite(num)) {
        expect(() => canonicalText(num)).toThrow(expect.objectContaining({ code: 'ERR_NOT_CANONICAL' }));
      } else {
        expect(canonicalText(num)).toBe(want);
      }
    }
  });
});

describe('refusals', () => {
  it.each([
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['lone high surrogate', { a: '\uD800x' }],
    ['lone low surrogate key', { '\uDC00': 1 }],
    ['function', { f: () => 1 }],
    ['bigint', { n: 1n }],
  ])('%s is ERR_NOT_CANONICAL', (_n, v) => {
    expect(() => canonicalBytes(v)).toThrow(expect.objectContaining({ code: 'ERR_NOT_CANONICAL' }));
  });
  it('refuses nesting past the limit', () => {
    let v: unknown = 1;
    for (let i = 0; i < 100; i++) v = [v];
    expect(() => canonicalBytes(v)).toThrow(expect.objectContaining({ code: 'ERR_TOO_DEEP' }));
    expect(() => parseJson(JSON.stringify(v))).toThrow(expect.objectContaining({ code: 'ERR_TOO_DEEP' }));
  });
  it('parseJson gives ERR_JSON_PARSE on malformed text', () => {
    expect(() => parseJson('{"a":')).toThrow(expect.objectContaining({ code: 'ERR_JSON_PARSE' }));
  });
});

describe('encodings and digests', () => {
  it('digest of JCS bytes is sha256:<hex>', () => {
    // sha256("{}") computed independently with coreutils.
    expect(digestJson({})).toBe('sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
    expect(digestJson({ b: 1, a: 2 })).toBe(digestJson({ a: 2, b: 1 }));
  });
  it('base64 round-trips and rejects non-canonical text', () => {
    for (let n = 0; n < 40; n++) {
      const b = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 255);
      expect(fromBase64(toBase64(b))).toEqual(b);
      expect(toBase64(b)).toBe(Buffer.from(b).toString('base64'));
    }
    expect(() => fromBase64('QQ')).toThrow();
    expect(() => fromBase64('QR==')).toThrow(); // non-zero padding bits
    expect(() => fromBase64('Q Q==')).toThrow();
  });
  it('hex is lowercase and strict', () => {
    expect(toHex(fromHex('00ff10'))).toBe('00ff10');
    expect(() => fromHex('0')).toThrow();
    expect(() => fromHex('FF')).toThrow();
  });
});
