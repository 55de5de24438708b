// SQLite store (Node only): better-sqlite3, WAL with synchronous=FULL so a committed batch
// survives kill -9 and power loss; one transaction per batch.
import Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import type { Digest } from '../canonical/index.js';
import { StoreError } from '../errors.js';
import type { Hash, TreeNode } from '../log/merkle.js';
import type { CommitTag } from '../log/commit-tag.js';
import { guarded } from './_guarded.js';
import { decodeEntryRow, encodeEntryRow } from './entry-codec.js';
import { EntryDictionaries } from './entry-dictionaries.js';
import { openSealedTiles, readArchiveCheckpoint, type SealedTiles } from './sealed-tiles.js';
import { applyMigrations, KEPT_ENTRY_SQL, KEY_ENTRY_SQL, orderMigrations, PIN_ENTRY_SQL, POLICY_ENTRY_SQL, type Migration } from './migrations.js';
import type { Batch, DocumentKind, EntryBatch, LogStore, StoredCheckpoint, StoredEntry } from './port.js';

const MIGRATIONS_DIR = new URL('../../migrations/', import.meta.url);

export function loadMigrations(): Migration[] {
  const files = readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql'));
  return orderMigrations(files.map((file) => ({ file, sql: readFileSync(new URL(file, MIGRATIONS_DIR), 'utf8') })));
}

/** Entry rows read by one statement in entries(): a log verify page. */
const ENTRY_CHUNK = 4096;

const u8 = (b: Buffer): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

export interface SqliteStoreOptions {
  readonly?: boolean;
  /**
   * Whether new entry rows are written compressed (docs/storage.md). Default: as the log file's
   * meta key `entry_codec` says (`raw`: no; `deflate` or no key: yes, for new and existing logs alike).
   */
  compress?: boolean;
  /**
   * The tenant's tile archive, where entries pruned from this file are read (archive-prune.ts).
   * Default: the one the newest prune recorded (table `pruned`, relative to the database's folder).
   */
  archive?: string;
  /** Skip the open check of a pruned log's archive (`log verify` runs it itself and reports it as a finding). */
  skipArchiveCheck?: boolean;
}

/** A SQLite log, with what pruning sealed history needs (archive-prune.ts). */
export interface SqliteLogStore extends LogStore {
  /** Entries below this seq (whole tiles) live in the archive only, but for state entries. */
  prunedBelow(): number;
  /** The archive pruned entries are read from (undefined: none recorded or given). */
  archiveDir(): string | undefined;
  /**
   * Raise the watermark to `below` and delete, in one transaction, the entry rows (state entries
   * kept) and the nodes under level 8 below it; `archive` is recorded for later opens. The caller
   * has checked the archive first (archive-prune.ts); the triggers of migration 0009 refuse the rest.
   */
  dropSealed(below: number, archive: string): { entries: number; nodes: number };
  /** VACUUM: give the freed pages back to the file system (rewrites the file; blocks writers meanwhile). */
  vacuum(): void;
}

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

interface Row {
  seq: number;
  bytes: Buffer;
  leaf: Buffer;
  codec: number;
}

/**
 * Log files are private to the service's user: the database is made 0600 before SQLite opens it,
 * and SQLite gives its -wal and -shm files the database's mode (existing ones are tightened too).
 */
function makePrivate(path: string): void {
  closeSync(openSync(path, 'a', 0o600));
  for (const p of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(p)) chmodSync(p, 0o600);
}

