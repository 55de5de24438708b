// The payload check's ledger (log/payload-presence.ts) in a scratch SQLite database of the
// verifier's own: an anonymous temporary database, which SQLite keeps in a bounded page cache and
// spills to an unlinked file in its temp directory, gone when closed or when the process dies.
import Database from 'better-sqlite3';
import type { Digest } from '../canonical/index.js';
import type { MovedErasure, PayloadLedger, UnexcusedPayload } from '../log/index.js';

/** Page cache of the scratch database, KiB (SQLite's default is 2 MB; the rest spills to its file). */
const CACHE_KIB = 16_384;
/** Rows a transaction holds before it commits (one commit per row would cost a syscall each). */
const ROWS_PER_COMMIT = 20_000;

const blob = (d: Digest): Buffer => Buffer.from(d.slice(7), 'hex');
const digestOf = (b: Buffer): Digest => `sha256:${b.toString('hex')}` as Digest;

/**
 * Rows are appended in log order (rowid tables: each insert writes the last page, never a random
 * one, which kept the write at about a microsecond where a digest-keyed B-tree larger than the
 * cache cost tens); the indexes the end's joins need are built once, by SQLite's external sort.
 * Only the verifier writes this file; nothing in it comes from the store being verified.
 */
export function openPayloadLedger(): PayloadLedger {
  const db = new Database('');
  db.pragma(`cache_size = -${CACHE_KIB}`);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('temp_store = FILE');
  db.exec(`CREATE TABLE named (digest BLOB NOT NULL, seq INTEGER NOT NULL);
    CREATE TABLE requested (digest BLOB NOT NULL, seq INTEGER NOT NULL);
    CREATE TABLE retained (digest BLOB NOT NULL, before INTEGER NOT NULL, seq INTEGER NOT NULL);`);
  const put = {
    named: db.prepare('INSERT INTO named (digest, seq) VALUES (?, ?)'),
    requested: db.prepare('INSERT INTO requested (digest, seq) VALUES (?, ?)'),
    retained: db.prepare('INSERT INTO retained (digest, before, seq) VALUES (?, ?, ?)'),
  };
  let rows = 0;
  let pending = 0;
  let indexed = false;
  let closed = false;
  const wrote = () => {
    rows++;
    if (pending++ === 0) db.exec('BEGIN');
    else if (pending >= ROWS_PER_COMMIT) (db.exec('COMMIT'), (pending = 0));
  };
  const finish = () => {
    if (pending) (db.exec('COMMIT'), (pending = 0));
    if (indexed) return;
    indexed = true;
    db.exec(`CREATE INDEX named_digest ON named (digest, seq);
      CREATE INDEX requested_digest ON requested (digest);
      CREATE INDEX retained_digest ON retained (digest, before);`);
  };
  return {
    named(d, seq) {
      put.named.run(blob(d), seq);
      wrote();
    },
    requested(d, seq) {
      put.requested.run(blob(d), seq);
      wrote();
    },
    retained(d, before, seq) {
      put.retained.run(blob(d), before, seq);
      wrote();
    },
    *moved(): Iterable<MovedErasure> {
      finish();
      // Per erasure entry, its first payload (in the entry's order) that an entry between its
      // `before` and itself names: the newest such naming before the erasure is what it says.
      const q = db.prepare(`SELECT MIN(id) AS id, erasure, before, digest, named FROM (
          SELECT r.rowid AS id, r.seq AS erasure, r.before, r.digest,
            (SELECT MAX(n.seq) FROM named n WHERE n.digest = r.digest AND n.seq < r.seq) AS named
          FROM retained r)
        WHERE named >= before GROUP BY erasure ORDER BY erasure`);
      for (const r of q.iterate() as Iterable<{ erasure: number; before: number; digest: Buffer; named: number }>) {
        yield { erasure: r.erasure, before: r.before, digest: digestOf(r.digest), named: r.named };
      }
    },
    *unexcused(): Iterable<UnexcusedPayload> {
      finish();
      // A payload named while missing is accounted for by an erasure on request (any seq), or by a
      // retention erasure whose `before` is past its newest naming (the highest `before`, the
      // first erasure to reach it named in the finding, as the erasures came).
      const q = db.prepare(`SELECT g.digest, g.first, g.last, best.before, best.seq FROM
          (SELECT digest, MIN(seq) AS first, MAX(seq) AS last, MIN(rowid) AS id FROM named GROUP BY digest) g
          LEFT JOIN retained best ON best.rowid = (SELECT r.rowid FROM retained r WHERE r.digest = g.digest ORDER BY r.before DESC, r.rowid LIMIT 1)
        WHERE NOT EXISTS (SELECT 1 FROM requested q WHERE q.digest = g.digest)
          AND (best.before IS NULL OR g.last >= best.before)
        ORDER BY g.id`);
      for (const r of q.iterate() as Iterable<{ digest: Buffer; first: number; last: number; before: number | null; seq: number | null }>) {
        yield { digest: digestOf(r.digest), first: r.first, last: r.last, ...(r.before !== null && { retained: { before: r.before, seq: r.seq! } }) };
      }
    },
    get rows() {
      return rows;
    },
    close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
