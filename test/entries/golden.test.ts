// Entry bytes do not change: the typed writers write, byte for byte, the log the untyped writers
// wrote from the same inputs (fixtures/entries/golden-v1.jsonl; see its README), plus the `heads`
// header field the log adds since issue 35 (the state each entry commits to), which must be exactly
// what the entries before it make (`prev`, the leaf hash of the entry before, differs with it).
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { canonicalText } from '../../src/canonical/index.js';
import { HeadsRebuild } from '../../src/log/index.js';
import { goldenEntries } from './_golden.js';

describe('entry bytes', () => {
  it('every entry type is written byte-identical to the entries written before they were typed, plus its heads', async () => {
    const want = readFileSync(new URL('../../fixtures/entries/golden-v1.jsonl', import.meta.url), 'utf8').trim().split('\n');
    const got = await goldenEntries();
    const rebuild = new HeadsRebuild();
    const validate = new Ajv({ strict: false, allErrors: true }).compile(JSON.parse(readFileSync(new URL('../../docs/entries.schema.json', import.meta.url), 'utf8')));
    const withoutHeads = got.map((line) => {
      const e = JSON.parse(line);
      expect(e.heads).toBeDefined();
      expect(rebuild.visit(e)).toBeUndefined();
      expect(validate(e), JSON.stringify(validate.errors)).toBe(true);
      delete e.heads;
      delete e.prev; // the previous entry's leaf hash: its bytes now hold heads too
      return canonicalText(e);
    });
    expect(withoutHeads).toEqual(want.map((l) => {
      const e = JSON.parse(l);
      delete e.prev;
      return canonicalText(e);
    }));
    // The last entry commits to every policy, pin and erasure entry of the log.
    const types = got.map((l) => JSON.parse(l).type as string);
    const last = JSON.parse(got.at(-1)!);
    for (const t of ['policy', 'pin', 'erasure'] as const) {
      const seqs = types.flatMap((x, i) => (x === t ? [i] : []));
      expect(last.heads[t]).toEqual([seqs.length, seqs.at(-1)]);
    }
  }, 60_000);
});
