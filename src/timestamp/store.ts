// The tokens a TSA returned, kept beside the checkpoints they stamp (Node only, SQLite next to the
// log databases, <data>/timestamps.db): per checkpoint its note exactly as signed (the stamped
// bytes), the token's DER exactly as received, and what it says (TSA, genTime) for status pages.
import Database from 'better-sqlite3';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS timestamps (origin TEXT NOT NULL, size INTEGER NOT NULL, root TEXT NOT NULL, note TEXT NOT NULL, token BLOB NOT NULL, tsa TEXT NOT NULL, gen_time TEXT NOT NULL, received INTEGER NOT NULL, PRIMARY KEY (origin, size, root));
`;

export interface TimestampRecord {
  origin: string;
  size: number;
  /** hex root of the stamped checkpoint. */
  root: string;
  /** The checkpoint note as the log signed it: SHA-256 of these bytes is the token's message imprint. */
  note: string;
  /** DER of the RFC 3161 token (a CMS ContentInfo), as the TSA sent it. */
  token: Uint8Array;
  tsa: string;
  /** ISO 8601. */
  genTime: string;
  /** When vouch stored it, ms since the epoch. */
  received: number;
}

/** The reads the service and `vouch export` make. */
export interface TimestampReads {
  newest(origin: string): TimestampRecord | undefined;
  /** The earliest stamp of a tree holding entry `seq` (size > seq): the earliest time it is proven to exist by. */
  covering(origin: string, seq: number): TimestampRecord | undefined;
  /** Stamps of sizes in (from, to]: those a bundle of entries [from, to) carries. */
  within(origin: string, from: number, to: number): TimestampRecord[];
}

export interface TimestampStore extends TimestampReads {
  add(r: TimestampRecord): void;
  close(): void;
}

type Row = { origin: string; size: number; root: string; note: string; token: Buffer; tsa: string; gen_time: string; received: number };
const fromRow = (r: Row | undefined): TimestampRecord | undefined =>
  r && { origin: r.origin, size: r.size, root: r.root, note: r.note, token: new Uint8Array(r.token), tsa: r.tsa, genTime: r.gen_time, received: r.received };

/** `readonly`: a reader beside a running service (`vouch export`, `vouch receipt`); the file must exist. */
export function openTimestampStore(path: string, opts: { readonly?: boolean } = {}): TimestampStore {
  const db = new Database(path, opts.readonly ? { readonly: true, fileMustExist: true } : {});
  db.pragma('busy_timeout = 5000');
  if (!opts.readonly) {
    db.pragma('journal_mode = WAL');
    db.exec(SCHEMA);
  }
  const newest = db.prepare('SELECT * FROM timestamps WHERE origin = ? ORDER BY size DESC LIMIT 1');
  const covering = db.prepare('SELECT * FROM timestamps WHERE origin = ? AND size > ? ORDER BY size LIMIT 1');
  const within = db.prepare('SELECT * FROM timestamps WHERE origin = ? AND size > ? AND size <= ? ORDER BY size');
  const ins = db.prepare('INSERT OR IGNORE INTO timestamps (origin, size, root, note, token, tsa, gen_time, received) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  return {
    newest: (origin) => fromRow(newest.get(origin) as Row | undefined),
    covering: (origin, seq) => fromRow(covering.get(origin, seq) as Row | undefined),
    within: (origin, from, to) => (within.all(origin, from, to) as Row[]).map((r) => fromRow(r)!),
    add: (r) => void ins.run(r.origin, r.size, r.root, r.note, Buffer.from(r.token), r.tsa, r.genTime, r.received),
    close: () => db.close(),
  };
}
