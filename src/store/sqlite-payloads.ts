// The SQLite log's payload rows (table payloads): stored with the last seq that names them
// (migration 0007), found and erased when retention expires them, erased for good (secure_delete
// and a WAL checkpoint). The façade (sqlite.ts) wraps every call in its guard.
import type Database from 'better-sqlite3';
import type { Digest } from '../canonical/index.js';
import { StoreError } from '../errors.js';
import { u8 } from './sqlite-rows.js';

export class SqlitePayloads {
  private readonly get: Database.Statement;
  private readonly erase: Database.Statement;
  // Prepared on first use: a read-only open of a log written before migration 0007 has no last_seq.
  private putQ: Database.Statement | undefined;
  private expiredQ: { since: Database.Statement; unknown: Database.Statement } | undefined;
  private eraseExpiredQ: Database.Statement | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly meta: Database.Statement,
  ) {
    this.get = db.prepare('SELECT bytes FROM payloads WHERE digest = ?').pluck();
    this.erase = db.prepare('DELETE FROM payloads WHERE digest = ?');
  }

  /** Stores a payload, or moves an existing one's last_seq forward (a newer entry names it again). */
  put(digest: string, bytes: Uint8Array, lastSeq: number): void {
    (this.putQ ??= this.db.prepare('INSERT INTO payloads (digest, bytes, last_seq) VALUES (?, ?, ?) ON CONFLICT(digest) DO UPDATE SET last_seq = MAX(COALESCE(last_seq, -1), excluded.last_seq)')).run(digest, bytes, lastSeq);
  }

  read(digest: Digest): Uint8Array | undefined {
    const b = this.get.get(digest) as Buffer | undefined;
    return b && u8(b);
  }

  expired(beforeSeq: number, limit: number): Digest[] {
    const q = (this.expiredQ ??= {
      since: this.db.prepare('SELECT digest FROM payloads WHERE last_seq < ? ORDER BY last_seq LIMIT ?').pluck(),
      unknown: this.db.prepare('SELECT digest FROM payloads WHERE last_seq IS NULL LIMIT ?').pluck(),
    });
    const out = q.since.all(beforeSeq, limit) as Digest[];
    // Rows from before migration 0007 were last named before payload_seq_floor.
    if (out.length < limit && this.floor() <= beforeSeq) out.push(...(q.unknown.all(limit - out.length) as Digest[]));
    return out;
  }

  eraseExpired(digest: Digest, beforeSeq: number): boolean {
    const floor = this.floor();
    const q = (this.eraseExpiredQ ??= this.db.prepare('DELETE FROM payloads WHERE digest = ? AND (last_seq < ? OR (last_seq IS NULL AND ? <= ?))'));
    const erased = q.run(digest, beforeSeq, floor, beforeSeq).changes > 0;
    if (erased) this.purgeWal();
    return erased;
  }

  remove(digest: Digest): boolean {
    const erased = this.erase.run(digest).changes > 0;
    if (erased) this.purgeWal();
    return erased;
  }

  /** Payload rows with no last_seq were last named before this seq (migration 0007); 0 when the log began with it. */
  private floor(): number {
    const v = this.meta.get('payload_seq_floor') as string | undefined;
    const n = v === undefined ? NaN : Number(v);
    // Unreadable (edited): treat those rows as named just now, so nothing is erased early.
    return Number.isSafeInteger(n) && n >= 0 ? n : Number.MAX_SAFE_INTEGER;
  }

  /**
   * secure_delete zeroed the erased bytes in the pages this delete wrote, but older WAL frames
   * (the insert, from the writer thread's connection) still hold them: copy the newest pages back
   * and truncate the WAL before the erasure returns. TRUNCATE waits (busy timeout) for a commit in
   * flight and for readers on older snapshots; if it cannot finish, the erasure fails loudly.
   */
  private purgeWal(): void {
    for (let attempt = 0; attempt < 3; attempt++) {
      const [r] = this.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      if (!r || r.busy === 0) return;
    }
    throw new StoreError('ERR_STORE', 'payload deleted, but the WAL could not be checkpointed (a reader or writer kept it busy): erased bytes may remain in the -wal file until the next checkpoint');
  }
}
