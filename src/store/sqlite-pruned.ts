// What a SQLite log pruned to its tile archive needs (archive-prune.ts): the watermark (table
// `pruned`), entries and nodes below it read from the archive's tiles, the drop of sealed rows,
// and the open check that the archive really holds what the watermark says.
import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { StoreError } from '../errors.js';
import type { Hash } from '../log/merkle.js';
import { openSealedTiles, readArchiveCheckpoint, type SealedTiles } from './sealed-tiles.js';
import { KEPT_ENTRY_SQL } from './migrations.js';
import type { LogStore, StoredEntry } from './port.js';
import { u8 } from './sqlite-rows.js';

const TILE = 256;

/** A SQLite log, with what pruning sealed history needs (archive-prune.ts). */
export interface SqliteLogStore extends LogStore {
  /** Entries below this seq (whole tiles) live in the archive only, but for state entries. */
  prunedBelow(): number;
  /** The archive pruned entries are read from (undefined: none recorded or given). */
  archiveDir(): string | undefined;
  /**
   * Raise the watermark to `below` and delete, in one transaction, the entry rows (state entries
   * kept) and the nodes under level 8 below it; `archive` is recorded for later opens. The caller
   * has checked the archive first (archive-prune.ts); the triggers of migration 0009 refuse the rest.
   */
  dropSealed(below: number, archive: string): { entries: number; nodes: number };
  /** VACUUM: give the freed pages back to the file system (rewrites the file; blocks writers meanwhile). */
  vacuum(): void;
}

/**
 * The open check of a pruned log: the watermark (table `pruned`) is no higher than what the archive holds
 * under a checkpoint this log stored, and the last pruned tile reads back against the log's tree.
 * O(1): one checkpoint and one tile. Catches a watermark raised by hand without archiving.
 */
export function checkPrunedOpen(store: SqliteLogStore): void {
  const below = store.prunedBelow();
  if (below === 0) return;
  const dir = store.archiveDir();
  const refuse = (why: string) => new StoreError('ERR_ARCHIVE_WATERMARK', `the log's entries below ${below} were pruned to the archive, but ${why} (restore the archive, or the database and archive together, from the backup taken before pruning; docs/archive.md)`);
  if (!dir) throw refuse('no archive is recorded or given');
  // The whole directory gone is a restore that brought back the database alone, not an edit: say that plainly.
  if (!existsSync(dir)) throw archiveMissing(below, dir);
  let note: string;
  try {
    note = readArchiveCheckpoint(dir);
  } catch (e) {
    throw refuse(`${join(dir, 'checkpoint')} cannot be read (${(e as Error).message})`);
  }
  const size = Number(/^[^\n]*\n(\d+)\n/.exec(note)?.[1]);
  if (!Number.isSafeInteger(size) || store.checkpointAt(size)?.note !== note) throw refuse(`${join(dir, 'checkpoint')} is not a checkpoint this log stored`);
  if (size < below) throw refuse(`the archive's checkpoint covers only ${size} entries`);
  store.entry(below - 1); // the last pruned tile, read and checked (ERR_ARCHIVE_* names the file)
}

/**
 * A pruned log whose archive directory is not there at all: the usual cause is a restore of the
 * database without DATA/archive/ (docs/keeping-logs.md#restoring-a-pruned-log). `orElse`: another fix the caller offers.
 */
export function archiveMissing(below: number, dir: string, orElse?: string): StoreError {
  return new StoreError(
    'ERR_ARCHIVE_MISSING',
    `the log is pruned below seq ${below} and its archive at ${dir} is missing: entries below ${below} are kept only there (restore the archive directory ${dir} from the same backup as the database${orElse ? `, or ${orElse}` : ''}; docs/keeping-logs.md#restoring-a-pruned-log)`,
  );
}

/**
 * The pruned side of the SQLite store (sqlite.ts extends it). A base class rather than a field:
 * `log verify` reads every pruned entry through sealedEntry(), which stays a direct method call.
 */
