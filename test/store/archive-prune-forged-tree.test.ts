// The file-level attacker against `vouch log prune` (no keys; edits rows, nodes and archive files):
// a full tile forged whole (its rows, leaves and nodes 0..8 in SQLite, its archive files to match),
// everything from level 9 up and the checkpoints left genuine. The stored tree still hashes to the
// signed root (its root reads node 9/0, not 8/1) and the tile reads back against the forged node
// 8/1, so a prune that trusted stored nodes above level 8 would delete the only genuine copy.
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalBytes, concatBytes, toHex, utf8 } from '../../src/canonical/index.js';
import { encodeEntryBundle, hashChildren, hashLeaf, rootAt, type Hash, type NoteVerifier } from '../../src/log/index.js';
import { logPath, openDataDir, openSqliteStore, pruneToArchive } from '../../src/store/node.js';
import { runVouch } from '../helpers/cli.js';
import { openAsAttacker, rowBytes, writeRow } from '../security/_file-attacker.js';
import { makeLog, scratchDirs } from './_archive-log.js';

const { tempDir, copyOf, removeAll } = scratchDirs('vouch-prune-forged-');
const archiveOf = (dir: string) => join(dir, 'archive', 'default');
const count = (dir: string, sql: string) => {
  const db = new Database(logPath(dir, 'default'), { readonly: true });
  try {
    return db.prepare(sql).pluck().get() as number;
  } finally {
    db.close();
  }
};

/** Rewrites tile `index` (entries, leaves, nodes 0..8, archive files); returns its forged node 8/index. */
function forgeTile(dir: string, index: number): Hash {
  const from = index * 256;
  const db = openAsAttacker(logPath(dir, 'default'));
  const entries: { seq: number; bytes: Uint8Array }[] = [];
  const leaves: Hash[] = [];
  try {
    let prev = toHex(new Uint8Array(db.prepare('SELECT leaf FROM entries WHERE seq = ?').pluck().get(from - 1) as Buffer));
    db.transaction(() => {
      for (let seq = from; seq < from + 256; seq++) {
        const e = JSON.parse(utf8.decode(rowBytes(db, seq)));
        e.principal = `mallory-${seq}`;
        e.prev = prev; // the chain inside the tile relinked, as a careful forger would
        const bytes = canonicalBytes(e);
        const leaf = hashLeaf(bytes);
        writeRow(db, seq, bytes, leaf);
        entries.push({ seq, bytes });
        leaves.push(leaf);
        prev = toHex(leaf);
      }
      let level = leaves;
      for (let l = 0; l <= 8; l++) {
        level.forEach((h, j) => db.prepare('UPDATE nodes SET hash = ? WHERE level = ? AND idx = ?').run(h, l, (from >> l) + j));
        if (l < 8) level = Array.from({ length: level.length / 2 }, (_, j) => hashChildren(level[2 * j], level[2 * j + 1]));
      }
    })();
  } finally {
    db.close();
  }
  const name = index.toString().padStart(3, '0');
  writeFileSync(join(archiveOf(dir), 'tile', 'entries', name), encodeEntryBundle(entries, from, 256));
  writeFileSync(join(archiveOf(dir), 'tile', '0', name), concatBytes(...leaves));
  let level = leaves;
  while (level.length > 1) level = Array.from({ length: level.length / 2 }, (_, j) => hashChildren(level[2 * j], level[2 * j + 1]));
  return level[0];
}

let whole: string; // 600 entries, archived, not pruned
let origin: string;
let verifiers: NoteVerifier[];

beforeAll(async () => {
  whole = await makeLog(600, 'agent', tempDir('vouch-prune-forged-'));
  expect((await runVouch('log', 'archive', '--data', whole)).code).toBe(0);
  const dd = await openDataDir(whole, { thread: false });
  origin = dd.log('default').origin;
  verifiers = dd.log('default').verifiers;
  await dd.close();
}, 120_000);

afterAll(() => {
  removeAll();
});

describe('prune against a forged level-8 node', () => {
  it('the forgery holds up where only stored nodes are read: the stored tree still hashes to the signed root', () => {
    const dir = copyOf(whole);
    const forged = forgeTile(dir, 1);
    const s = openSqliteStore(logPath(dir, 'default'), { readonly: true });
    try {
      expect(s.node(8, 1)).toEqual(forged);
      expect(rootAt(600, s)).toEqual(s.checkpointAt(600)!.root);
    } finally {
      s.close();
    }
  });

  it('pruneToArchive refuses ERR_ARCHIVE_MISMATCH naming the node; rows and watermark unchanged', async () => {
    const dir = copyOf(whole);
    forgeTile(dir, 1);
    const s = openSqliteStore(logPath(dir, 'default'), { archive: archiveOf(dir) });
    try {
      await expect(pruneToArchive(s, archiveOf(dir), { origin, verifiers })).rejects.toMatchObject({ code: 'ERR_ARCHIVE_MISMATCH', message: expect.stringMatching(/node 9\/0/) });
      expect(s.prunedBelow()).toBe(0);
    } finally {
      s.close();
    }
    expect(count(dir, 'SELECT COUNT(*) FROM entries')).toBe(600);
    expect(count(dir, 'SELECT COUNT(*) FROM nodes WHERE level < 8')).toBe(count(whole, 'SELECT COUNT(*) FROM nodes WHERE level < 8'));
    expect(count(dir, 'SELECT COUNT(*) FROM pruned')).toBe(0);
  });

  it('with the nodes above level 8 forged too (only the signed root left): refused, naming the checkpoint', async () => {
    const dir = copyOf(whole);
    const forged = forgeTile(dir, 1);
    const db = openAsAttacker(logPath(dir, 'default'));
    const node8 = (i: number) => new Uint8Array(db.prepare('SELECT hash FROM nodes WHERE level = 8 AND idx = ?').pluck().get(i) as Buffer);
    db.prepare('UPDATE nodes SET hash = ? WHERE level = 9 AND idx = 0').run(hashChildren(node8(0), forged));
    db.close();
    const s = openSqliteStore(logPath(dir, 'default'), { archive: archiveOf(dir) });
    try {
      await expect(pruneToArchive(s, archiveOf(dir), { origin, verifiers })).rejects.toMatchObject({ code: 'ERR_ARCHIVE_MISMATCH', message: expect.stringContaining('checkpoint at 600') });
      expect(s.prunedBelow()).toBe(0);
    } finally {
      s.close();
    }
    expect(count(dir, 'SELECT COUNT(*) FROM entries')).toBe(600);
  });

  it('vouch log prune: exit 1, ERR_ARCHIVE_MISMATCH, nothing pruned', async () => {
    const dir = copyOf(whole);
    forgeTile(dir, 1);
    const r = await runVouch('log', 'prune', '--data', dir, '--tenant', 'default');
    expect(r.code).toBe(1);
    expect(r.out).toContain('ERR_ARCHIVE_MISMATCH');
    expect(count(dir, 'SELECT COUNT(*) FROM entries')).toBe(600);
    expect(count(dir, 'SELECT COUNT(*) FROM pruned')).toBe(0);
  });

  it('an honest prune of the same log still succeeds', async () => {
    const dir = copyOf(whole);
    const s = openSqliteStore(logPath(dir, 'default'), { archive: archiveOf(dir) });
    try {
      const r = await pruneToArchive(s, archiveOf(dir), { origin, verifiers });
      expect(r).toMatchObject({ from: 0, below: 512, archived: 600, entries: 511, nodes: 2 * 510 });
      expect(rootAt(600, s)).toEqual(s.checkpointAt(600)!.root);
    } finally {
      s.close();
    }
  });
});