export function openSqliteStore(path: string, opts: SqliteStoreOptions = {}): SqliteLogStore {
  let db: Database.Database;
  try {
    if (!opts.readonly) makePrivate(path);
    db = new Database(path, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
  } catch (cause) {
    throw new StoreError('ERR_STORE', `cannot open database ${path}: ${(cause as Error).message}`, { cause });
  }
  if (!opts.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    // Erasure erases: deleted content is overwritten with zeros, not just unlinked (erasePayload).
    db.pragma('secure_delete = ON');
    applyMigrations(
      {
        exec: (sql) => db.exec(sql),
        applied: () => (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version),
        record: (m) => db.prepare('INSERT INTO schema_migrations (version, name) VALUES (?, ?)').run(m.version, m.name),
        transaction: (fn) => db.transaction(fn)(),
      },
      loadMigrations(),
    );
  }
  const store = new SqliteStore(db, opts.compress, path, opts.archive);
  if (!opts.skipArchiveCheck && store.prunedBelow() > 0) {
    try {
      checkPrunedOpen(store);
    } catch (e) {
      store.close();
      throw e;
    }
  }
  return store;
}

/**
 * The open check of a pruned log: the watermark (table `pruned`) is no higher than what the archive holds
 * under a checkpoint this log stored, and the last pruned tile reads back against the log's tree.
 * O(1): one checkpoint and one tile. Catches a watermark raised by hand without archiving.
 */
export function checkPrunedOpen(store: SqliteLogStore): void {
  const below = store.prunedBelow();
  if (below === 0) return;
  const dir = store.archiveDir();
  const refuse = (why: string) => new StoreError('ERR_ARCHIVE_WATERMARK', `the log's entries below ${below} were pruned to the archive, but ${why} (restore the archive, or the database and archive together, from the backup taken before pruning; docs/archive.md)`);
  if (!dir) throw refuse('no archive is recorded or given');
  // The whole directory gone is a restore that brought back the database alone, not an edit: say that plainly.
  if (!existsSync(dir)) throw archiveMissing(below, dir);
  let note: string;
  try {
    note = readArchiveCheckpoint(dir);
  } catch (e) {
    throw refuse(`${join(dir, 'checkpoint')} cannot be read (${(e as Error).message})`);
  }
  const size = Number(/^[^\n]*\n(\d+)\n/.exec(note)?.[1]);
  if (!Number.isSafeInteger(size) || store.checkpointAt(size)?.note !== note) throw refuse(`${join(dir, 'checkpoint')} is not a checkpoint this log stored`);
  if (size < below) throw refuse(`the archive's checkpoint covers only ${size} entries`);
  store.entry(below - 1); // the last pruned tile, read and checked (ERR_ARCHIVE_* names the file)
}

/**
 * A pruned log whose archive directory is not there at all: the usual cause is a restore of the
 * database without DATA/archive/ (docs/keeping-logs.md#restoring-a-pruned-log). `orElse`: another fix the caller offers.
 */
export function archiveMissing(below: number, dir: string, orElse?: string): StoreError {
  return new StoreError(
    'ERR_ARCHIVE_MISSING',
    `the log is pruned below seq ${below} and its archive at ${dir} is missing: entries below ${below} are kept only there (restore the archive directory ${dir} from the same backup as the database${orElse ? `, or ${orElse}` : ''}; docs/keeping-logs.md#restoring-a-pruned-log)`,
  );
}

const TILE = 256;

class SqliteStore implements SqliteLogStore {
  private readonly q;
  private closed = false;
  private sealed: SealedTiles | undefined;
  private pruned = 0;
  private prunedArchive: string | undefined;
  private prunedQ: Database.Statement | undefined;
  private putTag: Database.Statement | undefined;
  private tagQuery: Database.Statement | undefined;
  // Prepared on first use: a read-only open of a log written before migration 0007 has no last_seq.
  private putPayloadQ: Database.Statement | undefined;
  private expiredQ: { since: Database.Statement; unknown: Database.Statement } | undefined;
  private eraseExpiredQ: Database.Statement | undefined;
  private prunedTableQ: Database.Statement | undefined;
  // Each commit's transaction function, made once: db.transaction() builds its wrappers on every
  // call (issue 36: one per commit on the gateway's path).
  private batchTx: ((b: Batch) => void) | undefined;
  private entriesTx: ((b: EntryBatch) => void) | undefined;

  private readonly dicts: EntryDictionaries;
  // A read-only open of a log from before migration 0008 has neither the codec column nor the
  // dictionaries: every row in it is raw.
  private readonly compact: boolean;

  constructor(
    private readonly db: Database.Database,
    private compress: boolean | undefined,
    private readonly path: string,
    private readonly archiveOption: string | undefined,
  ) {
    this.compact = (db.pragma('table_info(entries)') as { name: string }[]).some((c) => c.name === 'codec');
    const cols = `seq, bytes, leaf, ${this.compact ? 'codec' : '0 AS codec'}`;
    this.dicts = new EntryDictionaries(db, this.compact, () => (this.q.latestPolicy.get() as Row | undefined)?.seq);
    this.q = {
      size: db.prepare('SELECT COALESCE(MAX(seq) + 1, 0) AS n FROM entries').pluck(),
      entry: db.prepare(`SELECT ${cols} FROM entries WHERE seq = ?`),
      // Rows as arrays (raw): no object with named fields per row on the path `log verify` reads every entry by.
      range: db.prepare(`SELECT ${cols} FROM entries WHERE seq >= ? AND seq < ? ORDER BY seq`).raw(),
      node: db.prepare('SELECT hash FROM nodes WHERE level = ? AND idx = ?').pluck(),
      nodeRange: db.prepare('SELECT idx, hash FROM nodes WHERE level = ? AND idx >= ? AND idx <= ? ORDER BY idx').raw(),
      latest: db.prepare('SELECT size, root, note FROM checkpoints ORDER BY size DESC LIMIT 1'),
      checkpointAt: db.prepare('SELECT size, root, note FROM checkpoints WHERE size = ?'),
      checkpoints: db.prepare('SELECT size, root, note FROM checkpoints ORDER BY size'),
      putEntry: db.prepare(this.compact ? 'INSERT INTO entries (seq, bytes, leaf, codec) VALUES (?, ?, ?, ?)' : 'INSERT INTO entries (seq, bytes, leaf) VALUES (?, ?, ?)'),
      putNode: db.prepare('INSERT INTO nodes (level, idx, hash) VALUES (?, ?, ?)'),
      putCheckpoint: db.prepare('INSERT INTO checkpoints (size, root, note) VALUES (?, ?, ?)'),
      payload: db.prepare('SELECT bytes FROM payloads WHERE digest = ?').pluck(),
      erase: db.prepare('DELETE FROM payloads WHERE digest = ?'),
      latestPolicy: db.prepare(`SELECT ${cols} FROM entries WHERE ${POLICY_ENTRY_SQL} ORDER BY seq DESC LIMIT 1`),
      pins: db.prepare(`SELECT ${cols} FROM entries WHERE ${PIN_ENTRY_SQL} ORDER BY seq`),
      keyEntries: db.prepare(`SELECT ${cols} FROM entries WHERE ${KEY_ENTRY_SQL} ORDER BY seq`),
      putDocument: db.prepare('INSERT OR IGNORE INTO documents (digest, kind, bytes) VALUES (?, ?, ?)'),
      document: db.prepare('SELECT kind, bytes FROM documents WHERE digest = ?'),
      meta: db.prepare('SELECT value FROM meta WHERE key = ?').pluck(),
      setMeta: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
    };
    this.refreshPruned();
  }

  /** Re-reads the watermark: another connection (`vouch log prune`) may have raised it. */
  private refreshPruned(): number {
    // Prepared on first use: a read-only open of a log no newer version wrote has no pruned table (nothing pruned).
    if (!this.prunedQ) {
      // The look-up prepared once: verify reads the watermark for every page of a log with no such table.
      this.prunedTableQ ??= this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'pruned'");
      if (!this.prunedTableQ.get()) return 0;
      this.prunedQ = this.db.prepare('SELECT below, archive FROM pruned ORDER BY below DESC LIMIT 1');
    }
    const r = this.prunedQ.get() as { below: number; archive: string } | undefined;
    if (!r) return 0;
    if (!Number.isSafeInteger(r.below) || r.below <= 0 || r.below % TILE !== 0) throw new StoreError('ERR_ARCHIVE_WATERMARK', `the pruned watermark is ${JSON.stringify(r.below)}, not a whole number of tiles: the database was edited`);
    this.prunedArchive = r.archive;
    return (this.pruned = Math.max(this.pruned, r.below));
  }

  prunedBelow(): number {
    return this.guard('read watermark', () => this.refreshPruned());
  }

  archiveDir(): string | undefined {
    if (this.archiveOption) return this.archiveOption;
    this.refreshPruned();
    const rel = this.prunedArchive;
    return rel === undefined ? undefined : isAbsolute(rel) ? rel : join(dirname(this.path), rel);
  }

  private tiles(): SealedTiles {
    const dir = this.archiveDir();
    if (!dir) throw new StoreError('ERR_ARCHIVE_MISSING', `entries below ${this.pruned} were pruned from ${this.path}, and no archive is recorded or given to read them from`);
    return (this.sealed ??= openSealedTiles(dir, (i) => {
      const h = this.q.node.get(8, i) as Buffer | undefined;
      return h && u8(h);
    }));
  }

  /** A pruned entry, from its archive tile (checked). */
  private sealedEntry(seq: number): StoredEntry {
    const t = this.tiles().tile(Math.floor(seq / TILE));
    return { seq, bytes: t.entries[seq % TILE], leaf: t.levels[0][seq % TILE] };
  }

  /** A pruned node (level < 8), from its archive tile (checked). */
  private sealedNode(level: number, index: number): Hash {
    const perTile = TILE >> level;
    return this.tiles().tile(Math.floor(index / perTile)).levels[level][index % perTile];
  }

  /** Whether node level/index was pruned: under level 8 and its leaves all below the watermark. */
  private isPrunedNode(level: number, index: number): boolean {
    return level < 8 && (index + 1) * 2 ** level <= this.pruned;
  }

  dropSealed(below: number, archive: string): { entries: number; nodes: number } {
    return this.guard('prune sealed entries', () =>
      this.db.transaction(() => {
        const rel = relative(dirname(this.path), archive);
        this.db.prepare('INSERT INTO pruned (below, archive) VALUES (?, ?)').run(below, rel === '' ? '.' : rel);
        const entries = this.db.prepare(`DELETE FROM entries WHERE seq < ? AND NOT (${KEPT_ENTRY_SQL})`).run(below).changes;
        const nodes = this.db.prepare('DELETE FROM nodes WHERE level < 8 AND ((idx + 1) << level) <= ?').run(below).changes;
        this.pruned = Math.max(this.pruned, below);
        this.sealed = undefined;
        return { entries, nodes };
      })(),
    );
  }

  vacuum(): void {
    this.guard('vacuum', () => {
      this.db.exec('VACUUM');
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    });
  }

  private guard<T>(what: string, fn: () => T): T {
    return guarded(this.closed, what, fn);
  }

  /** Every read of an entry row's bytes: the signed bytes, or ERR_STORE_INCONSISTENT (entry-codec.ts). */
  private signedBytes(r: Row): Uint8Array {
    return decodeEntryRow(r.seq, r.codec, u8(r.bytes), u8(r.leaf), (id) => this.dicts.get(id));
  }

  private stored(r: Row): StoredEntry {
    return { seq: r.seq, bytes: this.signedBytes(r), leaf: u8(r.leaf) };
  }

  /** A commit that fails rolls back any dictionary it made: the writer forgets it too. */
  private commit<T>(tx: (b: T) => void, b: T): void {
    try {
      tx(b);
    } catch (e) {
      this.dicts.reset();
      throw e;
    }
  }

  size(): number {
    // A log pruned up to its end keeps no row at its last seq: the watermark still counts.
    return this.guard('size', () => Math.max(this.q.size.get() as number, this.pruned));
  }

  entry(seq: number): StoredEntry | undefined {
    return this.guard('read entry', () => {
      const r = this.q.entry.get(seq) as Row | undefined;
      if (r) return this.stored(r);
      return seq >= 0 && seq < this.refreshPruned() ? this.sealedEntry(seq) : undefined;
    });
  }

  /** Pruned entries from the archive, the rest from rows; a prune committed meanwhile shows as a gap below the new watermark, filled from the archive too. */
  *entries(from: number, to: number): Iterable<StoredEntry> {
    if (this.closed) throw new StoreError('ERR_STORE_CLOSED', 'store is closed');
    let next = Math.max(0, from);
    const sealedTo = (end: number) => Math.min(end, this.refreshPruned());
    for (const end = sealedTo(to); next < end; next++) yield this.sealedEntry(next);
    // Rows a chunk at a time with one .all() each: stepping a statement row by row from JS cost log
    // verify's reading thread more than all its hashing. Each chunk is its own seq range, so a gap
    // between chunks is seen at the next row as it would be within one.
    // Chunks end at the last row (one indexed read): a caller's `to` may be past the end, even Infinity.
    for (let lo = next, rowsEnd = Math.min(to, this.q.size.get() as number); lo < rowsEnd; lo += ENTRY_CHUNK) {
      const rows = this.q.range.all(lo, Math.min(rowsEnd, lo + ENTRY_CHUNK)) as [number, Buffer, Buffer, number][];
      for (const [seq, bytes, leaf, codec] of rows) {
        // Only a gap can be a prune committed meanwhile: the watermark is read again there, not per row.
        if (seq > next) for (const end = sealedTo(seq); next < end; next++) yield this.sealedEntry(next);
        if (seq < next) continue; // a state entry kept below the watermark, already given from the archive
        yield this.stored({ seq, bytes, leaf, codec });
        next = seq + 1;
      }
    }
    for (const end = sealedTo(to); next < end; next++) yield this.sealedEntry(next);
  }

  node(level: number, index: number): Hash {
    const h = this.guard('read node', () => this.q.node.get(level, index) as Buffer | undefined);
    if (h) return u8(h);
    if (this.isPrunedNode(level, index) || (this.refreshPruned(), this.isPrunedNode(level, index))) return this.sealedNode(level, index);
    throw new StoreError('ERR_NOT_FOUND', `tree node ${level}/${index} not stored`);
  }

  nodeRange(level: number, lo: number, hi: number): TreeNode[] {
    return this.guard('read nodes', () => {
      const out: TreeNode[] = [];
      let i = lo;
      if (level < 8) for (const end = Math.min(hi + 1, Math.floor(this.refreshPruned() / 2 ** level)); i < end; i++) out.push({ level, index: i, hash: this.sealedNode(level, i) });
      for (const [idx, hash] of this.q.nodeRange.all(level, i, hi) as [number, Buffer][]) out.push({ level, index: idx, hash: u8(hash) });
      return out;
    });
  }

  latestCheckpoint(): StoredCheckpoint | undefined {
    return this.guard('read checkpoint', () => toCheckpoint(this.q.latest.get()));
  }

  checkpointAt(size: number): StoredCheckpoint | undefined {
    return this.guard('read checkpoint', () => toCheckpoint(this.q.checkpointAt.get(size)));
  }

  *checkpoints(): Iterable<StoredCheckpoint> {
    for (const r of this.q.checkpoints.iterate()) yield toCheckpoint(r)!;
  }

  appendBatch(batch: Batch): void {
    this.guard('append batch', () =>
      this.commit(
        (this.batchTx ??= this.db.transaction((b: Batch) => {
          this.putRows(b);
          const c = b.checkpoint;
          this.q.putCheckpoint.run(c.size, c.root, c.note);
        })),
        batch,
      ),
    );
  }

  /** Entries durable before signed (log/appender.ts): synchronous=FULL makes this commit an fsync. */
  appendEntries(batch: EntryBatch): void {
    this.guard('append entries', () =>
      this.commit(
        (this.entriesTx ??= this.db.transaction((b: EntryBatch) => {
          this.putRows(b);
          if (b.tag) (this.putTag ??= this.db.prepare('INSERT INTO commit_tag (id, size, tag) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET size = excluded.size, tag = excluded.tag')).run(b.tag.size, b.tag.tag);
        })),
        batch,
      ),
    );
  }

  private putRows(b: EntryBatch): void {
    let last = -1;
    for (const e of b.entries) {
      if (!this.compact) this.q.putEntry.run(e.seq, e.bytes, e.leaf);
      else {
        // Decided at the first write (the meta key may be set after open), then fixed for this store.
        this.compress ??= compressFromMeta(this.q.meta.get(ENTRY_CODEC_META));
        const row = encodeEntryRow(e.bytes, this.compress ? this.dicts.forEntry(e.seq, e.bytes) : undefined);
        this.q.putEntry.run(e.seq, row.stored, e.leaf, row.codec);
      }
      last = Math.max(last, e.seq);
    }
    if (last < 0 && b.payloads?.length) last = this.q.size.get() as number;
    for (const n of b.nodes) this.q.putNode.run(n.level, n.index, n.hash);
    // The batch's highest seq: an upper bound on the entry naming each payload (retention keeps longer, never shorter).
    for (const p of b.payloads ?? []) this.storePayload(p.digest, p.bytes, last);
  }

  /** Stores a payload, or moves an existing one's last_seq forward (a newer entry names it again). */
  private storePayload(digest: string, bytes: Uint8Array, lastSeq: number): void {
    (this.putPayloadQ ??= this.db.prepare('INSERT INTO payloads (digest, bytes, last_seq) VALUES (?, ?, ?) ON CONFLICT(digest) DO UPDATE SET last_seq = MAX(COALESCE(last_seq, -1), excluded.last_seq)')).run(digest, bytes, lastSeq);
  }

  commitTag(): CommitTag | undefined {
    return this.guard('read commit tag', () => {
      // Prepared on first use: a read-only open of a log no newer version wrote has no commit_tag
      // table (migrations run on writable opens only), and holds no tag.
      if (!this.tagQuery) {
        if (!this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'commit_tag'").get()) return undefined;
        this.tagQuery = this.db.prepare('SELECT size, tag FROM commit_tag WHERE id = 1');
      }
      const r = this.tagQuery.get() as { size: number; tag: Buffer } | undefined;
      return r && { size: r.size, tag: new Uint8Array(r.tag.buffer, r.tag.byteOffset, r.tag.byteLength) };
    });
  }

  putCheckpoint(c: StoredCheckpoint): void {
    this.guard('store checkpoint', () => void this.q.putCheckpoint.run(c.size, c.root, c.note));
  }

  putPayload(digest: Digest, bytes: Uint8Array): void {
    // Outside a commit: the next seq bounds any entry that names it.
    this.guard('store payload', () => this.storePayload(digest, bytes, this.q.size.get() as number));
  }

  expiredPayloads(beforeSeq: number, limit: number): Digest[] {
    return this.guard('find expired payloads', () => {
      const q = (this.expiredQ ??= {
        since: this.db.prepare('SELECT digest FROM payloads WHERE last_seq < ? ORDER BY last_seq LIMIT ?').pluck(),
        unknown: this.db.prepare('SELECT digest FROM payloads WHERE last_seq IS NULL LIMIT ?').pluck(),
      });
      const out = q.since.all(beforeSeq, limit) as Digest[];
      // Rows from before migration 0007 were last named before payload_seq_floor.
      if (out.length < limit && this.payloadFloor() <= beforeSeq) out.push(...(q.unknown.all(limit - out.length) as Digest[]));
      return out;
    });
  }

  eraseExpiredPayload(digest: Digest, beforeSeq: number): boolean {
    return this.guard('erase expired payload', () => {
      const floor = this.payloadFloor();
      const q = (this.eraseExpiredQ ??= this.db.prepare('DELETE FROM payloads WHERE digest = ? AND (last_seq < ? OR (last_seq IS NULL AND ? <= ?))'));
      const erased = q.run(digest, beforeSeq, floor, beforeSeq).changes > 0;
      if (erased) this.purgeWal();
      return erased;
    });
  }

  /** Payload rows with no last_seq were last named before this seq (migration 0007); 0 when the log began with it. */
  private payloadFloor(): number {
    const v = this.q.meta.get('payload_seq_floor') as string | undefined;
    const n = v === undefined ? NaN : Number(v);
    // Unreadable (edited): treat those rows as named just now, so nothing is erased early.
    return Number.isSafeInteger(n) && n >= 0 ? n : Number.MAX_SAFE_INTEGER;
  }

  payload(digest: Digest): Uint8Array | undefined {
    return this.guard('read payload', () => {
      const b = this.q.payload.get(digest) as Buffer | undefined;
      return b && u8(b);
    });
  }

  erasePayload(digest: Digest): boolean {
    return this.guard('erase payload', () => {
      const erased = this.q.erase.run(digest).changes > 0;
      if (erased) this.purgeWal();
      return erased;
    });
  }

  /**
   * secure_delete zeroed the erased bytes in the pages this delete wrote, but older WAL frames
   * (the insert, from the writer thread's connection) still hold them: copy the newest pages back
   * and truncate the WAL before the erasure returns. TRUNCATE waits (busy timeout) for a commit in
   * flight and for readers on older snapshots; if it cannot finish, the erasure fails loudly.
   */
  private purgeWal(): void {
    for (let attempt = 0; attempt < 3; attempt++) {
      const [r] = this.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      if (!r || r.busy === 0) return;
    }
    throw new StoreError('ERR_STORE', 'payload deleted, but the WAL could not be checkpointed (a reader or writer kept it busy): erased bytes may remain in the -wal file until the next checkpoint');
  }

  latestPolicyEntry(): StoredEntry | undefined {
    return this.guard('read policy entry', () => {
      const r = this.q.latestPolicy.get() as Row | undefined;
      return r && this.stored(r);
    });
  }

  /** The `key` entries in seq order, through their partial index (migration 0005). */
  keyEntries(): { seq: number; bytes: Uint8Array }[] {
    return this.guard('read key entries', () => (this.q.keyEntries.all() as Row[]).map((r) => ({ seq: r.seq, bytes: this.signedBytes(r) })));
  }

  /** The `pin` entries in seq order, through their partial index (migration 0004). */
  pinEntries(): { seq: number; bytes: Uint8Array }[] {
    return this.guard('read pin entries', () => (this.q.pins.all() as Row[]).map((r) => ({ seq: r.seq, bytes: this.signedBytes(r) })));
  }

  putDocument(kind: DocumentKind, digest: Digest, bytes: Uint8Array): void {
    this.guard('store document', () => this.q.putDocument.run(digest, kind, bytes));
  }

  document(digest: Digest): { kind: DocumentKind; bytes: Uint8Array } | undefined {
    return this.guard('read document', () => {
      const r = this.q.document.get(digest) as { kind: DocumentKind; bytes: Buffer } | undefined;
      return r && { kind: r.kind, bytes: u8(r.bytes) };
    });
  }

  meta(key: string): string | undefined {
    return this.guard('read meta', () => this.q.meta.get(key) as string | undefined);
  }

  setMeta(key: string, value: string): void {
    this.guard('write meta', () => this.q.setMeta.run(key, value));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }
}

function toCheckpoint(r: unknown): StoredCheckpoint | undefined {
  if (!r) return undefined;
  const { size, root, note } = r as { size: number; root: Buffer; note: string };
  return { size, root: u8(root), note };
}
