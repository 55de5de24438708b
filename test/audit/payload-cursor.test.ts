// payloads.jsonl in lockstep with the entries: a decision may have several lines (its input, then
// what its enrichers added, issue 39), and each is found by its digest. Before this, the cursor held
// one line a seq, so a bundle's enrichment was read as the input's bytes and every decision an
// enricher annotated failed replay with "payload digest mismatch" (the Workers bundle specs).
import { describe, expect, it } from 'vitest';
import { digestBytes, utf8 } from '../../src/canonical/index.js';
import { PayloadCursor } from '../../src/audit/_payload-cursor.js';
import { formatPayloadLine } from '../../src/audit/bundle-format.js';

const bytes = (s: string) => utf8.encode(s);
const line = (seq: number, text: string) => formatPayloadLine({ seq, digest: digestBytes(bytes(text)), bytes: bytes(text) }).trimEnd();
async function* lines(xs: string[]) {
  yield* xs;
}

describe('PayloadCursor', () => {
  it('finds each of a seq\'s lines by digest, input and enrichments alike, and moves on', async () => {
    const c = new PayloadCursor(lines([line(1, 'input 1'), line(1, '{"enrichment":1}'), line(1, '{"enrichment":2}'), line(3, 'input 3'), formatPayloadLine({ seq: 4, digest: digestBytes(bytes('gone')), erased: 9 }).trimEnd()]));
    const d = (t: string) => digestBytes(bytes(t));
    expect(utf8.decode((await c.payload(d('{"enrichment":2}'), 1))!)).toBe('{"enrichment":2}');
    expect(utf8.decode((await c.payload(d('input 1'), 1))!)).toBe('input 1');
    expect(utf8.decode((await c.payload(d('{"enrichment":1}'), 1))!)).toBe('{"enrichment":1}');
    expect(await c.payload(d('input 2'), 2)).toBeUndefined(); // no line for seq 2
    // A line for the seq but another digest is handed over as is (replay's digest check names it).
    expect(utf8.decode((await c.payload(d('not there'), 3))!)).toBe('input 3');
    expect(await c.erasedAt(d('gone'), 4)).toBe(9);
    expect(c.problems).toEqual([]);
  });

  it('still names a line out of order', async () => {
    const c = new PayloadCursor(lines([line(5, 'a'), line(2, 'b')]));
    await c.payload(digestBytes(bytes('a')), 5);
    await c.payload(digestBytes(bytes('z')), 6);
    expect(c.problems).toEqual([{ seq: 2, message: 'payloads.jsonl: line for seq 2 after seq 5 (out of order)' }]);
  });
});
