// The SQLite log's prepared statements and how its rows read back: entry rows decoded to their
// signed bytes (entry-codec.ts), BLOBs viewed as Uint8Array without a copy, checkpoint rows.
import type Database from 'better-sqlite3';
import { StoreError } from '../errors.js';
import { decodeEntryRow, type EntryDictionary } from './entry-codec.js';
import { KEY_ENTRY_SQL, PIN_ENTRY_SQL, POLICY_ENTRY_SQL } from './migrations.js';
import type { StoredCheckpoint, StoredEntry } from './port.js';

export interface Row {
  seq: number;
  bytes: Buffer;
  leaf: Buffer;
  codec: number;
}

/** A view of a BLOB's bytes, no copy. */
export const u8 = (b: Buffer): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

/** The meta key that says how a log file stores new entry rows: `deflate` (the default) or `raw`. */
export const ENTRY_CODEC_META = 'entry_codec';

/**
 * Whether new rows are compressed, from the meta key's value: on unless it says `raw` (docs/storage.md).
 * Any other value is refused, not guessed at: a typo must not silently pick a format.
 */
export function compressFromMeta(value: unknown): boolean {
  if (value === undefined || value === 'deflate') return true;
  if (value === 'raw') return false;
  throw new StoreError('ERR_STORE', `the log file's meta key ${ENTRY_CODEC_META} is ${JSON.stringify(value)}: it is 'deflate' (compact rows, the default) or 'raw' (docs/storage.md); fix it with sqlite3 while the service is stopped`);
}

/**
 * The statements every open needs, prepared once. `compact`: the file has the codec column (migration
 * 0008); a read-only open of an older log has not, and every row in it is raw.
 */
export function prepareStatements(db: Database.Database, compact: boolean) {
  const cols = `seq, bytes, leaf, ${compact ? 'codec' : '0 AS codec'}`;
  return {
    size: db.prepare('SELECT COALESCE(MAX(seq) + 1, 0) AS n FROM entries').pluck(),
    entry: db.prepare(`SELECT ${cols} FROM entries WHERE seq = ?`),
    // Rows as arrays (raw): no object with named fields per row on the path `log verify` reads every entry by.
    range: db.prepare(`SELECT ${cols} FROM entries WHERE seq >= ? AND seq < ? ORDER BY seq`).raw(),
    node: db.prepare('SELECT hash FROM nodes WHERE level = ? AND idx = ?').pluck(),
    nodeRange: db.prepare('SELECT idx, hash FROM nodes WHERE level = ? AND idx >= ? AND idx <= ? ORDER BY idx').raw(),
    // One row whatever the range: how many nodes it holds and which differ from the hashes given (a blob of 32 bytes each).
    // Distinct integer indexes only: a REAL idx (an INTEGER column keeps 260.5) or a second row of one
    // index (a schema without its key) must not stand in for a missing node, whose index nothing names.
    nodesUnlike: db.prepare(`SELECT count(DISTINCT CASE WHEN typeof(idx) = 'integer' THEN idx END) AS stored, group_concat(CASE WHEN hash IS NOT substr(@hashes, (idx - @lo) * 32 + 1, 32) THEN idx END) AS unlike FROM nodes WHERE level = @level AND idx >= @lo AND idx < @end`),
    latest: db.prepare('SELECT size, root, note FROM checkpoints ORDER BY size DESC LIMIT 1'),
    checkpointAt: db.prepare('SELECT size, root, note FROM checkpoints WHERE size = ?'),
    checkpoints: db.prepare('SELECT size, root, note FROM checkpoints ORDER BY size'),
    putEntry: db.prepare(compact ? 'INSERT INTO entries (seq, bytes, leaf, codec) VALUES (?, ?, ?, ?)' : 'INSERT INTO entries (seq, bytes, leaf) VALUES (?, ?, ?)'),
    putNode: db.prepare('INSERT INTO nodes (level, idx, hash) VALUES (?, ?, ?)'),
    putCheckpoint: db.prepare('INSERT INTO checkpoints (size, root, note) VALUES (?, ?, ?)'),
    latestPolicy: db.prepare(`SELECT ${cols} FROM entries WHERE ${POLICY_ENTRY_SQL} ORDER BY seq DESC LIMIT 1`),
    pins: db.prepare(`SELECT ${cols} FROM entries WHERE ${PIN_ENTRY_SQL} ORDER BY seq`),
    keyEntries: db.prepare(`SELECT ${cols} FROM entries WHERE ${KEY_ENTRY_SQL} ORDER BY seq`),
    putDocument: db.prepare('INSERT OR IGNORE INTO documents (digest, kind, bytes) VALUES (?, ?, ?)'),
    document: db.prepare('SELECT kind, bytes FROM documents WHERE digest = ?'),
    meta: db.prepare('SELECT value FROM meta WHERE key = ?').pluck(),
    setMeta: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;

/** The file's dictionaries by id, one function made per store (not per row). */
export type DictionaryOf = (id: number) => EntryDictionary | undefined;

/** Every read of an entry row's bytes: the signed bytes, or ERR_STORE_INCONSISTENT (entry-codec.ts). */
export function signedBytes(r: Row, dictionary: DictionaryOf, copy?: StoredEntry): Uint8Array {
  return decodeEntryRow(r.seq, r.codec, u8(r.bytes), u8(r.leaf), dictionary, copy);
}

/** `copy`: the entry's other copy, which the caller hashes itself (LogStorage.entries). */
export function storedEntry(r: Row, dictionary: DictionaryOf, copy?: StoredEntry): StoredEntry {
  return { seq: r.seq, bytes: signedBytes(r, dictionary, copy), leaf: u8(r.leaf) };
}

export function toCheckpoint(r: unknown): StoredCheckpoint | undefined {
  if (!r) return undefined;
  const { size, root, note } = r as { size: number; root: Buffer; note: string };
  return { size, root: u8(root), note };
}
