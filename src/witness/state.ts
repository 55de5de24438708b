// The witness's durable record (Node only, SQLite via better-sqlite3, synchronous=FULL): per log
// origin, the size and root it last cosigned, checked and replaced in one IMMEDIATE transaction
// so two requests (or two processes) can never roll it back; refused requests are kept as evidence.
import Database from 'better-sqlite3';
import type { TreeHead, WitnessState } from './witness.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS witness_latest (origin TEXT PRIMARY KEY, size INTEGER NOT NULL, root BLOB NOT NULL, updated TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS witness_refused (id INTEGER PRIMARY KEY, origin TEXT NOT NULL, status INTEGER NOT NULL, reason TEXT NOT NULL, request TEXT NOT NULL, at TEXT NOT NULL);
`;

export interface SqliteWitnessState extends WitnessState {
  refusals(origin?: string): { origin: string; status: number; reason: string; at: string }[];
  close(): void;
}

export function openWitnessState(path: string): SqliteWitnessState {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);
  const get = db.prepare('SELECT size, root FROM witness_latest WHERE origin = ?');
  const put = db.prepare('INSERT INTO witness_latest (origin, size, root, updated) VALUES (?, ?, ?, ?) ON CONFLICT(origin) DO UPDATE SET size = excluded.size, root = excluded.root, updated = excluded.updated');
  const refused = db.prepare('INSERT INTO witness_refused (origin, status, reason, request, at) VALUES (?, ?, ?, ?, ?)');
  const read = (origin: string): TreeHead | undefined => {
    const row = get.get(origin) as { size: number; root: Buffer } | undefined;
    return row && { size: row.size, root: new Uint8Array(row.root) };
  };
  return {
    latest: read,
    update(origin, decide) {
      const tx = db.transaction(() => {
        const d = decide(read(origin));
        if ('refuse' in d) return d.refuse;
        put.run(origin, d.next.size, Buffer.from(d.next.root), new Date().toISOString());
        return d.result;
      });
      return tx.immediate();
    },
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