export abstract class SqlitePrunedStore {
  /** The watermark as last read: never lowered (a prune only raises it). */
  protected pruned = 0;
  private prunedArchive: string | undefined;
  private sealed: SealedTiles | undefined;
  private prunedQ: Database.Statement | undefined;
  private prunedTableQ: Database.Statement | undefined;
  private level8Q: Database.Statement | undefined;

  protected constructor(
    protected readonly db: Database.Database,
    protected readonly path: string,
    private readonly archiveOption: string | undefined,
  ) {}

  /** Re-reads the watermark: another connection (`vouch log prune`) may have raised it. */
  protected refreshPruned(): number {
    // Prepared on first use: a read-only open of a log no newer version wrote has no pruned table (nothing pruned).
    if (!this.prunedQ) {
      // The look-up prepared once: verify reads the watermark for every page of a log with no such table.
      this.prunedTableQ ??= this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'pruned'");
      if (!this.prunedTableQ.get()) return 0;
      this.prunedQ = this.db.prepare('SELECT below, archive FROM pruned ORDER BY below DESC LIMIT 1');
    }
    const r = this.prunedQ.get() as { below: number; archive: string } | undefined;
    if (!r) return 0;
    if (!Number.isSafeInteger(r.below) || r.below <= 0 || r.below % TILE !== 0) throw new StoreError('ERR_ARCHIVE_WATERMARK', `the pruned watermark is ${JSON.stringify(r.below)}, not a whole number of tiles: the database was edited`);
    this.prunedArchive = r.archive;
    return (this.pruned = Math.max(this.pruned, r.below));
  }

  archiveDir(): string | undefined {
    if (this.archiveOption) return this.archiveOption;
    this.refreshPruned();
    const rel = this.prunedArchive;
    return rel === undefined ? undefined : isAbsolute(rel) ? rel : join(dirname(this.path), rel);
  }

  private tiles(): SealedTiles {
    const dir = this.archiveDir();
    if (!dir) throw new StoreError('ERR_ARCHIVE_MISSING', `entries below ${this.pruned} were pruned from ${this.path}, and no archive is recorded or given to read them from`);
    return (this.sealed ??= openSealedTiles(dir, (i) => {
      const h = (this.level8Q ??= this.db.prepare('SELECT hash FROM nodes WHERE level = 8 AND idx = ?').pluck()).get(i) as Buffer | undefined;
      return h && u8(h);
    }));
  }

  /** A pruned entry, from its archive tile (checked). */
  protected sealedEntry(seq: number): StoredEntry {
    const t = this.tiles().tile(Math.floor(seq / TILE));
    return { seq, bytes: t.entries[seq % TILE], leaf: t.levels[0][seq % TILE] };
  }

  /** A pruned node (level < 8), from its archive tile (checked). */
  protected sealedNode(level: number, index: number): Hash {
    const perTile = TILE >> level;
    return this.tiles().tile(Math.floor(index / perTile)).levels[level][index % perTile];
  }

  /** Whether node level/index was pruned: under level 8 and its leaves all below the watermark. */
  protected isPrunedNode(level: number, index: number): boolean {
    return level < 8 && (index + 1) * 2 ** level <= this.pruned;
  }

  /** dropSealed's work, in one transaction; the façade guards it. */
  protected dropSealedRows(below: number, archive: string): { entries: number; nodes: number } {
    return this.db.transaction(() => {
      const rel = relative(dirname(this.path), archive);
      this.db.prepare('INSERT INTO pruned (below, archive) VALUES (?, ?)').run(below, rel === '' ? '.' : rel);
      const entries = this.db.prepare(`DELETE FROM entries WHERE seq < ? AND NOT (${KEPT_ENTRY_SQL})`).run(below).changes;
      const nodes = this.db.prepare('DELETE FROM nodes WHERE level < 8 AND ((idx + 1) << level) <= ?').run(below).changes;
      this.pruned = Math.max(this.pruned, below);
      this.sealed = undefined;
      return { entries, nodes };
    })();
  }
}
