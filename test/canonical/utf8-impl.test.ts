// The installed (Node) strict UTF-8 decoder gives what the fatal TextDecoder gives, and refuses what it refuses.
import { describe, expect, it } from 'vitest';
import { utf8 } from '../../src/canonical/index.js';
import { nodeUtf8Decode } from '../../src/crypto/node-utf8.js';

const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const decodeOrErr = (f: () => string) => {
  try {
    return f();
  } catch {
    return 'ERR';
  }
};

describe('installed UTF-8 decoder', () => {
  const cases: number[][] = [
    [0x41, 0x00, 0x7f],
    [0xef, 0xbb, 0xbf, 0x41], // BOM kept
    [0xed, 0xa0, 0x80], // encoded surrogate
    [0xc0, 0x80], // overlong NUL
    [0xe0, 0x80, 0xaf], // overlong
    [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
    [0xe2, 0x82], // truncated
    [0x80], // lone continuation
    [0xf0, 0x9f, 0x98, 0x80], // U+1F600
    [0xc3, 0xa9, 0x22, 0x5c],
  ];
  it.each(cases.map((c) => [c.map((b) => b.toString(16)).join(' '), c]))('%s decodes as the fatal TextDecoder does', (_, c) => {
    const b = Uint8Array.from(c as number[]);
    const want = decodeOrErr(() => fatal.decode(b));
    expect(nodeUtf8Decode(b) ?? 'ERR').toBe(want);
    expect(decodeOrErr(() => utf8.decode(b))).toBe(want);
  });
  it('decodes a view into a larger buffer by its own bounds', () => {
    const big = new TextEncoder().encode('xx{"a":"é"}yy');
    expect(nodeUtf8Decode(big.subarray(2, big.length - 2))).toBe('{"a":"é"}');
  });
});
