// Dropping sealed history from SQLite (issue 40): the entry rows and the level 0..7 tree nodes of
// full tiles the archive holds, once the log's level-8 nodes are hashed up to the archive's signed
// checkpoint (sealed-tree.ts: never the stored nodes above them) and each tile is read back from
// the archive files and checked against the log (bytes, leaf hashes, its subtree root node 8/i). Deleting and raising the watermark is one
// transaction: a crash before it loses nothing, after it the archive holds everything dropped.
import { join } from 'node:path';
import { bytesEqual } from '../canonical/index.js';
import { StoreError } from '../errors.js';
import { formatTilePath, openStrict, TILE_WIDTH, type NoteVerifier } from '../log/index.js';
import { ArchiveFileError, syncArchiveFile } from './archive-file.js';
import { openSealedTiles, readArchiveCheckpoint } from './sealed-tiles.js';
import { checkSealedTree } from './sealed-tree.js';
import type { SqliteLogStore } from './sqlite.js';

export interface PruneResult {
  /** The watermark before and after: entries below `below` now live in the archive only (state entries kept). */
  from: number;
  below: number;
  /** The archive's signed checkpoint size the prune was checked against. */
  archived: number;
  entries: number;
  nodes: number;
}

export interface PruneOptions {
  origin: string;
  /** The log's keys: the archive's checkpoint must verify with them. */
  verifiers: NoteVerifier[];
}

const mismatch = (why: string) => new StoreError('ERR_ARCHIVE_MISMATCH', `${why}: nothing was pruned (run \`vouch log verify\` to see which copy differs)`);

/** Prunes `store` up to the last full tile under the archive's checkpoint at `dir`. Idempotent. */
export async function pruneToArchive(store: SqliteLogStore, dir: string, opts: PruneOptions): Promise<PruneResult> {
  const from = store.prunedBelow();
  let note: string;
  try {
    note = readArchiveCheckpoint(dir);
  } catch (e) {
    if ((e as ArchiveFileError).code !== 'ENOENT') throw mismatch(`${join(dir, 'checkpoint')} is refused (${(e as Error).message})`);
    throw new StoreError('ERR_ARCHIVE_MISSING', `${join(dir, 'checkpoint')} is missing: write the archive first (\`vouch log archive\`)`);
  }
  // 1. The archive's checkpoint: signed by the log's keys, for its origin, the very note it stored.
  let cp;
  try {
    cp = openStrict(note, opts.verifiers).checkpoint;
  } catch (e) {
    throw mismatch(`${join(dir, 'checkpoint')} does not verify with the log's keys (${(e as Error).message})`);
  }
  if (cp.origin !== opts.origin || store.checkpointAt(cp.size)?.note !== note) throw mismatch(`${join(dir, 'checkpoint')} is not a checkpoint this log stored`);
  const below = Math.floor(cp.size / TILE_WIDTH) * TILE_WIDTH;
  const result: PruneResult = { from, below: from, archived: cp.size, entries: 0, nodes: 0 };
  if (below <= from) return result;
  // 2. The tree the log signed: every level-8 node under the checkpoint, hashed up (not the stored
  // nodes above them, which a forged tile leaves genuine), with the partial last tile gives its root.
  const tree = checkSealedTree(cp.size, cp.root, store, { from: from / TILE_WIDTH, to: below / TILE_WIDTH });
  if (!tree.ok) throw mismatch(tree.finding);
  // 3. Each tile to drop, as the archive files hold it: durable, its root the node 8/i checked in
  // step 2, its entries and leaf hashes the rows about to go.
  const tiles = openSealedTiles(dir, tree.node8);
  for (let i = from / TILE_WIDTH; i < below / TILE_WIDTH; i++) {
    for (const level of [0, 'entries'] as const) await fsyncFile(join(dir, formatTilePath({ level, index: i, width: TILE_WIDTH })));
    const tile = tiles.tile(i);
    let seq = i * TILE_WIDTH;
    for (const e of store.entries(seq, seq + TILE_WIDTH)) {
      const k = e.seq - i * TILE_WIDTH;
      if (e.seq !== seq++ || !bytesEqual(e.bytes, tile.entries[k]) || !bytesEqual(e.leaf, tile.levels[0][k])) throw mismatch(`archive ${formatTilePath({ level: 'entries', index: i, width: TILE_WIDTH })}: entry ${e.seq} differs from the database's`);
    }
    if (seq !== (i + 1) * TILE_WIDTH) throw mismatch(`the database holds entries up to ${seq} only in tile ${i}`);
  }
  // 4. One transaction: the watermark rises, the rows below it go (migration 0009 refuses any other).
  const dropped = store.dropSealed(below, dir);
  return { ...result, below, ...dropped };
}

/** The archive files are on disk, not only in the page cache, before the database forgets them. */
async function fsyncFile(path: string): Promise<void> {
  try {
    await syncArchiveFile(path);
  } catch (e) {
    const code = (e as ArchiveFileError).code;
    if (code === 'ENOENT') throw new StoreError('ERR_ARCHIVE_MISSING', `archive ${path} is missing: nothing was pruned`);
    if (code === 'ENOTREG') throw mismatch(`archive ${path} is refused (${(e as Error).message})`);
    throw new StoreError('ERR_ARCHIVE_MISSING', `archive ${path} cannot be read (${(e as Error).message}): nothing was pruned`);
  }
}
