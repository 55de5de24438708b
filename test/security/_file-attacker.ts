// The attacker of issue 15 item 2: write access to the database file, no signing key. Works on
// the file with better-sqlite3 directly, dropping the append-only triggers first, as they would.
// Rows are compact by default (docs/storage.md): the attacker reads and writes them in the file's
// documented format with node:zlib and the file's own dictionaries, not with vouch's codec.
import Database from 'better-sqlite3';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { canonicalBytes, toHex, utf8 } from '../../src/canonical/index.js';
import { appendLeaf, emptyRange, hashLeaf, rangeRoot, type CompactRange } from '../../src/log/index.js';

const TRIGGERS = ['entries_no_update', 'entries_no_delete', 'nodes_no_update', 'nodes_no_delete', 'checkpoints_no_update', 'checkpoints_no_delete'];

export function openAsAttacker(path: string): Database.Database {
  const db = new Database(path);
  for (const t of TRIGGERS) db.exec(`DROP TRIGGER IF EXISTS ${t}`);
  return db;
}

const INDEXED = ['"type":"policy"', '"type":"pin"', '"type":"key"'];

/** An entry row's signed bytes: raw (codec 0), or inflated with the dictionary its row names. */
export function rowBytes(db: Database.Database, seq: number): Uint8Array {
  const r = db.prepare('SELECT bytes, codec FROM entries WHERE seq = ?').get(seq) as { bytes: Buffer; codec: number } | undefined;
  if (!r) throw new Error(`no entry row ${seq}`);
  if (r.codec === 0) return new Uint8Array(r.bytes);
  return new Uint8Array(inflateRawSync(r.bytes, { dictionary: dictionary(db, r.codec) }));
}

function dictionary(db: Database.Database, id: number): Buffer {
  const d = db.prepare('SELECT bytes FROM entry_dictionaries WHERE id = ?').pluck().get(id) as Buffer | undefined;
  if (!d) throw new Error(`no entry dictionary ${id}`);
  return d;
}

/**
 * Store `bytes` (and `leaf`, when given) as entry `seq`'s row the way the writer would: compressed
 * with the row's own dictionary if it was compressed and may be (not a policy, pin or key entry),
 * raw otherwise. The edit is then a valid compact row of the edited JSON.
 */
export function writeRow(db: Database.Database, seq: number, bytes: Uint8Array, leaf?: Uint8Array): void {
  const r = db.prepare('SELECT codec FROM entries WHERE seq = ?').get(seq) as { codec: number };
  const text = utf8.decode(bytes);
  const codec = r.codec !== 0 && !INDEXED.some((s) => text.includes(s)) ? r.codec : 0;
  const stored = codec === 0 ? bytes : deflateRawSync(bytes, { dictionary: dictionary(db, codec), level: 6 });
  if (leaf) db.prepare('UPDATE entries SET bytes = ?, codec = ?, leaf = ? WHERE seq = ?').run(stored, codec, leaf, seq);
  else db.prepare('UPDATE entries SET bytes = ?, codec = ? WHERE seq = ?').run(stored, codec, seq);
}

/** Whether entry `seq`'s row is stored compressed. */
export function isCompact(path: string, seq: number): boolean {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare('SELECT codec FROM entries WHERE seq = ?').pluck().get(seq) as number) !== 0;
  } finally {
    db.close();
  }
}

/**
 * Rewrite entry `seq` with `change`, relink every later entry's prev, rebuild every node, and
 * point the newest checkpoint's plain `root` column at the forged root. Returns the forged root.
 */
export function forgeEntry(path: string, seq: number, change: (entry: Record<string, any>) => void, opts: { dropOldCheckpoints?: boolean } = {}): Uint8Array {
  const db = openAsAttacker(path);
  const rows = (db.prepare('SELECT seq FROM entries ORDER BY seq').pluck().all() as number[]).map((s) => ({ seq: s, bytes: rowBytes(db, s) }));
  let range: CompactRange = emptyRange();
  let prev = '0'.repeat(64);
  const tx = db.transaction(() => {
    db.exec('DELETE FROM nodes');
    for (const r of rows) {
      const e = JSON.parse(utf8.decode(r.bytes));
      if (r.seq === seq) change(e);
      if (r.seq >= seq) e.prev = prev;
      const bytes = r.seq >= seq ? canonicalBytes(e) : r.bytes;
      const leaf = hashLeaf(bytes);
      if (r.seq >= seq) writeRow(db, r.seq, bytes, leaf);
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

/**
 * Flip one byte of an old entry's signed bytes (its JSON), leaving leaf hashes, nodes and
 * checkpoints alone; a compact row is written back as a valid compressed row of the flipped bytes.
 */
export function flipEntryByte(path: string, seq: number, at = 10): void {
  const db = openAsAttacker(path);
  const bytes = rowBytes(db, seq);
  bytes[at] ^= 0x01;
  writeRow(db, seq, bytes);
  db.close();
}

/** Flip one byte of an entry row's bytes as stored: for a compact row, garbled DEFLATE (or another valid stream). */
export function flipStoredByte(path: string, seq: number, at = 10): void {
  const db = openAsAttacker(path);
  const bytes = Buffer.from(db.prepare('SELECT bytes FROM entries WHERE seq = ?').pluck().get(seq) as Buffer);
  bytes[at % bytes.byteLength] ^= 0x01;
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
  const last = db.prepare('SELECT seq, leaf FROM entries ORDER BY seq DESC LIMIT 1').get() as { seq: number; leaf: Buffer };
  let range: CompactRange = emptyRange();
  for (const r of rows) range = appendLeaf(range, new Uint8Array(r.leaf)).range;
  const e = JSON.parse(utf8.decode(rowBytes(db, last.seq)));
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
