// Reads of entries pruned from SQLite (archive-prune.ts): a full tile's entry bundle and level-0
// hash tile from the archive, checked before any byte is served: each entry's leaf hash is the hash
// tile's, and the hash tile's root is the level-8 node the log keeps (the tree its checkpoints sign).
// Files are read only through the hardened reader (archive-file.ts): no symlink, FIFO or oversize.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { bytesEqual } from '../canonical/index.js';
import { StoreError } from '../errors.js';
import { decodeEntryBundle, formatTilePath, TILE_HEIGHT, TILE_WIDTH, type Hash, type TileRef } from '../log/index.js';
import { ArchiveFileError, MAX_ARCHIVE_CHECKPOINT_BYTES, MAX_ARCHIVE_TILE_BYTES, readArchiveFileSync } from './archive-file.js';

const HASH = 32;
const LEAF = Uint8Array.of(0x00);
const NODE = Uint8Array.of(0x01);

// RFC 9162 2.1.1 by node:crypto (native SHA-256): a tile read hashes 256 entries and 255 nodes.
const sha = (...parts: Uint8Array[]): Hash => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  const d = h.digest();
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
};
const hashLeaf = (bytes: Uint8Array): Hash => sha(LEAF, bytes);
const hashChildren = (l: Hash, r: Hash): Hash => sha(NODE, l, r);

/**
 * The archive's `checkpoint` note at `dir`, read as archive-read.ts reads it (a regular file of at
 * most a note's size, UTF-8). Throws ArchiveFileError (code ENOENT when there is none); the caller
 * says what that means for it.
 */
export function readArchiveCheckpoint(dir: string): string {
  const bytes = readArchiveFileSync(join(dir, 'checkpoint'), MAX_ARCHIVE_CHECKPOINT_BYTES);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ArchiveFileError('EILSEQ', 'not UTF-8 text');
  }
}

export interface SealedTile {
  /** The tile's 256 entries' bytes, in seq order. */
  entries: Uint8Array[];
  /** levels[l]: the tile's 256 >> l hashes at level l (0..8); levels[8][0] is the level-8 node. */
  levels: Hash[][];
}

export interface SealedTiles {
  /** Full tile `index`, read and checked; throws ERR_ARCHIVE_MISSING or ERR_ARCHIVE_MISMATCH naming the file. */
  tile(index: number): SealedTile;
}

/**
 * `dir`: the tenant's archive. `level8(i)`: the log's own node 8/i (SQLite keeps every node at level
 * 8 and above), the anchor each tile is checked against.
 */
export function openSealedTiles(dir: string, level8: (index: number) => Hash | undefined): SealedTiles {
  const cache = new Map<number, SealedTile>();
  const mismatch = (t: TileRef, why: string) => new StoreError('ERR_ARCHIVE_MISMATCH', `archive ${join(dir, formatTilePath(t))} ${why}: it was changed after the log pruned these entries (restore it from its backup); nothing of it is served`);
  const read = (t: TileRef, index: number): Uint8Array => {
    const rel = formatTilePath(t);
    try {
      return readArchiveFileSync(join(dir, rel), MAX_ARCHIVE_TILE_BYTES);
    } catch (e) {
      const code = (e as ArchiveFileError).code;
      // Something else put at a tile's path (a symlink, FIFO, directory, an oversized file) is a changed tile, never followed or read.
      if (code === 'ENOTREG' || code === 'ETOOBIG') throw mismatch(t, `is refused (${(e as Error).message})`);
      const why = code === 'ENOENT' ? 'is missing' : `cannot be read (${(e as Error).message})`;
      throw new StoreError('ERR_ARCHIVE_MISSING', `archive ${join(dir, rel)} ${why}: entries ${index * TILE_WIDTH}..${(index + 1) * TILE_WIDTH - 1} were pruned from the database and live only there (restore the archive from its backup; docs/archive.md)`);
    }
  };
  return {
    tile(index) {
      const hit = cache.get(index);
      if (hit) return hit;
      const hashRef: TileRef = { level: 0, index, width: TILE_WIDTH };
      const bundleRef: TileRef = { level: 'entries', index, width: TILE_WIDTH };
      const hashes = read(hashRef, index);
      if (hashes.length !== TILE_WIDTH * HASH) throw mismatch(hashRef, `is ${hashes.length} bytes, a full hash tile ${TILE_WIDTH * HASH}`);
      const levels: Hash[][] = [Array.from({ length: TILE_WIDTH }, (_, i) => hashes.slice(i * HASH, (i + 1) * HASH))];
      for (let l = 1; l <= TILE_HEIGHT; l++) {
        const below = levels[l - 1];
        levels.push(Array.from({ length: below.length / 2 }, (_, i) => hashChildren(below[2 * i], below[2 * i + 1])));
      }
      const anchor = level8(index);
      if (!anchor) throw new StoreError('ERR_STORE_INCONSISTENT', `tree node 8/${index} is not stored: the pruned tile ${index} cannot be checked`);
      if (!bytesEqual(levels[TILE_HEIGHT][0], anchor)) throw mismatch(hashRef, `hashes to a subtree root other than the log's node 8/${index}`);
      let entries: Uint8Array[];
      try {
        entries = decodeEntryBundle(read(bundleRef, index));
      } catch (e) {
        const code = (e as StoreError).code;
        if (code === 'ERR_ARCHIVE_MISSING' || code === 'ERR_ARCHIVE_MISMATCH') throw e; // the file's own refusal (missing, not a regular file)
        throw mismatch(bundleRef, `is not an entry bundle (${(e as Error).message})`);
      }
      if (entries.length !== TILE_WIDTH) throw mismatch(bundleRef, `holds ${entries.length} entries, not ${TILE_WIDTH}`);
      entries.forEach((bytes, i) => {
        if (!bytesEqual(hashLeaf(bytes), levels[0][i])) throw mismatch(bundleRef, `holds an entry ${index * TILE_WIDTH + i} whose leaf hash is not the hash tile's`);
      });
      const tile = { entries, levels };
      if (cache.size >= 4) cache.delete(cache.keys().next().value!);
      cache.set(index, tile);
      return tile;
    },
  };
}
