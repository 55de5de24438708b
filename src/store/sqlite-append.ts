// The SQLite log's write path: one transaction per batch of entry rows (compressed or raw, as the
// file's entry_codec says), tree nodes, payloads and the checkpoint or commit tag that goes with them.
import type Database from 'better-sqlite3';
import { encodeEntryRow } from './entry-codec.js';
import type { EntryDictionaries } from './entry-dictionaries.js';
import type { Batch, EntryBatch } from './port.js';
import type { SqlitePayloads } from './sqlite-payloads.js';
import { compressFromMeta, ENTRY_CODEC_META, type Statements } from './sqlite-rows.js';

export class SqliteAppends {
  private putTag: Database.Statement | undefined;
  // Each commit's transaction function, made once: db.transaction() builds its wrappers on every
  // call (issue 36: one per commit on the gateway's path).
  private batchTx: ((b: Batch) => void) | undefined;
  private entriesTx: ((b: EntryBatch) => void) | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly q: Statements,
    private readonly dicts: EntryDictionaries,
    private readonly payloads: SqlitePayloads,
    // False: the file has no codec column (a read-only open of a log from before migration 0008).
    private readonly compact: boolean,
    private compress: boolean | undefined,
  ) {}

  batch(batch: Batch): void {
    this.commit(
      (this.batchTx ??= this.db.transaction((b: Batch) => {
        this.putRows(b);
        const c = b.checkpoint;
        this.q.putCheckpoint.run(c.size, c.root, c.note);
      })),
      batch,
    );
  }

  /** Entries durable before signed (log/appender.ts): synchronous=FULL makes this commit an fsync. */
  entries(batch: EntryBatch): void {
    this.commit(
      (this.entriesTx ??= this.db.transaction((b: EntryBatch) => {
        this.putRows(b);
        if (b.tag) (this.putTag ??= this.db.prepare('INSERT INTO commit_tag (id, size, tag) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET size = excluded.size, tag = excluded.tag')).run(b.tag.size, b.tag.tag);
      })),
      batch,
    );
  }

  /** A commit that fails rolls back any dictionary it made: the writer forgets it too. */
  private commit<T>(tx: (b: T) => void, b: T): void {
    try {
      tx(b);
    } catch (e) {
      this.dicts.reset();
      throw e;
    }
  }

  private putRows(b: EntryBatch): void {
    let last = -1;
    for (const e of b.entries) {
      if (!this.compact) this.q.putEntry.run(e.seq, e.bytes, e.leaf);
      else {
        // Decided at the first write (the meta key may be set after open), then fixed for this store.
        this.compress ??= compressFromMeta(this.q.meta.get(ENTRY_CODEC_META));
        const row = encodeEntryRow(e.bytes, this.compress ? this.dicts.forEntry(e.seq, e.bytes) : undefined);
        this.q.putEntry.run(e.seq, row.stored, e.leaf, row.codec);
      }
      last = Math.max(last, e.seq);
    }
    if (last < 0 && b.payloads?.length) last = this.q.size.get() as number;
    for (const n of b.nodes) this.q.putNode.run(n.level, n.index, n.hash);
    // The batch's highest seq: an upper bound on the entry naming each payload (retention keeps longer, never shorter).
    for (const p of b.payloads ?? []) this.payloads.put(p.digest, p.bytes, last);
  }
}
