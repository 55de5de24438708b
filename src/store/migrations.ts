// Applies migrations/NNNN_name.sql in order and records each, for any SQL store (portable: the
// caller supplies the SQL text, read from disk on Node or bundled on Workers).
import { StoreError } from '../errors.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export interface MigrationTarget {
  exec(sql: string): void;
  /** Versions already applied. */
  applied(): number[];
  record(m: Migration): void;
  /** Runs fn in one transaction. */
  transaction(fn: () => void): void;
}

/**
 * Which entries are `policy` entries, in SQL: exactly the WHERE of migration 0003's partial
 * index `entries_policy`, so a query with it walks that index (SQLite uses a partial index only
 * when the query repeats its terms). Stores find the newest policy entry with it.
 */
export const POLICY_ENTRY_SQL = `instr(bytes, CAST('"type":"policy"' AS BLOB)) > 0 AND json_valid(CAST(bytes AS TEXT)) AND json_extract(CAST(bytes AS TEXT), '$.type') = 'policy'`;

/** Which entries are `pin` entries (tool-pins.ts): the WHERE of migration 0004's partial index `entries_pin`. */
export const PIN_ENTRY_SQL = `instr(bytes, CAST('"type":"pin"' AS BLOB)) > 0 AND json_valid(CAST(bytes AS TEXT)) AND json_extract(CAST(bytes AS TEXT), '$.type') = 'pin'`;

/** Which entries are `key` entries (log/key-history.ts): the WHERE of migration 0005's partial index `entries_key`. */
export const KEY_ENTRY_SQL = `instr(bytes, CAST('"type":"key"' AS BLOB)) > 0 AND json_valid(CAST(bytes AS TEXT)) AND json_extract(CAST(bytes AS TEXT), '$.type') = 'key'`;

/**
 * Entries pruning keeps in SQLite (migration 0009's trigger refuses deleting them): the state the
 * service reads through the indexes of migrations 0003-0005. Such rows are always raw, never compact
 * (entry-codec.ts), so reading the stored bytes as JSON finds every one of them.
 */
export const KEPT_ENTRY_SQL = `json_valid(CAST(bytes AS TEXT)) AND json_extract(CAST(bytes AS TEXT), '$.type') IN ('policy', 'pin', 'key')`;

export const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY, name TEXT NOT NULL)`;

/** Parse `NNNN_name.sql` file names; refuses gaps and duplicates so order is never ambiguous. */
export function orderMigrations(files: { file: string; sql: string }[]): Migration[] {
  const out = files.map(({ file, sql }) => {
    const m = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(file);
    if (!m) throw new StoreError('ERR_STORE', `bad migration file name: ${file}`);
    return { version: Number(m[1]), name: m[2], sql };
  });
  out.sort((a, b) => a.version - b.version);
  out.forEach((m, i) => {
    if (m.version !== i + 1) throw new StoreError('ERR_STORE', `migrations must be numbered 0001.. without gaps (found ${m.version} at position ${i + 1})`);
  });
  return out;
}

export function applyMigrations(target: MigrationTarget, migrations: Migration[]): number {
  target.exec(MIGRATIONS_TABLE);
  const done = new Set(target.applied());
  const known = new Set(migrations.map((m) => m.version));
  for (const v of done) {
    if (!known.has(v)) throw new StoreError('ERR_STORE', `database has migration ${v} that this version of vouch does not know: refusing to open it`);
  }
  let n = 0;
  for (const m of migrations) {
    if (done.has(m.version)) continue;
    target.transaction(() => {
      target.exec(m.sql);
      target.record(m);
    });
    n++;
  }
  return n;
}
