// The Durable Object store (Workers): the LogStore port over a Durable Object's SQLite storage
// (`ctx.storage.sql`), with the same migrations as SQLite on Node. Each batch is one
// `transactionSync`; the object's output gate holds every reply until the write is durable.
import type { Digest } from '../canonical/index.js';
import { StoreError } from '../errors.js';
import type { Hash } from '../log/merkle.js';
import { guarded } from './_guarded.js';
import { applyMigrations, KEY_ENTRY_SQL, POLICY_ENTRY_SQL, type Migration } from './migrations.js';
import type { Batch, DocumentKind, LogStore, StoredCheckpoint, StoredEntry } from './port.js';

/** The slice of the Workers SQL storage API this store uses (DurableObjectStorage). */
export interface DurableSqlStorage {
  sql: { exec(query: string, ...bindings: unknown[]): DurableSqlCursor };
  transactionSync<T>(fn: () => T): T;
}

export interface DurableSqlCursor extends Iterable<Record<string, unknown>> {
  toArray(): Record<string, unknown>[];
}

type Row = Record<string, unknown>;

/** Blobs come back as ArrayBuffer; hand out Uint8Array like every other store. */
const u8 = (v: unknown): Uint8Array => (v instanceof ArrayBuffer ? new Uint8Array(v) : new Uint8Array(v as Uint8Array));

/**
 * Open the store over an object's storage, applying pending migrations. PRAGMAs are left out on
 * purpose: the platform owns durability (every write is replicated before the output gate opens)
 * and refuses `journal_mode`/`synchronous`; BEGIN/COMMIT are replaced by transactionSync.
 */
export function openDurableObjectStore(storage: DurableSqlStorage, migrations: Migration[]): LogStore {
  const exec = (sql: string, ...b: unknown[]) => storage.sql.exec(sql, ...b);
  try {
    applyMigrations(
      {
        exec: (sql) => void exec(sql),
        applied: () => exec('SELECT version FROM schema_migrations').toArray().map((r) => Number(r.version)),
        record: (m) => void exec('INSERT INTO schema_migrations (version, name) VALUES (?, ?)', m.version, m.name),
        transaction: (fn) => storage.transactionSync(fn),
      },
      migrations,
    );
  } catch (cause) {
    if (cause instanceof StoreError) throw cause;
    throw new StoreError('ERR_STORE', `cannot migrate the object's database: ${(cause as Error).message}`, { cause });
  }
  return new DurableObjectStore(storage);
}

class DurableObjectStore implements LogStore {
  private closed = false;

  constructor(private readonly storage: DurableSqlStorage) {}

  private rows(sql: string, ...bindings: unknown[]): Row[] {
    return this.storage.sql.exec(sql, ...bindings).toArray();
  }

  private guard<T>(what: string, fn: () => T): T {
    return guarded(this.closed, what, fn);
  }

  size(): number {
    return this.guard('size', () => Number(this.rows('SELECT COALESCE(MAX(seq) + 1, 0) AS n FROM entries')[0].n));
  }

  entry(seq: number): StoredEntry | undefined {
    return this.guard('read entry', () => {
      const [r] = this.rows('SELECT seq, bytes, leaf FROM entries WHERE seq = ?', seq);
      return r && toEntry(r);
    });
  }

  *entries(from: number, to: number): Iterable<StoredEntry> {
    if (this.closed) throw new StoreError('ERR_STORE_CLOSED', 'store is closed');
    // The cursor streams rows from SQLite; nothing is held beyond the current row.
    for (const r of this.guard('read entries', () => this.storage.sql.exec('SELECT seq, bytes, leaf FROM entries WHERE seq >= ? AND seq < ? ORDER BY seq', from, to))) {
      yield toEntry(r);
    }
  }

  node(level: number, index: number): Hash {
    const [r] = this.guard('read node', () => this.rows('SELECT hash FROM nodes WHERE level = ? AND idx = ?', level, index));
    if (!r) throw new StoreError('ERR_NOT_FOUND', `tree node ${level}/${index} not stored`);
    return u8(r.hash);
  }

  latestCheckpoint(): StoredCheckpoint | undefined {
    return this.guard('read checkpoint', () => toCheckpoint(this.rows('SELECT size, root, note FROM checkpoints ORDER BY size DESC LIMIT 1')[0]));
  }

  checkpointAt(size: number): StoredCheckpoint | undefined {
    return this.guard('read checkpoint', () => toCheckpoint(this.rows('SELECT size, root, note FROM checkpoints WHERE size = ?', size)[0]));
  }

