// The tile archive (issue 40): `vouch log archive` writes a log's sealed history as static C2SP
// tlog-tiles, byte for byte what the tiles routes serve; `vouch log verify` reads sealed history
// from it. The attacker edits data files (the archive included) but cannot read the keys: a changed
// entry bundle, a changed hash tile, a removed tile, a tile or checkpoint from another log.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../src/canonical/index.js';
import { decodeEntryBundle, encodeEntryBundle, readHashTile } from '../../src/log/index.js';
import { logPath, openDataDir, openSqliteStore, syncArchive } from '../../src/store/node.js';
import { body, inputDigest, makeLog as makeLogIn } from './_archive-log.js';
import { runVouch } from '../helpers/cli.js';

const temps: string[] = [];
const tempDir = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
};

/** A copy of `dir` (data and archive) to tamper with. */
function copyOf(dir: string): string {
  const c = tempDir('vouch-archive-copy-');
  cpSync(dir, c, { recursive: true });
  return c;
}

const makeLog = (count: number, who: string) => makeLogIn(count, who, tempDir('vouch-archive-'));
const tile = (dir: string, rel: string) => join(dir, 'archive', 'default', rel);
const verify = (dir: string) => runVouch('log', 'verify', '--data', dir, '--json');
const findingsOf = (r: Awaited<ReturnType<typeof verify>>): { kind: string; seq?: number; message: string }[] => r.json.logs[0].findings;

let clean: string; // 600 entries, archived
let other: string; // another data directory (other keys), 600 entries, archived

beforeAll(async () => {
  [clean, other] = await Promise.all([makeLog(600, 'agent'), makeLog(600, 'intruder')]);
  for (const d of [clean, other]) expect((await runVouch('log', 'archive', '--data', d)).code).toBe(0);
}, 120_000);

afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

