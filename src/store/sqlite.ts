// SQLite store (Node only): the LogStore over one log file, one transaction per batch. Its parts:
// opening the file (sqlite-open.ts), statements and row decoding (sqlite-rows.ts), the write path
// (sqlite-append.ts), pruned history read from the archive (sqlite-pruned.ts), payload rows (sqlite-payloads.ts).
import type Database from 'better-sqlite3';
import type { Digest } from '../canonical/index.js';
import { StoreError } from '../errors.js';
import type { Hash, TreeNode } from '../log/merkle.js';
import type { CommitTag } from '../log/commit-tag.js';
import { guarded } from './_guarded.js';
import { EntryDictionaries } from './entry-dictionaries.js';
import type { Batch, DocumentKind, EntryBatch, EntryCopies, StoredCheckpoint, StoredEntry } from './port.js';
import { SqliteAppends } from './sqlite-append.js';
import { openDatabase, type SqliteStoreOptions } from './sqlite-open.js';
import { SqlitePayloads } from './sqlite-payloads.js';
import { checkPrunedOpen, SqlitePrunedStore, type SqliteLogStore } from './sqlite-pruned.js';
import { prepareStatements, signedBytes, storedEntry, toCheckpoint, u8, type DictionaryOf, type Row, type Statements } from './sqlite-rows.js';

// The split modules' exports, from here as before (node.ts and the rest import them from sqlite.js).
export { loadMigrations, type SqliteStoreOptions } from './sqlite-open.js';
export { archiveMissing, checkPrunedOpen, type SqliteLogStore } from './sqlite-pruned.js';
export { compressFromMeta, ENTRY_CODEC_META } from './sqlite-rows.js';

/** Entry rows read by one statement in entries(): a log verify page. */
const ENTRY_CHUNK = 4096;

export function openSqliteStore(path: string, opts: SqliteStoreOptions = {}): SqliteLogStore {
  const db = openDatabase(path, opts.readonly ?? false);
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

class SqliteStore extends SqlitePrunedStore implements SqliteLogStore {
  private readonly q: Statements;
  private readonly payloads: SqlitePayloads;
  private closed = false;
  private readonly appends: SqliteAppends;
  private tagQuery: Database.Statement | undefined;

  private readonly dicts: EntryDictionaries;
  // Made once: entry rows are decoded through it, and a function per row would be garbage per row.
  private readonly dictionary: DictionaryOf = (id) => this.dicts.get(id);

  constructor(
    db: Database.Database,
    compress: boolean | undefined,
    path: string,
    archiveOption: string | undefined,
  ) {
    super(db, path, archiveOption);
    // A read-only open of a log from before migration 0008 has neither the codec column nor the
    // dictionaries: every row in it is raw.
    const compact = (db.pragma('table_info(entries)') as { name: string }[]).some((c) => c.name === 'codec');
    this.dicts = new EntryDictionaries(db, compact, () => (this.q.latestPolicy.get() as Row | undefined)?.seq);
    this.q = prepareStatements(db, compact);
    this.payloads = new SqlitePayloads(db, this.q.meta);
    this.appends = new SqliteAppends(db, this.q, this.dicts, this.payloads, compact, compress);
    this.refreshPruned();
  }

  prunedBelow(): number {
    return this.guard('read watermark', () => this.refreshPruned());
  }

  dropSealed(below: number, archive: string): { entries: number; nodes: number } {
    return this.guard('prune sealed entries', () => this.dropSealedRows(below, archive));
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

  size(): number {
    // A log pruned up to its end keeps no row at its last seq: the watermark still counts.
    return this.guard('size', () => Math.max(this.q.size.get() as number, this.pruned));
  }

  entry(seq: number): StoredEntry | undefined {
    return this.guard('read entry', () => {
      const r = this.q.entry.get(seq) as Row | undefined;
      if (r) return storedEntry(r, this.dictionary);
      return seq >= 0 && seq < this.refreshPruned() ? this.sealedEntry(seq) : undefined;
    });
  }

  /** Pruned entries from the archive, the rest from rows; a prune committed meanwhile shows as a gap below the new watermark, filled from the archive too. */
  *entries(from: number, to: number, copies?: EntryCopies): Iterable<StoredEntry> {
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
        yield storedEntry({ seq, bytes, leaf, codec }, this.dictionary, copies?.(seq));
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

  nodesUnlike(level: number, lo: number, hashes: Uint8Array): { stored: number; unlike: number[] } {
    return this.guard('compare nodes', () => {
      const r = this.q.nodesUnlike.get({ level, lo, end: lo + Math.floor(hashes.length / 32), hashes }) as { stored: number; unlike: string | null };
      return { stored: r.stored, unlike: r.unlike ? r.unlike.split(',').map(Number) : [] };
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
    this.guard('append batch', () => this.appends.batch(batch));
  }

  appendEntries(batch: EntryBatch): void {
    this.guard('append entries', () => this.appends.entries(batch));
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
    this.guard('store payload', () => this.payloads.put(digest, bytes, this.q.size.get() as number));
  }

  expiredPayloads(beforeSeq: number, limit: number): Digest[] {
    return this.guard('find expired payloads', () => this.payloads.expired(beforeSeq, limit));
  }

  eraseExpiredPayload(digest: Digest, beforeSeq: number): boolean {
    return this.guard('erase expired payload', () => this.payloads.eraseExpired(digest, beforeSeq));
  }

  payload(digest: Digest): Uint8Array | undefined {
    return this.guard('read payload', () => this.payloads.read(digest));
  }

  erasePayload(digest: Digest): boolean {
    return this.guard('erase payload', () => this.payloads.remove(digest));
  }

  latestPolicyEntry(): StoredEntry | undefined {
    return this.guard('read policy entry', () => {
      const r = this.q.latestPolicy.get() as Row | undefined;
      return r && storedEntry(r, this.dictionary);
    });
  }

  /** The `key` entries in seq order, through their partial index (migration 0005). */
  keyEntries(): { seq: number; bytes: Uint8Array }[] {
    return this.guard('read key entries', () => (this.q.keyEntries.all() as Row[]).map((r) => ({ seq: r.seq, bytes: signedBytes(r, this.dictionary) })));
  }

  /** The `pin` entries in seq order, through their partial index (migration 0004). */
  pinEntries(): { seq: number; bytes: Uint8Array }[] {
    return this.guard('read pin entries', () => (this.q.pins.all() as Row[]).map((r) => ({ seq: r.seq, bytes: signedBytes(r, this.dictionary) })));
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
