// The attacker of issue 15 item 2: write access to the database file, no signing key. Works on
// the file with better-sqlite3 directly, dropping the append-only triggers first, as they would.
import Database from 'better-sqlite3';
import { canonicalBytes, toHex, utf8 } from '../../src/canonical/index.js';
import { appendLeaf, emptyRange, hashLeaf, rangeRoot, type CompactRange } from '../../src/log/index.js';

const TRIGGERS = ['entries_no_update', 'entries_no_delete', 'nodes_no_update', 'nodes_no_delete', 'checkpoints_no_update', 'checkpoints_no_delete'];

export function openAsAttacker(path: string): Database.Database {
  const db = new Database(path);
  for (const t of TRIGGERS) db.exec(`DROP TRIGGER IF EXISTS ${t}`);
  return db;
}

/**
 * Rewrite entry `seq` with `change`, relink every later entry's prev, rebuild every node, and
 * point the newest checkpoint's plain `root` column at the forged root. Returns the forged root.
 */
export function forgeEntry(path: string, seq: number, change: (entry: Record<string, any>) => void, opts: { dropOldCheckpoints?: boolean } = {}): Uint8Array {
  const db = openAsAttacker(path);
  const rows = db.prepare('SELECT seq, bytes FROM entries ORDER BY seq').all() as { seq: number; bytes: Buffer }[];
  let range: CompactRange = emptyRange();
  let prev = '0'.repeat(64);
  const tx = db.transaction(() => {
    db.exec('DELETE FROM nodes');
    for (const r of rows) {
      const e = JSON.parse(utf8.decode(r.bytes));
      if (r.seq === seq) change(e);
      if (r.seq >= seq) e.prev = prev;
      const bytes = r.seq >= seq ? canonicalBytes(e) : new Uint8Array(r.bytes);
      const leaf = hashLeaf(bytes);
      db.prepare('UPDATE entries SET bytes = ?, leaf = ? WHERE seq = ?').run(bytes, leaf, r.seq);
      const step = appendLeaf(range, leaf);
      for (const n of step.created) db.prepare('INSERT INTO nodes (level, idx, hash) VALUES (?, ?, ?)').run(n.level, n.index, n.hash);
      range = step.range;
      prev = toHex(leaf);
    }
    const root = rangeRoot(range);
    db.prepare('UPDATE checkpoints SET root = ? WHERE size = ?').run(root, range.size);
    if (opts.dropOldCheckpoints) db.prepare('DELETE FROM checkpoints WHERE size < ?').run(range.size);
  });
  tx();
  db.close();
  return rangeRoot(range);
}

/** Flip one byte of an old entry's stored bytes, leaving leaf hashes, nodes and checkpoints alone. */
export function flipEntryByte(path: string, seq: number, at = 10): void {
  const db = openAsAttacker(path);
  const bytes = Buffer.from((db.prepare('SELECT bytes FROM entries WHERE seq = ?').get(seq) as { bytes: Buffer }).bytes);
  bytes[at] ^= 0x01;
  db.prepare('UPDATE entries SET bytes = ? WHERE seq = ?').run(bytes, seq);
  db.close();
}

/**
 * Append one entry after the newest stored one, as the appender would: a copy of the newest
 * entry's body with `change` applied, the next seq, prev linked, its leaf and every tree node it
 * completes inserted. Everything anyone can recompute is right; only a commit tag is missing.
 */
export function appendForged(path: string, change: (entry: Record<string, any>) => void): number {
  const db = openAsAttacker(path);
  const rows = db.prepare('SELECT seq, leaf FROM entries ORDER BY seq').all() as { seq: number; leaf: Buffer }[];
  const last = db.prepare('SELECT seq, bytes, leaf FROM entries ORDER BY seq DESC LIMIT 1').get() as { seq: number; bytes: Buffer; leaf: Buffer };
  let range: CompactRange = emptyRange();
  for (const r of rows) range = appendLeaf(range, new Uint8Array(r.leaf)).range;
  const e = JSON.parse(utf8.decode(last.bytes));
  change(e);
  e.seq = last.seq + 1;
  e.prev = toHex(new Uint8Array(last.leaf));
  const bytes = canonicalBytes(e);
  const leaf = hashLeaf(bytes);
  const step = appendLeaf(range, leaf);
  db.transaction(() => {
    db.prepare('INSERT INTO entries (seq, bytes, leaf) VALUES (?, ?, ?)').run(e.seq, bytes, leaf);
    for (const n of step.created) db.prepare('INSERT INTO nodes (level, idx, hash) VALUES (?, ?, ?)').run(n.level, n.index, n.hash);
  })();
  db.close();
  return e.seq;
}

export function countCheckpoints(path: string): number {
  const db = new Database(path, { readonly: true });
  const n = (db.prepare('SELECT COUNT(*) AS n FROM checkpoints').get() as { n: number }).n;
  db.close();
  return n;
}

/**
 * Issue 35's index attack: rebuild a partial index over `entries` without the rows `hide`, then
 * restore its original SQL text through `PRAGMA writable_schema`. No trigger is dropped and no
 * entry, node or checkpoint row changes; only `PRAGMA integrity_check` would notice.
 */
export function hideFromIndex(path: string, index: string, hide: number[]): void {
  const db = new Database(path);
  const sql = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?").pluck().get(index) as string | undefined;
  if (!sql) throw new Error(`no index ${index}`);
  db.exec(`DROP INDEX ${index}`);
  db.exec(`${sql} AND seq NOT IN (${hide.join(', ')})`);
  db.unsafeMode(true);
  db.pragma('writable_schema = ON');
  db.prepare("UPDATE sqlite_master SET sql = ? WHERE type = 'index' AND name = ?").run(sql, index);
  db.pragma('writable_schema = OFF');
  db.close();
}
