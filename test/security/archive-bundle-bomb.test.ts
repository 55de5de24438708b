// The file-level attacker (and whoever serves an archive) against the entry-bundle decoder: a
// tile-sized file (16 MiB) of zero-length entries is 8 million entries. Decoded whole before its
// count was checked it took a minute and a gigabyte on the log thread for every read of a pruned
// entry, the background audit and `vouch log verify`; no bundle holds more than 256 entries, so
// the decoder stops at the 257th.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeEntryBundle, TILE_WIDTH } from '../../src/log/index.js';
import { MAX_ARCHIVE_TILE_BYTES } from '../../src/store/archive-file.js';
import { logPath, openSqliteStore } from '../../src/store/node.js';
import { runVouch } from '../helpers/cli.js';
import { makeLog } from '../store/_archive-log.js';

const temps: string[] = [];
let archived: string; // 300 entries, archived
let pruned: string; // the same, pruned below 256
const copyOf = (dir: string): string => {
  const c = mkdtempSync(join(tmpdir(), 'vouch-bundle-bomb-'));
  temps.push(c);
  cpSync(dir, c, { recursive: true });
  return c;
};
/** The largest file the archive reader accepts at a bundle's path: every byte zero, so every two bytes an empty entry. */
const bomb = () => new Uint8Array(MAX_ARCHIVE_TILE_BYTES);

beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), 'vouch-bundle-bomb-'));
  temps.push(root);
  archived = await makeLog(300, 'agent', join(root, 'data'));
  expect((await runVouch('log', 'archive', '--data', archived)).code).toBe(0);
  pruned = copyOf(archived);
  expect((await runVouch('log', 'prune', '--data', pruned, '--tenant', 'default')).code).toBe(0);
}, 120_000);

afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

describe('an entry bundle of millions of empty entries', () => {
  it('the decoder refuses it at the 257th entry, at once', () => {
    const t = performance.now();
    expect(() => decodeEntryBundle(bomb())).toThrow(/more than 256 entries/);
    expect(performance.now() - t).toBeLessThan(1000);
    // A genuine bundle of the most entries still decodes.
    expect(decodeEntryBundle(new Uint8Array(2 * TILE_WIDTH))).toHaveLength(TILE_WIDTH);
  });

  it('at a pruned tile\'s path: a read is refused ERR_ARCHIVE_MISMATCH naming the file, at once', () => {
    const dir = copyOf(pruned);
    writeFileSync(join(dir, 'archive', 'default', 'tile', 'entries', '000'), bomb());
    const t = performance.now();
    // The open check reads the last pruned tile: this one.
    expect(() => openSqliteStore(logPath(dir, 'default'), { readonly: true })).toThrow(expect.objectContaining({ code: 'ERR_ARCHIVE_MISMATCH', message: expect.stringContaining('tile/entries/000') }));
    expect(performance.now() - t).toBeLessThan(5000);
  }, 20_000);

  it('in an archive vouch log verify reads: a finding naming the file, at once', async () => {
    const dir = copyOf(archived);
    writeFileSync(join(dir, 'archive', 'default', 'tile', 'entries', '000'), bomb());
    const t = performance.now();
    const v = await runVouch('log', 'verify', '--data', dir, '--json');
    expect(v.code).toBe(1);
    expect(JSON.stringify(v.json.logs[0].findings)).toContain('tile/entries/000');
    expect(performance.now() - t).toBeLessThan(10_000);
  }, 30_000);
});