describe('vouch log archive', () => {
  it('writes the tlog-tiles layout: full tiles, the partial ones its checkpoint needs, and that checkpoint', async () => {
    const store = openSqliteStore(logPath(clean, 'default'), { readonly: true });
    try {
      const cp = store.latestCheckpoint()!;
      expect(cp.size).toBe(600);
      expect(readFileSync(tile(clean, 'checkpoint'), 'utf8')).toBe(cp.note);
      const nodes = async (level: number, lo: number, hi: number) => [...store.nodeRange!(level, lo, hi)].map((n) => n.hash);
      // The bytes the tiles routes serve (routes-tiles.ts reads the same functions over the same store).
      for (const [rel, level, index, width] of [['tile/0/000', 0, 0, 256], ['tile/0/001', 0, 1, 256], ['tile/0/002.p/88', 0, 2, 88], ['tile/1/000.p/2', 1, 0, 2]] as const) {
        expect(new Uint8Array(readFileSync(tile(clean, rel)))).toEqual(await readHashTile({ level, index, width }, 600, { nodes }));
      }
      for (const [rel, from, n] of [['tile/entries/000', 0, 256], ['tile/entries/001', 256, 256], ['tile/entries/002.p/88', 512, 88]] as const) {
        expect(new Uint8Array(readFileSync(tile(clean, rel)))).toEqual(encodeEntryBundle([...store.entries(from, from + n)], from, n));
      }
      expect(readdirSync(join(clean, 'archive', 'default', '.tmp'))).toEqual([]); // no temp file left
    } finally {
      store.close();
    }
  });

  it('is idempotent, and after more entries writes only what grew; partial tiles of a now-full tile go', async () => {
    const dir = copyOf(clean);
    const again = await runVouch('log', 'archive', '--data', dir, '--json');
    expect(again.json.logs[0]).toMatchObject({ size: 600, written: 0 });
    // More entries: tile/0/002 fills (its partial directory goes), tile/1/000.p/3 appears.
    const dd = await openDataDir(dir, { thread: false });
    const log = dd.log('default');
    await Promise.all(Array.from({ length: 200 }, (_, k) => log.appender.append(body(600 + k, 'agent'), [{ digest: inputDigest(600 + k), bytes: Uint8Array.of((600 + k) & 0xff, (600 + k) >> 8) }])));
    await dd.close();
    const grown = await runVouch('log', 'archive', '--data', dir, '--json');
    expect(grown.json.logs[0]).toMatchObject({ size: 800, kept: 0 });
    expect(existsSync(tile(dir, 'tile/0/002'))).toBe(true);
    expect(existsSync(tile(dir, 'tile/0/002.p'))).toBe(false);
    expect(existsSync(tile(dir, 'tile/1/000.p/3'))).toBe(true);
    expect(existsSync(tile(dir, 'tile/1/000.p/2'))).toBe(true); // not full yet: a client of the older checkpoint still needs it
    expect((await verify(dir)).json.ok).toBe(true);
  });

  it('after a crash before its checkpoint (tiles there, checkpoint not), a rerun compares what is there and finishes', async () => {
    const dir = copyOf(clean);
    unlinkSync(tile(dir, 'checkpoint'));
    writeFileSync(join(dir, 'archive', 'default', '.tmp', 'deadbeef'), 'half a tile'); // an unlinked temp
    const r = await runVouch('log', 'archive', '--data', dir, '--json');
    expect(r.code).toBe(0);
    expect(r.json.logs[0]).toMatchObject({ size: 600, written: 1, kept: 7 }); // 7 tiles compared, the checkpoint written
    expect(readdirSync(join(dir, 'archive', 'default', '.tmp'))).toEqual([]);
  });

  it('never overwrites a tile with other bytes: the integrity alarm, ERR_ARCHIVE_MISMATCH, the file left as found', async () => {
    const dir = copyOf(clean);
    unlinkSync(tile(dir, 'checkpoint')); // so the writer compares every tile again
    const bad = Buffer.from(readFileSync(tile(dir, 'tile/0/001')));
    bad[5] ^= 1;
    writeFileSync(tile(dir, 'tile/0/001'), bad);
    const r = await runVouch('log', 'archive', '--data', dir);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/ERR_ARCHIVE_MISMATCH/);
    expect(r.out).toMatch(/tile\/0\/001 holds other bytes/);
    expect(readFileSync(tile(dir, 'tile/0/001'))).toEqual(bad);
    expect(existsSync(tile(dir, 'checkpoint'))).toBe(false); // nothing names the archive complete
  });

  it('refuses an archive whose checkpoint is not one the log stored', async () => {
    const dir = copyOf(clean);
    writeFileSync(tile(dir, 'checkpoint'), readFileSync(join(other, 'archive', 'default', 'checkpoint')));
    const r = await runVouch('log', 'archive', '--data', dir);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/ERR_ARCHIVE_MISMATCH.*checkpoint is not a checkpoint this log stored/s);
  });

  it('syncArchive from a known size writes only the new tiles (what vouch serve does after commits)', async () => {
    const dir = copyOf(clean);
    const store = openSqliteStore(logPath(dir, 'default'), { readonly: true });
    try {
      expect(await syncArchive(join(dir, 'archive', 'default'), store, 600)).toEqual({ size: 600, written: 0, kept: 0 });
    } finally {
      store.close();
    }
  });
});