  *checkpoints(): Iterable<StoredCheckpoint> {
    if (this.closed) throw new StoreError('ERR_STORE_CLOSED', 'store is closed');
    for (const r of this.storage.sql.exec('SELECT size, root, note FROM checkpoints ORDER BY size')) yield toCheckpoint(r)!;
  }

  appendBatch(batch: Batch): void {
    this.guard('append batch', () =>
      this.storage.transactionSync(() => {
        const exec = (sql: string, ...b: unknown[]) => this.storage.sql.exec(sql, ...b);
        for (const e of batch.entries) exec('INSERT INTO entries (seq, bytes, leaf) VALUES (?, ?, ?)', e.seq, e.bytes, e.leaf);
        for (const n of batch.nodes) exec('INSERT INTO nodes (level, idx, hash) VALUES (?, ?, ?)', n.level, n.index, n.hash);
        // The batch's highest seq bounds the entry naming each payload (retention, migration 0007).
        const last = batch.entries.reduce((m, e) => Math.max(m, e.seq), -1);
        for (const p of batch.payloads ?? []) exec('INSERT INTO payloads (digest, bytes, last_seq) VALUES (?, ?, ?) ON CONFLICT(digest) DO UPDATE SET last_seq = MAX(COALESCE(last_seq, -1), excluded.last_seq)', p.digest, p.bytes, last >= 0 ? last : this.size());
        const c = batch.checkpoint;
        exec('INSERT INTO checkpoints (size, root, note) VALUES (?, ?, ?)', c.size, c.root, c.note);
      }),
    );
  }

  putPayload(digest: Digest, bytes: Uint8Array): void {
    this.guard('store payload', () => void this.storage.sql.exec('INSERT INTO payloads (digest, bytes, last_seq) VALUES (?, ?, ?) ON CONFLICT(digest) DO UPDATE SET last_seq = MAX(COALESCE(last_seq, -1), excluded.last_seq)', digest, bytes, this.size()));
  }

  payload(digest: Digest): Uint8Array | undefined {
    return this.guard('read payload', () => {
      const [r] = this.rows('SELECT bytes FROM payloads WHERE digest = ?', digest);
      return r && u8(r.bytes);
    });
  }

  erasePayload(digest: Digest): boolean {
    return this.guard('erase payload', () => this.rows('DELETE FROM payloads WHERE digest = ? RETURNING digest', digest).length > 0);
  }

  latestPolicyEntry(): StoredEntry | undefined {
    return this.guard('read policy entry', () => {
      const [r] = this.rows(`SELECT seq, bytes, leaf FROM entries WHERE ${POLICY_ENTRY_SQL} ORDER BY seq DESC LIMIT 1`);
      return r && toEntry(r);
    });
  }

  /** The key history's entries (rotations, revocations): read at every open, so not by a scan of the log. */
  keyEntries(): { seq: number; bytes: Uint8Array }[] {
    return this.guard('read key entries', () => this.rows(`SELECT seq, bytes FROM entries WHERE ${KEY_ENTRY_SQL} ORDER BY seq`).map((r) => ({ seq: Number(r.seq), bytes: u8(r.bytes) })));
  }

  putDocument(kind: DocumentKind, digest: Digest, bytes: Uint8Array): void {
    this.guard('store document', () => void this.storage.sql.exec('INSERT OR IGNORE INTO documents (digest, kind, bytes) VALUES (?, ?, ?)', digest, kind, bytes));
  }

  document(digest: Digest): { kind: DocumentKind; bytes: Uint8Array } | undefined {
    return this.guard('read document', () => {
      const [r] = this.rows('SELECT kind, bytes FROM documents WHERE digest = ?', digest);
      return r && { kind: r.kind as DocumentKind, bytes: u8(r.bytes) };
    });
  }

  meta(key: string): string | undefined {
    return this.guard('read meta', () => this.rows('SELECT value FROM meta WHERE key = ?', key)[0]?.value as string | undefined);
  }

  setMeta(key: string, value: string): void {
    this.guard('write meta', () => void this.storage.sql.exec('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', key, value));
  }

  /** The storage belongs to the object and lives as long as it does: closing only stops this handle. */
  close(): void {
    this.closed = true;
  }
}

function toEntry(r: Row): StoredEntry {
  return { seq: Number(r.seq), bytes: u8(r.bytes), leaf: u8(r.leaf) };
}

function toCheckpoint(r: Row | undefined): StoredCheckpoint | undefined {
  if (!r) return undefined;
  return { size: Number(r.size), root: u8(r.root), note: r.note as string };
}
