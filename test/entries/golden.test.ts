// Entry bytes do not change: the typed writers write, byte for byte, the log the untyped writers
// wrote from the same inputs (fixtures/entries/golden-v1.jsonl; see its README).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { goldenEntries } from './_golden.js';

describe('entry bytes', () => {
  it('every entry type is written byte-identical to the entries written before they were typed', async () => {
    const want = readFileSync(new URL('../../fixtures/entries/golden-v1.jsonl', import.meta.url), 'utf8').trim().split('\n');
    expect(await goldenEntries()).toEqual(want);
  }, 60_000);
});
