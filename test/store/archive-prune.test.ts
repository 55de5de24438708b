// Pruning sealed history (issue 40): `vouch log prune` deletes the entry rows and low tree nodes of
// full archived tiles from SQLite, and every read of them comes from the archive, checked. The
// attacker edits data files (archive and database) but holds no keys: a deleted or edited tile is
// refused with ERR_ARCHIVE_*, never served; a watermark raised by hand is refused at open; the
// triggers refuse every other delete.
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consistencyProof, inclusionProof, rootAt } from '../../src/log/index.js';
import { logPath, openSqliteStore } from '../../src/store/node.js';
import { runVouch } from '../helpers/cli.js';
import { makeLog, scratchDirs } from './_archive-log.js';

const { tempDir, copyOf, removeAll } = scratchDirs('vouch-prune-');
const tile = (dir: string, rel: string) => join(dir, 'archive', 'default', rel);
const rows = (dir: string, sql: string) => {
  const db = new Database(logPath(dir, 'default'), { readonly: true });
  try {
    return db.prepare(sql).pluck().get() as number;
  } finally {
    db.close();
  }
};
/** The attacker's raw write to the database file, triggers and all. */
const raw = (dir: string, sql: string) => {
  const db = new Database(logPath(dir, 'default'));
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
};

let whole: string; // 600 entries, archived, not pruned: what every read must give back
let pruned: string; // the same, pruned below 512

beforeAll(async () => {
  whole = await makeLog(600, 'agent', tempDir('vouch-prune-'));
  expect((await runVouch('log', 'archive', '--data', whole)).code).toBe(0);
  pruned = copyOf(whole);
  const r = await runVouch('log', 'prune', '--data', pruned, '--tenant', 'default', '--json');
  expect(r.code).toBe(0);
  // Seq 0 is the policy entry: state entries stay. Nodes: levels 0..7 of tiles 0 and 1 (256 + 128 + ... + 2 each).
  expect(r.json).toMatchObject({ ok: true, from: 0, below: 512, archived: 600, entries: 511, nodes: 2 * 510 });
}, 120_000);

afterAll(() => {
  removeAll();
});

describe('vouch log prune', () => {
  it('drops the rows of full archived tiles, keeps state entries and nodes from level 8 up', () => {
    expect(rows(pruned, 'SELECT COUNT(*) FROM entries')).toBe(600 - 511);
    expect(rows(pruned, 'SELECT COUNT(*) FROM entries WHERE seq < 512')).toBe(1);
    expect(rows(pruned, 'SELECT COUNT(*) FROM nodes WHERE level = 8')).toBe(2);
    expect(rows(pruned, 'SELECT MAX(below) FROM pruned')).toBe(512);
  });

  it('is idempotent: a second run prunes nothing more', async () => {
    const dir = copyOf(pruned);
    const r = await runVouch('log', 'prune', '--data', dir, '--tenant', 'default', '--json');
    expect(r.json).toMatchObject({ from: 512, below: 512, entries: 0, nodes: 0 });
  });

  it('needs --tenant (usage error, nothing pruned)', async () => {
    const r = await runVouch('log', 'prune', '--data', copyOf(whole));
    expect(r.code).toBe(2);
  });

  it('reads every pruned entry, node and proof from the archive, the same bytes as before', () => {
    const a = openSqliteStore(logPath(whole, 'default'), { readonly: true });
    const b = openSqliteStore(logPath(pruned, 'default'), { readonly: true });
    try {
      expect(b.size()).toBe(600);
      expect([...b.entries(0, 600)]).toEqual([...a.entries(0, 600)]);
      expect([...b.entries(250, 300)]).toEqual([...a.entries(250, 300)]);
      for (const seq of [0, 1, 255, 256, 511, 512, 599]) expect(b.entry(seq)).toEqual(a.entry(seq));
      for (const level of [0, 3, 7, 8, 9]) expect(b.nodeRange!(level, 0, 1000)).toEqual([...a.nodeRange!(level, 0, 1000)]);
      expect(b.node(0, 300)).toEqual(a.node(0, 300));
      expect(inclusionProof(300, 600, b)).toEqual(inclusionProof(300, 600, a));
      expect(consistencyProof(300, 600, b)).toEqual(consistencyProof(300, 600, a));
      expect(rootAt(600, b)).toEqual(b.latestCheckpoint()!.root);
    } finally {
      a.close();
      b.close();
    }
  });

  it('vouch log verify and vouch log tail read the pruned log clean', async () => {
    const v = await runVouch('log', 'verify', '--data', pruned, '--json');
    expect(v.json.ok).toBe(true);
    expect(v.json.logs[0]).toMatchObject({ entries: 600 });
    const t = await runVouch('log', 'tail', '--data', pruned, '-n', '700', '--json');
    expect(t.out.trim().split('\n')).toHaveLength(600);
  });
});

