// The log's record of cosignatures (Node only, SQLite next to the log databases): the lines each
// witness (and the log's own ML-DSA-44 key) returned per checkpoint, and the size each witness
// last cosigned (the `old` of the next request). Separate from the log store: cosignature lines
// are not the log's signatures, and the log's fsck treats unknown lines in its own notes as alterations.
import Database from 'better-sqlite3';
import { COSIG_SCHEMA, COSIG_SQL } from './cosig-schema.js';

/** The newest checkpoint of a log that a witness cosigned: which witnesses, and the newest cosignature time. */
export interface NewestCosigned {
  size: number;
  root: string;
  witnesses: string[];
  /** POSIX seconds, the newest cosignature's timestamp. */
  ts: number;
}

export interface CosignatureStore {
  lines(origin: string, size: number, rootHex: string): string[];
  /** The newest checkpoint of `origin` that a witness other than `self` (the log's own cosigner) cosigned. */
  newestCosigned(origin: string, self: string): NewestCosigned | undefined;
  add(origin: string, size: number, rootHex: string, cosigner: string, lines: string[], ts: number): void;
  /** The newest checkpoint of `origin` that `cosigner` cosigned. */
  acked(origin: string, witness: string): { size: number; root: string } | undefined;
  setAcked(origin: string, witness: string, size: number, rootHex: string): void;
  close(): void;
}

/** `readonly`: a reader beside a running service (`vouch export`); the file must exist. */
export function openCosignatureStore(path: string, opts: { readonly?: boolean } = {}): CosignatureStore {
  const db = new Database(path, opts.readonly ? { readonly: true, fileMustExist: true } : {});
  db.pragma('busy_timeout = 5000');
  if (!opts.readonly) {
    db.pragma('journal_mode = WAL');
    db.exec(COSIG_SCHEMA);
  }
  const sel = db.prepare(COSIG_SQL.lines);
  const ins = db.prepare(COSIG_SQL.insert);
  const newest = db.prepare(COSIG_SQL.newest);
  const by = db.prepare(COSIG_SQL.by);
  const ack = db.prepare(COSIG_SQL.acked);
  const setAck = db.prepare(COSIG_SQL.setAcked);
  return {
    lines: (origin, size, root) => (sel.all(origin, size, root) as { line: string }[]).map((r) => r.line),
    newestCosigned(origin, self) {
      const row = newest.get(origin, self) as { size: number; root: string } | undefined;
      if (!row) return undefined;
      const rows = by.all(origin, row.size, row.root, self) as { cosigner: string; ts: number }[];
      return { size: row.size, root: row.root, witnesses: rows.map((r) => r.cosigner), ts: Math.max(...rows.map((r) => r.ts)) };
    },
    add: db.transaction((origin: string, size: number, root: string, cosigner: string, lines: string[], ts: number) => {
      for (const l of lines) ins.run(origin, size, root, cosigner, l, ts);
    }),
    acked: (origin, witness) => ack.get(origin, witness) as { size: number; root: string } | undefined,
    setAcked: (origin, witness, size, root) => void setAck.run(origin, witness, size, root),
    close: () => db.close(),
  };
}
