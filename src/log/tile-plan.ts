// Which tlog-tiles a tree of a given size is made of: full tiles (immutable forever) and the
// partial ones at its right edge, per level, entry bundles included. The archive writer writes
// what grows between two sizes; its readers know from the size alone what must be there.
import { nodesAtTileLevel, TILE_WIDTH, type TileRef } from './tiles.js';

/** Hash tile levels a tree of `size` has (0 for an empty tree): every L with at least one node at level 8L. */
export function tileLevels(size: number): number {
  let levels = 0;
  while (nodesAtTileLevel(size, levels) > 0) levels++;
  return levels;
}

/** Full tiles of one level (hash or entries) in a tree of `size`: indices 0..n-1 are full. */
export function fullTiles(size: number, level: number | 'entries'): number {
  return Math.floor(nodesAtTileLevel(size, level === 'entries' ? 0 : level) / TILE_WIDTH);
}

/** The partial tile of one level at `size`'s right edge, if that level ends inside a tile. */
export function partialTile(size: number, level: number | 'entries'): TileRef | undefined {
  const n = nodesAtTileLevel(size, level === 'entries' ? 0 : level);
  const width = n % TILE_WIDTH;
  return width === 0 ? undefined : { level, index: Math.floor(n / TILE_WIDTH), width };
}

/**
 * Tiles of the tree of `to` leaves that a tree of `from` leaves did not have complete: the full
 * tiles that filled in between, then the partial ones at `to` (entry bundles last per index, so
 * a reader sees a bundle only once its level-0 hashes are there).
 */
export function tilesBetween(from: number, to: number): TileRef[] {
  const out: TileRef[] = [];
  for (let level = 0; level < tileLevels(to); level++) {
    for (let i = fullTiles(from, level); i < fullTiles(to, level); i++) out.push({ level, index: i, width: TILE_WIDTH });
  }
  for (let i = fullTiles(from, 'entries'); i < fullTiles(to, 'entries'); i++) out.push({ level: 'entries', index: i, width: TILE_WIDTH });
  for (let level = 0; level < tileLevels(to); level++) {
    const p = partialTile(to, level);
    if (p) out.push(p);
  }
  const p = partialTile(to, 'entries');
  if (p) out.push(p);
  return out;
}
