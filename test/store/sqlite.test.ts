// The SQLite store: the shared conformance suite, plus what only SQLite has (triggers, files, WAL).
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LogStore } from '../../src/store/index.js';
import { openSqliteStore } from '../../src/store/node.js';
import { runStoreConformance } from './conformance.js';

const tmp = () => join(mkdtempSync(join(tmpdir(), 'vouch-sqlite-')), 'log.db');

const paths = new WeakMap<LogStore, string>();
runStoreConformance(
  'sqlite',
  () => {
    const path = tmp();
    const s = openSqliteStore(path);
    paths.set(s, path);
    return s;
  },
  (s) => (query, ...bindings) => {
    const db = new Database(paths.get(s)!);
    try {
      const st = db.prepare(query);
      return st.reader ? (st.all(...bindings) as Record<string, unknown>[]) : (st.run(...bindings), []);
    } finally {
      db.close();
    }
  },
);

describe('sqlite specifics', () => {
  it('a read-only open of a log written before migration 6 (no commit_tag table) works and holds no tag', () => {
    const path = tmp();
    openSqliteStore(path).close();
    const db = new Database(path);
    db.exec('DROP TABLE commit_tag; DELETE FROM schema_migrations WHERE version = 6');
    db.close();
    const ro = openSqliteStore(path, { readonly: true });
    expect(ro.commitTag!()).toBeUndefined();
    expect(ro.size()).toBe(0);
    ro.close();
    // A writable open applies the migration; the table is there again.
    const rw = openSqliteStore(path);
    expect(rw.commitTag!()).toBeUndefined();
    rw.close();
    const check = new Database(path, { readonly: true });
    expect(check.prepare("SELECT name FROM sqlite_master WHERE name = 'commit_tag'").get()).toEqual({ name: 'commit_tag' });
    check.close();
  });

  it('applies migrations in order, records them, and reopens without reapplying', () => {
    const path = tmp();
    openSqliteStore(path).close();
    openSqliteStore(path).close();
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all()).toEqual([
      { version: 1, name: 'log' },
      { version: 2, name: 'payloads' },
      { version: 3, name: 'rules_by_entry' },
      { version: 4, name: 'pin_entries' },
      { version: 5, name: 'key_entries' },
      { version: 6, name: 'commit_tag' },
      { version: 7, name: 'payload_retention' },
      { version: 8, name: 'entry_codec' },
      { version: 9, name: 'pruned_entries' },
    ]);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('triggers refuse UPDATE and DELETE on entries, nodes and checkpoints', () => {
    const path = tmp();
    const s = openSqliteStore(path);
    const h = new Uint8Array(32).fill(1);
    s.appendBatch({ entries: [{ seq: 0, bytes: new Uint8Array([1]), leaf: h }], nodes: [{ level: 0, index: 0, hash: h }], checkpoint: { size: 1, root: h, note: 'n\n' } });
    s.close();
    const db = new Database(path);
    for (const sql of [
      'UPDATE entries SET bytes = x\'02\'',
      'DELETE FROM entries',
      'UPDATE nodes SET hash = zeroblob(32)',
      'DELETE FROM nodes',
      'UPDATE checkpoints SET note = \'x\'',
      'DELETE FROM checkpoints',
    ]) {
      expect(() => db.exec(sql), sql).toThrow(/append-only/);
    }
    db.close();
  });

  it('refuses a database with a migration it does not know', () => {
    const path = tmp();
    openSqliteStore(path).close();
    const db = new Database(path);
    db.prepare('INSERT INTO schema_migrations (version, name) VALUES (99, ?)').run('future');
    db.close();
    expect(() => openSqliteStore(path)).toThrow(/migration 99/);
  });
});
