// The reused zlib handle (src/store/inflate-raw.ts) against node:zlib's inflateRawSync, the
// answer it must give: for good rows, rows cut short, rows with bytes after the stream's end,
// flipped bytes, the wrong dictionary, output past the handle's room and past the cap, the same
// bytes or an error, row after row on the same handle (a failed row must not spoil the next).
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { rawInflater } from '../../src/store/inflate-raw.js';
import { rng } from '../helpers/rng.js';

const enc = new TextEncoder();
const entry = (r: () => number, len: number): Uint8Array => {
  let s = '{"decision":{"effect":"allow"},"seq":';
  while (s.length < len) s += `${Math.floor(r() * 1e6)},"k${Math.floor(r() * 40)}":"${'xyz'.repeat(Math.floor(r() * 8))}"`;
  return enc.encode(s);
};

/** inflateRawSync's answer: the bytes, or that it threw. */
function reference(stored: Uint8Array, dictionary: Uint8Array, max: number): Buffer | 'throws' {
  try {
    return inflateRawSync(stored, { dictionary, maxOutputLength: max });
  } catch {
    return 'throws';
  }
}

/** The inflater's bytes (after its 0x00 leaf prefix, which must be there). */
function ours(inflate: (b: Uint8Array) => Buffer, stored: Uint8Array): Buffer | 'throws' {
  try {
    const p = inflate(stored);
    expect(p[0]).toBe(0);
    return p.subarray(1);
  } catch {
    return 'throws';
  }
}

describe('rawInflater: the same answer as inflateRawSync, on one reused handle', () => {
  it('agrees over 3,000 rows, good and damaged, in a random order', () => {
    const r = rng(40_1);
    const dictionary = entry(r, 6000);
    const other = entry(r, 6000);
    const MAX = 4 * 1024 * 1024;
    const inflate = rawInflater(dictionary, MAX);
    expect(inflate.fast, 'Node 20 zlib: the reused handle is taken (else this test checks only inflateRawSync against itself)').toBe(true);
    const kinds = new Map<string, number>();
    for (let i = 0; i < 3000; i++) {
      const plain = entry(r, 50 + Math.floor(r() * 3000));
      let stored: Uint8Array = deflateRawSync(plain, { dictionary, level: 6 });
      const k = Math.floor(r() * 6);
      const kind = ['good', 'cut', 'trailing', 'flipped', 'wrong dictionary', 'empty'][k];
      if (kind === 'cut') stored = stored.subarray(0, Math.floor(r() * stored.length));
      if (kind === 'trailing') stored = Buffer.concat([stored, Buffer.from([Math.floor(r() * 256), 7, 7])]);
      if (kind === 'flipped') (stored = Uint8Array.from(stored))[Math.floor(r() * stored.length)] ^= 1 << Math.floor(r() * 8);
      if (kind === 'wrong dictionary') stored = deflateRawSync(plain, { dictionary: other, level: 6 });
      if (kind === 'empty') stored = new Uint8Array(0);
      const want = reference(stored, dictionary, MAX);
      const got = ours(inflate, stored);
      if (want === 'throws') expect(got, `${kind} row ${i}`).toBe('throws');
      else {
        expect(got, `${kind} row ${i}`).not.toBe('throws');
        expect(Buffer.compare(got as Buffer, want), `${kind} row ${i}`).toBe(0);
      }
      if (kind === 'good') expect(Buffer.compare(got as Buffer, Buffer.from(plain))).toBe(0);
      kinds.set(`${kind} ${want === 'throws' ? 'throws' : 'bytes'}`, (kinds.get(`${kind} ${want === 'throws' ? 'throws' : 'bytes'}`) ?? 0) + 1);
    }
    // Both outcomes were exercised: good rows inflate, cut and empty ones throw.
    expect(kinds.get('good bytes')).toBeGreaterThan(300);
    expect(kinds.get('cut throws')).toBeGreaterThan(300);
    expect(kinds.get('empty throws')).toBeGreaterThan(300);
  });

  it('output past the handle room (64 KiB) and past the cap: the slow path answers, the next row is fast again', () => {
    const r = rng(40_2);
    const dictionary = entry(r, 4000);
    const inflate = rawInflater(dictionary, 100_000);
    const big = entry(r, 90_000);
    const huge = entry(r, 150_000);
    const small = entry(r, 900);
    for (const [plain, ok] of [[big, true], [huge, false], [small, true], [entry(r, 64 * 1024 - 1), true], [entry(r, 65 * 1024), true], [small, true]] as const) {
      const got = ours(inflate, deflateRawSync(plain, { dictionary }));
      if (ok) expect(Buffer.compare(got as Buffer, Buffer.from(plain))).toBe(0);
      else expect(got).toBe('throws');
    }
  });

  it('a cap below the handle\'s room is inflateRawSync\'s cap', () => {
    const r = rng(40_3);
    const dictionary = entry(r, 2000);
    const inflate = rawInflater(dictionary, 1000);
    expect(ours(inflate, deflateRawSync(entry(r, 999).subarray(0, 999), { dictionary }))).not.toBe('throws');
    expect(ours(inflate, deflateRawSync(entry(r, 1200), { dictionary }))).toBe('throws');
    expect(reference(deflateRawSync(entry(r, 1200), { dictionary }), dictionary, 1000)).toBe('throws');
  });

  it('several dictionaries at once keep their own handles', () => {
    const r = rng(40_4);
    const dicts = Array.from({ length: 7 }, () => entry(r, 3000));
    for (let i = 0; i < 200; i++) {
      const d = dicts[Math.floor(r() * dicts.length)];
      const plain = entry(r, 500 + Math.floor(r() * 1500));
      expect(Buffer.compare(rawInflater(d, 1 << 22)(deflateRawSync(plain, { dictionary: d })).subarray(1), Buffer.from(plain))).toBe(0);
    }
  });
});
