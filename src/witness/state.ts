// The witness's durable record (Node only, SQLite via better-sqlite3, synchronous=FULL): per log
// origin, the size and root it last cosigned, checked and replaced in one IMMEDIATE transaction
// so two requests (or two processes) can never roll it back; refused requests are kept as evidence,
// and operator events (a reset of one origin's record, classical signatures accepted) are recorded.
import Database from 'better-sqlite3';
import type { TreeHead, WitnessState } from './witness.js';

// `note` (the cosigned checkpoint as sent) came with issue 35: records written before hold NULL.
// witness_events is insert-only (triggers): a record of what the operator did, never edited.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS witness_latest (origin TEXT PRIMARY KEY, size INTEGER NOT NULL, root BLOB NOT NULL, updated TEXT NOT NULL, note TEXT);
CREATE TABLE IF NOT EXISTS witness_refused (id INTEGER PRIMARY KEY, origin TEXT NOT NULL, status INTEGER NOT NULL, reason TEXT NOT NULL, request TEXT NOT NULL, at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS witness_events (id INTEGER PRIMARY KEY, origin TEXT NOT NULL, kind TEXT NOT NULL, detail TEXT NOT NULL, at TEXT NOT NULL);
CREATE TRIGGER IF NOT EXISTS witness_events_no_update BEFORE UPDATE ON witness_events BEGIN SELECT RAISE(ABORT, 'witness_events is insert-only'); END;
CREATE TRIGGER IF NOT EXISTS witness_events_no_delete BEFORE DELETE ON witness_events BEGIN SELECT RAISE(ABORT, 'witness_events is insert-only'); END;
`;

/** What the operator did to the witness, per origin: `reset` (reset-log) or `classical-ok` (on/off). */
export interface WitnessEvent {
  origin: string;
  kind: 'reset' | 'classical-ok';
  detail: Record<string, unknown>;
  at: string;
}

export interface StoredHead extends TreeHead {
  updated: string;
}

export interface SqliteWitnessState extends WitnessState {
  /** The record with the note and the time it was written. */
  record(origin: string): StoredHead | undefined;
  /** Every origin with a record. */
  origins(): string[];
  refusals(origin?: string): { origin: string; status: number; reason: string; at: string }[];
  /**
   * Replace one origin's record (vouch witness reset-log), in one IMMEDIATE transaction with its
   * `reset` event. `decide` sees the record being replaced and returns the event's detail, or throws to refuse.
   */
  reset(origin: string, next: TreeHead, decide: (current: StoredHead | undefined) => Record<string, unknown>): void;
  events(origin?: string): WitnessEvent[];
  recordEvent(origin: string, kind: WitnessEvent['kind'], detail: Record<string, unknown>): void;
  close(): void;
}

export function openWitnessState(path: string): SqliteWitnessState {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);
  const columns = (db.prepare('PRAGMA table_info(witness_latest)').all() as { name: string }[]).map((c) => c.name);
  if (!columns.includes('note')) db.exec('ALTER TABLE witness_latest ADD COLUMN note TEXT');
  const get = db.prepare('SELECT size, root, note, updated FROM witness_latest WHERE origin = ?');
  const put = db.prepare('INSERT INTO witness_latest (origin, size, root, updated, note) VALUES (?, ?, ?, ?, ?) ON CONFLICT(origin) DO UPDATE SET size = excluded.size, root = excluded.root, updated = excluded.updated, note = excluded.note');
  const refused = db.prepare('INSERT INTO witness_refused (origin, status, reason, request, at) VALUES (?, ?, ?, ?, ?)');
  const event = db.prepare('INSERT INTO witness_events (origin, kind, detail, at) VALUES (?, ?, ?, ?)');
  const read = (origin: string): StoredHead | undefined => {
    const row = get.get(origin) as { size: number; root: Buffer; note: string | null; updated: string } | undefined;
    return row && { size: row.size, root: new Uint8Array(row.root), updated: row.updated, ...(row.note !== null && { note: row.note }) };
  };
  const write = (origin: string, h: TreeHead) => put.run(origin, h.size, Buffer.from(h.root), new Date().toISOString(), h.note ?? null);
  const recordEvent = (origin: string, kind: WitnessEvent['kind'], detail: Record<string, unknown>) => void event.run(origin, kind, JSON.stringify(detail), new Date().toISOString());
  return {
    latest: read,
    record: read,
    origins: () => (db.prepare('SELECT origin FROM witness_latest ORDER BY origin').all() as { origin: string }[]).map((r) => r.origin),
    update(origin, decide) {
      const tx = db.transaction(() => {
        const d = decide(read(origin));
        if ('refuse' in d) return d.refuse;
        write(origin, d.next);
        return d.result;
      });
      return tx.immediate();
    },
    reset(origin, next, decide) {
      db.transaction(() => {
        const detail = decide(read(origin));
        write(origin, next);
        recordEvent(origin, 'reset', detail);
      }).immediate();
    },
    events(origin) {
      const rows = db.prepare('SELECT origin, kind, detail, at FROM witness_events ORDER BY id').all() as { origin: string; kind: WitnessEvent['kind']; detail: string; at: string }[];
      return rows.filter((r) => origin === undefined || r.origin === origin).map((r) => ({ ...r, detail: JSON.parse(r.detail) as Record<string, unknown> }));
    },
    recordEvent,
    recordRefusal(origin, status, reason, request) {
      refused.run(origin, status, reason, request.slice(0, 64 * 1024), new Date().toISOString());
    },
    refusals(origin) {
      const rows = db.prepare('SELECT origin, status, reason, at FROM witness_refused ORDER BY id').all() as { origin: string; status: number; reason: string; at: string }[];
      return origin === undefined ? rows : rows.filter((r) => r.origin === origin);
    },
    close: () => db.close(),
  };
}
