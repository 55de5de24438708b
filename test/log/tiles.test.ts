// tlog-tiles from stored nodes: the spec's path encoding and size examples, tile bytes against an
// independent RFC 6962 hashing of the leaves, bounded node reads, and entry bundle framing.
import { describe, expect, it } from 'vitest';
import { concatBytes, sha256, utf8 } from '../../src/canonical/index.js';
import { appendLeaf, emptyRange, hashLeaf, type CompactRange, type Hash } from '../../src/log/index.js';
import { decodeEntryBundle, encodeEntryBundle, formatTileIndex, formatTilePath, parseTilePath, readHashTile, tileInTree, type TileNodeSource, type TileRef } from '../../src/log/tiles.js';

/** A tree of n leaves as the appender stores it: every complete node, by level and index. */
function storedTree(n: number): { leaves: Hash[]; source: TileNodeSource; reads: { calls: number; nodes: number } } {
  const nodes = new Map<string, Hash>();
  const leaves: Hash[] = [];
  let range: CompactRange = emptyRange();
  for (let i = 0; i < n; i++) {
    const leaf = hashLeaf(utf8.encode(`entry ${i}`));
    leaves.push(leaf);
    const r = appendLeaf(range, leaf);
    range = r.range;
    for (const c of r.created) nodes.set(`${c.level}/${c.index}`, c.hash);
  }
  const reads = { calls: 0, nodes: 0 };
  const source: TileNodeSource = {
    async nodes(level, lo, hi) {
      reads.calls++;
      const out: Hash[] = [];
      for (let i = lo; i <= hi; i++) {
        const h = nodes.get(`${level}/${i}`);
        if (h) out.push(h);
      }
      reads.nodes += out.length;
      return out;
    },
  };
  return { leaves, source, reads };
}

/** RFC 6962 MTH, written out again here (no shared code with src/log). */
function mth(leaves: Hash[]): Hash {
  if (leaves.length === 1) return leaves[0];
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return sha256(concatBytes(Uint8Array.of(1), mth(leaves.slice(0, k)), mth(leaves.slice(k))));
}

const tile = (level: number | 'entries', index: number, width = 256): TileRef => ({ level, index, width });

describe('tile paths', () => {
  it('encodes <N> in 3-digit groups, x-prefixed but the last (the spec example)', () => {
    expect(formatTileIndex(1234067)).toBe('x001/x234/067');
    expect(formatTileIndex(0)).toBe('000');
    expect(formatTileIndex(1000)).toBe('x001/000');
    expect(formatTilePath(tile(0, 1234067, 5))).toBe('tile/0/x001/x234/067.p/5');
    expect(formatTilePath(tile('entries', 7))).toBe('tile/entries/007');
  });

  it('parses its own encoding back, and nothing else', () => {
    for (const t of [tile(0, 0), tile(3, 1234067, 255), tile('entries', 999, 1), tile(63, 1000), tile(0, Math.floor(Number.MAX_SAFE_INTEGER / 1024), 9)]) {
      expect(parseTilePath(formatTilePath(t).slice('tile/'.length))).toEqual(t);
    }
    const bad = ['01/000', '64/000', '-1/000', '0/x000/001', '0/1', '0/0000', '0/x001', '0/000.p/0', '0/000.p/256', '0/000.p/01', '0/000.p', '0/000/', '0/../000', 'data/000', 'entries/', '0/000.p/5/6', '0/x001/x002/x003/x004/x005/x006/007', ''];
    for (const p of bad) expect(() => parseTilePath(p), p).toThrowError(expect.objectContaining({ code: 'ERR_INPUT' }));
  });
});

describe('which tiles a tree has', () => {
  it('matches the spec: size 70,000 has 273 full level-0 tiles, partial widths 112, 17 and 1', () => {
    const n = 70_000;
    expect(tileInTree(tile(0, 272), n)).toBe(true);
    expect(tileInTree(tile(0, 273), n)).toBe(false);
    expect(tileInTree(tile(0, 273, 112), n)).toBe(true);
    expect(tileInTree(tile(0, 273, 113), n)).toBe(false);
    expect(tileInTree(tile(1, 0), n)).toBe(true);
    expect(tileInTree(tile(1, 1, 17), n)).toBe(true);
    expect(tileInTree(tile(1, 1, 18), n)).toBe(false);
    expect(tileInTree(tile(2, 0, 1), n)).toBe(true);
    expect(tileInTree(tile(2, 0, 2), n)).toBe(false);
    expect(tileInTree(tile(3, 0, 1), n)).toBe(false);
    expect(tileInTree(tile(63, 0, 1), n)).toBe(false);
    // "a tree of size 256 will be represented by a full level 0 tile and a partial level 1 tile of width 1"
    expect(tileInTree(tile(0, 0), 256)).toBe(true);
    expect(tileInTree(tile(1, 0, 1), 256)).toBe(true);
    expect(tileInTree(tile('entries', 0, 1), 0)).toBe(false);
  });
});

