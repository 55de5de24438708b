// The log thread gets bodies already canonical (encodeBody), and splices the header fields in:
// the bytes it writes must be exactly encodeEntry's from the body object, for bodies whose keys
// sort before, between and after each header field, and a body encodeEntry refuses must be refused
// by encodeBody with the same code and message (so an append fails the same way on either path).
import { describe, expect, it } from 'vitest';
import { encodeBody, encodeEntry, type EntryBody } from '../../src/log/index.js';

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Around each header field ("log", "prev", "seq", "v") in UTF-16 order, and the extremes.
const KEYS = ['', 'A', 'a', 'l', 'lo', 'loa', 'loh', 'log0', 'logs', 'p', 'pre', 'preu', 'prev0', 'prevs', 'q', 's', 'se', 'sep', 'seq0', 'seqs', 'u', 'uu', 'v0', 'va', 'w', 'zz', 'é', '\uD83D\uDE00', '\uFFFF', 'type', 'time'];

function value(r: () => number, depth: number): unknown {
  const k = r();
  if (depth <= 0 || k < 0.5) return [null, true, 1, -2.5, 'x', 'é\n"', 1e21][Math.floor(r() * 7)];
  if (k < 0.75) return Array.from({ length: Math.floor(r() * 3) }, () => value(r, depth - 1));
  const o: Record<string, unknown> = {};
  for (let i = 0; i < Math.floor(r() * 4); i++) o[KEYS[Math.floor(r() * KEYS.length)]] = value(r, depth - 1);
  return o;
}

function outcome(f: () => Uint8Array): { bytes: string } | { code: string; message: string } {
  try {
    return { bytes: Buffer.from(f()).toString('utf8') };
  } catch (e) {
    return { code: (e as { code: string }).code, message: (e as Error).message };
  }
}

describe('encodeBody + encodeEntry', () => {
  it('writes the bytes encodeEntry writes from the object, for 5,000 seeded bodies', () => {
    const r = rng(99);
    const prev = 'ab'.repeat(32);
    for (let i = 0; i < 5_000; i++) {
      const body: Record<string, unknown> = { type: 'decision', time: '2026-12-02T10:00:00Z' };
      for (let j = 0; j < Math.floor(r() * 8); j++) body[KEYS[Math.floor(r() * KEYS.length)]] = r() < 0.05 ? undefined : value(r, 3);
      const seq = Math.floor(r() * 1e9);
      const origin = r() < 0.5 ? 'vouch.local/default' : 'example.com/log é';
      const want = outcome(() => encodeEntry(origin, seq, prev, body as EntryBody));
      expect(outcome(() => encodeEntry(origin, seq, prev, encodeBody(body as EntryBody)))).toEqual(want);
    }
  });

  it('an empty run and a body with members only after "v" or only before "log"', () => {
    for (const body of [{ type: 'pin', time: 't' }, { type: 'pin', time: 't', zz: 1 }, { type: 'pin', time: 't', a: 1 }, { type: 'pin', time: 't', a: 1, lz: 2, pz: 3, sz: 4, w: 5 }] as EntryBody[]) {
      expect(outcome(() => encodeEntry('o', 0, '00'.repeat(32), encodeBody(body)))).toEqual(outcome(() => encodeEntry('o', 0, '00'.repeat(32), body)));
    }
  });

  it('refuses what encodeEntry refuses, with the same code and message', () => {
    const deep = (n: number): unknown => (n === 0 ? 1 : [deep(n - 1)]);
    const bad: Record<string, unknown>[] = [
      { type: 'decision', time: 't', seq: 1 },
      { type: 'decision', time: 't', v: 2 },
      { type: 'decision', time: 't', log: 'x' },
      { type: 'decision', time: 't', prev: 'x' },
      { type: 'decision', time: 't', n: Number.NaN },
      { type: 'decision', time: 't', s: 'lone \uD800' },
      { type: 'decision', time: 't', ['\uDC00']: 1 },
      { type: 'decision', time: 't', f: () => 1 },
      { type: 'decision', time: 't', d: new Date(0) },
      { type: 'decision', time: 't', deep: deep(63) }, // depth 64 inside the entry: allowed
      { type: 'decision', time: 't', deep: deep(64) }, // depth 65: too deep
    ];
    for (const body of bad) {
      const want = outcome(() => encodeEntry('o', 3, '00'.repeat(32), body as EntryBody));
      expect(outcome(() => encodeEntry('o', 3, '00'.repeat(32), encodeBody(body as EntryBody)))).toEqual(want);
    }
    expect(outcome(() => encodeBody({ type: 'decision', time: 't', deep: deep(63) } as EntryBody).encoded as never)).not.toHaveProperty('code');
    expect(outcome(() => encodeBody({ type: 'decision', time: 't', deep: deep(64) } as EntryBody) as never)).toMatchObject({ code: 'ERR_TOO_DEEP' });
  });
});