describe('vouch log verify reads sealed history from the archive', () => {
  it('a clean archive: clean, 512 entries read from sealed bundles', async () => {
    const r = await verify(clean);
    expect(r.code).toBe(0);
    expect(r.json.logs[0].archive).toMatchObject({ size: 600, sealed: 512 });
    const text = await runVouch('log', 'verify', '--data', clean);
    expect(text.out).toMatch(/archive .*: checkpoint at 600, 512 entries read from sealed tiles/);
  });

  it('a changed entry bundle (one byte of one entry, framing kept): that entry\'s leaf and the signed roots disagree', async () => {
    const dir = copyOf(clean);
    const path = tile(dir, 'tile/entries/001');
    const bytes = Buffer.from(readFileSync(path));
    const entries = decodeEntryBundle(bytes);
    const at = entries.slice(0, 10).reduce((n, e) => n + 2 + e.length, 0) + 2 + entries[10].length - 10; // inside entry 266
    bytes[at] ^= 0x01;
    writeFileSync(path, bytes);
    const r = await verify(dir);
    expect(r.code).toBe(1);
    const f = findingsOf(r);
    expect(f).toContainEqual(expect.objectContaining({ kind: 'leaf', seq: 266 }));
    expect(f.some((x) => x.kind === 'checkpoint' && /signed root differs/.test(x.message))).toBe(true);
    // SQLite still holds the entry as signed: the archive is what is wrong, and verify said where.
    expect((await verify(clean)).code).toBe(0);
  });

  it('a changed hash tile (level 0): the node and leaf it stands for are named', async () => {
    const dir = copyOf(clean);
    const path = tile(dir, 'tile/0/000');
    const bytes = Buffer.from(readFileSync(path));
    bytes[32 * 77] ^= 1; // the leaf hash of entry 77
    writeFileSync(path, bytes);
    const f = findingsOf(await verify(dir));
    expect(f).toContainEqual(expect.objectContaining({ kind: 'leaf', seq: 77 }));
    expect(f).toContainEqual(expect.objectContaining({ kind: 'node', seq: 77 }));
  });

  it('a changed bundle and hash tile made consistent with each other: the signed roots still disagree', async () => {
    const dir = copyOf(clean);
    const b = Buffer.from(readFileSync(tile(dir, 'tile/entries/000')));
    const entries = decodeEntryBundle(b).map((e) => new Uint8Array(e));
    const i = 40;
    const forged = new TextEncoder().encode(new TextDecoder().decode(entries[i]).replace('"deny"', '"allo"').replace('"allow"', '"deny_"'));
    entries[i] = forged;
    writeFileSync(tile(dir, 'tile/entries/000'), encodeEntryBundle(entries.map((bytes, seq) => ({ seq, bytes })), 0, 256));
    const t = Buffer.from(readFileSync(tile(dir, 'tile/0/000')));
    t.set(sha256(new Uint8Array([0, ...forged])), 32 * i);
    writeFileSync(tile(dir, 'tile/0/000'), t);
    const f = findingsOf(await verify(dir));
    expect(f.some((x) => x.kind === 'checkpoint' && /signed root differs/.test(x.message))).toBe(true);
  });

  it('a removed tile (full hash tile, full bundle, the partial tile the checkpoint needs): each named missing', async () => {
    for (const rel of ['tile/0/001', 'tile/entries/000', 'tile/1/000.p/2', 'tile/entries/002.p/88']) {
      const dir = copyOf(clean);
      unlinkSync(tile(dir, rel));
      const r = await verify(dir);
      expect(r.code, rel).toBe(1);
      expect(findingsOf(r).some((x) => x.kind === 'archive' && x.message.includes(`${rel}: missing`)), rel).toBe(true);
    }
  });

  it('a tile from another log (same path, other log\'s bytes): caught', async () => {
    for (const rel of ['tile/entries/001', 'tile/0/001', 'tile/0/002.p/88']) {
      const dir = copyOf(clean);
      cpSync(join(other, 'archive', 'default', rel), tile(dir, rel));
      const r = await verify(dir);
      expect(r.code, rel).toBe(1);
      expect(findingsOf(r).length, rel).toBeGreaterThan(0);
    }
  });

  it('a checkpoint from another log: nothing is read from that archive, and that is the finding', async () => {
    const dir = copyOf(clean);
    cpSync(join(other, 'archive', 'default', 'checkpoint'), tile(dir, 'checkpoint'));
    const r = await verify(dir);
    expect(r.code).toBe(1);
    expect(r.json.logs[0].archive.size).toBe(0);
    expect(findingsOf(r)).toContainEqual(expect.objectContaining({ kind: 'archive', message: expect.stringMatching(/checkpoint: not this log's/) }));
  });

  it('an older checkpoint of the same log put back (the archive rolled back): still verifies, reads less from the archive', async () => {
    const dir = copyOf(clean);
    const store = openSqliteStore(logPath(dir, 'default'), { readonly: true });
    const older = [...store.checkpoints()].find((c) => c.size > 256 && c.size < 512)!;
    store.close();
    writeFileSync(tile(dir, 'checkpoint'), older.note);
    // Its partial tiles are gone (the writer only keeps the newest's), so that is named; the sealed part verifies.
    const r = await verify(dir);
    expect(r.json.logs[0].archive).toMatchObject({ size: older.size, sealed: 256 });
    expect(findingsOf(r).every((x) => x.kind === 'archive' && /missing/.test(x.message))).toBe(true);
  });
});
