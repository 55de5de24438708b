// Opening a SQLite log file (Node only): made private to the service's user, WAL with
// synchronous=FULL so a committed batch survives kill -9 and power loss, migrations applied.
import Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { StoreError } from '../errors.js';
import { applyMigrations, orderMigrations, type Migration } from './migrations.js';

const MIGRATIONS_DIR = new URL('../../migrations/', import.meta.url);

export function loadMigrations(): Migration[] {
  const files = readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql'));
  return orderMigrations(files.map((file) => ({ file, sql: readFileSync(new URL(file, MIGRATIONS_DIR), 'utf8') })));
}

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

/**
 * Log files are private to the service's user: the database is made 0600 before SQLite opens it,
 * and SQLite gives its -wal and -shm files the database's mode (existing ones are tightened too).
 */
function makePrivate(path: string): void {
  closeSync(openSync(path, 'a', 0o600));
  for (const p of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(p)) chmodSync(p, 0o600);
}

/** The database file, private, in WAL mode and migrated (a writable open); read-only opens change nothing. */
export function openDatabase(path: string, readonly: boolean): Database.Database {
  let db: Database.Database;
  try {
    if (!readonly) makePrivate(path);
    db = new Database(path, { readonly, fileMustExist: readonly });
  } catch (cause) {
    throw new StoreError('ERR_STORE', `cannot open database ${path}: ${(cause as Error).message}`, { cause });
  }
  if (!readonly) {
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
  return db;
}