describe('hash tiles', () => {
  it('are the stored nodes: leaf hashes at level 0, MTH of 256-leaf blocks at level 1', async () => {
    const { leaves, source } = storedTree(600);
    const t0 = await readHashTile(tile(0, 1), 600, source);
    expect(t0).toEqual(concatBytes(...leaves.slice(256, 512)));
    const p0 = await readHashTile(tile(0, 2, 88), 600, source);
    expect(p0).toEqual(concatBytes(...leaves.slice(512, 600)));
    const p1 = await readHashTile(tile(1, 0, 2), 600, source);
    expect(p1).toEqual(concatBytes(mth(leaves.slice(0, 256)), mth(leaves.slice(256, 512))));
  });

  it('cost at most one range read of at most 256 nodes, whatever the tree size', async () => {
    const n = 70_000;
    const { leaves, source, reads } = storedTree(n);
    const t2 = await readHashTile(tile(2, 0, 1), n, source);
    expect(t2).toEqual(mth(leaves.slice(0, 65_536)));
    await readHashTile(tile(1, 1, 17), n, source);
    await readHashTile(tile(0, 273, 112), n, source);
    expect(reads).toEqual({ calls: 3, nodes: 1 + 17 + 112 });
  });

  it('refuses tiles beyond the signed size, and a store missing nodes', async () => {
    const { source } = storedTree(300);
    await expect(readHashTile(tile(0, 1), 300, source)).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' });
    await expect(readHashTile(tile(0, 1, 45), 300, source)).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' });
    await expect(readHashTile(tile(0, 1, 44), 300, source)).resolves.toHaveLength(44 * 32);
    const holed: TileNodeSource = { nodes: async (l, lo, hi) => (await source.nodes(l, lo, hi)).slice(1) };
    await expect(readHashTile(tile(0, 0), 300, holed)).rejects.toMatchObject({ code: 'ERR_STORE_INCONSISTENT' });
  });
});

describe('entry bundles', () => {
  it('frame each entry with a big-endian uint16 length, hashing to the level-0 tile', () => {
    const entries = [utf8.encode('{"a":1}'), new Uint8Array(0), new Uint8Array(300).fill(7)].map((bytes, i) => ({ seq: 512 + i, bytes }));
    const bundle = encodeEntryBundle(entries, 512, 3);
    expect([...bundle.subarray(0, 2)]).toEqual([0, 7]);
    expect([...bundle.subarray(9, 11)]).toEqual([0, 0]);
    expect([...bundle.subarray(11, 13)]).toEqual([1, 44]);
    expect(decodeEntryBundle(bundle)).toEqual(entries.map((e) => e.bytes));
  });

  it('refuse an entry longer than 65535 bytes (never truncated) and a short or unordered read', () => {
    expect(encodeEntryBundle([{ seq: 0, bytes: new Uint8Array(65_535) }], 0, 1)).toHaveLength(65_537);
    expect(() => encodeEntryBundle([{ seq: 0, bytes: new Uint8Array(65_536) }], 0, 1)).toThrowError(expect.objectContaining({ code: 'ERR_TILE_ENTRY_TOO_LARGE' }));
    expect(() => encodeEntryBundle([{ seq: 1, bytes: new Uint8Array(1) }], 0, 1)).toThrowError(expect.objectContaining({ code: 'ERR_STORE_INCONSISTENT' }));
    expect(() => encodeEntryBundle([], 0, 1)).toThrowError(expect.objectContaining({ code: 'ERR_STORE_INCONSISTENT' }));
    expect(() => decodeEntryBundle(Uint8Array.of(0, 5, 1))).toThrowError(/ends inside an entry/);
  });
});
