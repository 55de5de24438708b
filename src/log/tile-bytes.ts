// One tile's bytes from a log's storage, as the tiles routes serve them: a hash tile (the stored
// nodes of level 8L) or an entry bundle (uncompressed). Shared by every archive writer (files on
// Node, R2 on Workers) and the archive readers' comparisons, so both hold the same bytes.
import { bytesEqual } from '../canonical/index.js';
import { StoreError } from '../errors.js';
import { HASH_SIZE, type Hash } from './merkle-hash.js';
import type { LogStorage } from './storage.js';
import { encodeEntryBundle, formatTilePath, TILE_HEIGHT, TILE_WIDTH, type TileRef } from './tiles.js';

export interface TileBytesOptions {
  /**
   * With it, an entry bundle's entries must hash to the level-0 hashes beside them: a row changed
   * in the store is refused rather than published (writers pass it; the background audit names the row).
   */
  hashLeaf?: (bytes: Uint8Array) => Hash;
}

/** The nodes of one level, lo..hi inclusive: one range read where the store has it. */
function nodesOf(storage: LogStorage, level: number, lo: number, hi: number): Hash[] {
  if (storage.nodeRange) return [...storage.nodeRange(level, lo, hi)].map((n) => n.hash);
  return Array.from({ length: hi - lo + 1 }, (_, i) => storage.node(level, lo + i));
}

/** The tile's bytes; a node or entry the store does not hold is ERR_STORE_INCONSISTENT naming the tile. */
export function tileBytesOf(t: TileRef, storage: LogStorage, opts: TileBytesOptions = {}): Uint8Array {
  const from = t.index * TILE_WIDTH;
  if (t.level !== 'entries') {
    const hashes = nodesOf(storage, t.level * TILE_HEIGHT, from, from + t.width - 1);
    if (hashes.length !== t.width || hashes.some((h) => h.length !== HASH_SIZE)) {
      throw new StoreError('ERR_STORE_INCONSISTENT', `the store holds ${hashes.length} of the ${t.width} nodes of ${formatTilePath(t)}`);
    }
    const out = new Uint8Array(t.width * HASH_SIZE);
    hashes.forEach((h, i) => out.set(h, i * HASH_SIZE));
    return out;
  }
  const entries = [...storage.entries(from, from + t.width)];
  if (opts.hashLeaf) {
    const leaves = nodesOf(storage, 0, from, from + entries.length - 1);
    entries.forEach((e, i) => {
      if (!leaves[i] || !bytesEqual(opts.hashLeaf!(e.bytes), leaves[i])) throw new StoreError('ERR_STORE_INCONSISTENT', `refusing to archive entry ${e.seq}: its bytes do not hash to the stored leaf`);
    });
  }
  return encodeEntryBundle(entries, from, t.width);
}