describe('the file attacker after pruning', () => {
  it('a deleted entry bundle: reads refused ERR_ARCHIVE_MISSING naming the file, verify names it', async () => {
    const dir = copyOf(pruned);
    unlinkSync(tile(dir, 'tile/entries/001'));
    // The open check reads the last pruned tile: refused at open, naming the file.
    expect(() => openSqliteStore(logPath(dir, 'default'), { readonly: true })).toThrow(expect.objectContaining({ code: 'ERR_ARCHIVE_MISSING', message: expect.stringContaining('tile/entries/001') }));
    const v = await runVouch('log', 'verify', '--data', dir, '--json');
    expect(v.code).toBe(1);
    expect(JSON.stringify(v.json.logs[0].findings)).toContain('tile/entries/001');
  });

  it('a deleted earlier tile: the log opens, that tile\'s entries are refused, never other bytes', () => {
    const dir = copyOf(pruned);
    unlinkSync(tile(dir, 'tile/0/000'));
    const s = openSqliteStore(logPath(dir, 'default'), { readonly: true });
    try {
      expect(() => s.entry(5)).toThrow(expect.objectContaining({ code: 'ERR_ARCHIVE_MISSING', message: expect.stringContaining('tile/0/000') }));
      expect(() => [...s.entries(0, 10)]).toThrow(expect.objectContaining({ code: 'ERR_ARCHIVE_MISSING' }));
      expect(() => inclusionProof(5, 600, s)).toThrow(expect.objectContaining({ code: 'ERR_ARCHIVE_MISSING' }));
      expect(s.entry(0)?.seq).toBe(0); // the policy entry is kept in the database
      expect(s.entry(300)?.seq).toBe(300); // other tiles still read
    } finally {
      s.close();
    }
  });

  for (const [what, rel, at] of [
    ['an edited entry bundle', 'tile/entries/000', 200],
    ['an edited hash tile', 'tile/0/000', 100],
  ] as const) {
    it(`${what}: refused ERR_ARCHIVE_MISMATCH naming the file; verify names it`, async () => {
      const dir = copyOf(pruned);
      const bytes = readFileSync(tile(dir, rel));
      bytes[at] ^= 1;
      writeFileSync(tile(dir, rel), bytes);
      const s = openSqliteStore(logPath(dir, 'default'), { readonly: true });
      try {
        expect(() => s.entry(10)).toThrow(expect.objectContaining({ code: 'ERR_ARCHIVE_MISMATCH', message: expect.stringContaining(rel) }));
      } finally {
        s.close();
      }
      const v = await runVouch('log', 'verify', '--data', dir, '--json');
      expect(v.code).toBe(1);
      expect(JSON.stringify(v.json.logs[0].findings)).toContain(rel);
    });
  }

  // The hardened reader (archive-file.ts), as log verify's: nothing but a regular file of a tile's size is read.
  for (const [what, rel, put] of [
    ['a symlink to a copy of the right bytes', 'tile/entries/000', (p: string) => symlinkSync(tile(whole, 'tile/entries/000'), p)],
    ['a symlink to /dev/zero (reads without end)', 'tile/0/000', (p: string) => symlinkSync('/dev/zero', p)],
    ['a FIFO (a read would wait for a writer)', 'tile/entries/000', (p: string) => execFileSync('mkfifo', [p])],
    ['a directory', 'tile/0/000', (p: string) => mkdirSync(p)],
  ] as const) {
    it(`${what} at a pruned tile's path: refused ERR_ARCHIVE_MISMATCH naming it, never followed or waited on`, async () => {
      const dir = copyOf(pruned);
      unlinkSync(tile(dir, rel));
      put(tile(dir, rel));
      const s = openSqliteStore(logPath(dir, 'default'), { readonly: true });
      try {
        expect(() => s.entry(10)).toThrow(expect.objectContaining({ code: 'ERR_ARCHIVE_MISMATCH', message: expect.stringMatching(new RegExp(`${rel}.*not a regular file`)) }));
        expect(s.entry(300)?.seq).toBe(300); // other tiles still read
      } finally {
        s.close();
      }
      const v = await runVouch('log', 'verify', '--data', dir, '--json');
      expect(v.code).toBe(1);
      expect(JSON.stringify(v.json.logs[0].findings)).toContain(rel);
    });
  }

  it('a symlink as the archive\'s checkpoint: the pruned log is refused at open (ERR_ARCHIVE_WATERMARK)', () => {
    const dir = copyOf(pruned);
    unlinkSync(tile(dir, 'checkpoint'));
    symlinkSync(tile(pruned, 'checkpoint'), tile(dir, 'checkpoint'));
    expect(() => openSqliteStore(logPath(dir, 'default'), { readonly: true })).toThrow(expect.objectContaining({ code: 'ERR_ARCHIVE_WATERMARK', message: expect.stringContaining('not a regular file') }));
  });

  it('a watermark raised by hand, past what is archived: refused at open (ERR_ARCHIVE_WATERMARK), verify says so', async () => {
    const dir = copyOf(pruned);
    raw(dir, "INSERT INTO pruned (below, archive) VALUES (768, '../archive/default')"); // rising: the triggers allow it
    expect(() => openSqliteStore(logPath(dir, 'default'), { readonly: true })).toThrow(expect.objectContaining({ code: 'ERR_ARCHIVE_WATERMARK' }));
    const v = await runVouch('log', 'verify', '--data', dir, '--json');
    expect(v.code).toBe(1);
    expect(JSON.stringify(v.json.logs[0].findings)).toContain('ERR_ARCHIVE_WATERMARK');
  });

  it('a watermark set by hand on a log never pruned, with no archive: refused at open', () => {
    const dir = copyOf(whole);
    rmSync(join(dir, 'archive'), { recursive: true });
    const s = openSqliteStore(logPath(dir, 'default')); // migration 0009 applied
    s.close();
    raw(dir, "INSERT INTO pruned (below, archive) VALUES (256, '../archive/default')");
    // On disk the same as a pruned log restored without its archive (archive-prune-restore.test.ts): refused, ERR_ARCHIVE_MISSING.
    expect(() => openSqliteStore(logPath(dir, 'default'), { readonly: true })).toThrow(expect.objectContaining({ code: 'ERR_ARCHIVE_MISSING' }));
  });

  it('the triggers: no delete at or above the watermark, no state entry, no node from level 8; the watermark never falls nor goes', () => {
    const dir = copyOf(pruned);
    expect(() => raw(dir, 'DELETE FROM entries WHERE seq = 512')).toThrow(/append-only/);
    expect(() => raw(dir, 'DELETE FROM entries WHERE seq = 0')).toThrow(/append-only/); // the policy entry
    expect(() => raw(dir, 'DELETE FROM nodes WHERE level = 8')).toThrow(/append-only/);
    expect(() => raw(dir, 'DELETE FROM nodes WHERE level = 0 AND idx = 512')).toThrow(/append-only/);
    expect(() => raw(dir, "INSERT INTO pruned (below, archive) VALUES (256, 'x')")).toThrow(/only rises/);
    expect(() => raw(dir, "INSERT INTO pruned (below, archive) VALUES (700, 'x')")).toThrow(/CHECK/);
    expect(() => raw(dir, 'UPDATE pruned SET below = 256')).toThrow(/append-only/);
    expect(() => raw(dir, 'DELETE FROM pruned')).toThrow(/append-only/);
    expect(rows(dir, 'SELECT COUNT(*) FROM entries')).toBe(89);
  });

  it('an archive tile edited before pruning: nothing pruned (ERR_ARCHIVE_MISMATCH), every row kept', async () => {
    const dir = copyOf(whole);
    const bytes = readFileSync(tile(dir, 'tile/entries/001'));
    bytes[40] ^= 1;
    writeFileSync(tile(dir, 'tile/entries/001'), bytes);
    const r = await runVouch('log', 'prune', '--data', dir, '--tenant', 'default');
    expect(r.code).toBe(1);
    expect(r.out).toContain('ERR_ARCHIVE_MISMATCH');
    expect(rows(dir, 'SELECT COUNT(*) FROM entries')).toBe(600);
    expect(rows(dir, 'SELECT COUNT(*) FROM pruned')).toBe(0);
  });

  it('an archive checkpoint from another log (or forged): nothing pruned', async () => {
    const dir = copyOf(whole);
    const note = readFileSync(tile(dir, 'checkpoint'), 'utf8');
    writeFileSync(tile(dir, 'checkpoint'), note.replace(/\n600\n/, '\n512\n'));
    const r = await runVouch('log', 'prune', '--data', dir, '--tenant', 'default');
    expect(r.code).not.toBe(0);
    expect(rows(dir, 'SELECT COUNT(*) FROM entries')).toBe(600);
  });
});
