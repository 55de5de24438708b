// What prune anchors the tiles it drops on (archive-prune.ts step 2): the log's level-8 nodes, each
// a full tile's root, hashed up here to the signed checkpoint root instead of trusting the stored
// nodes above them. A file-level attacker can forge a tile whole (rows, leaves, nodes 0..8 and its
// archive files to match) and leave every node from level 9 up genuine: the stored tree still gives
// the signed root, and only hashing up from level 8 ties each node 8/i to the signature. One hash
// per tile, memory O(log n) but for the 32 bytes per tile to drop that step 3 checks against.
import { bytesEqual } from '../canonical/index.js';
import { appendLeaf, emptyRange, hashChildren, subtreeHash, TILE_HEIGHT, TILE_WIDTH, type CompactRange, type Hash, type NodeReader, type TreeNode } from '../log/index.js';

const HASH = 32;
const PAGE = 4096;

export interface SealedTreeReader extends NodeReader {
  nodeRange?(level: number, lo: number, hi: number): Iterable<TreeNode>;
}

export type SealedTreeCheck = { ok: true; node8(index: number): Hash | undefined } | { ok: false; finding: string };

/**
 * Whether nodes 8/0..8/(full - 1) of the tree of `size` (full: its full tiles), hashed up level by
 * level, then with the stored nodes of the partial last tile, give `root`. Each node from level 9
 * up that this computes is compared with the stored one too, so a finding names the node. On
 * success, node8(i) gives the checked node 8/i for tiles `keep.from <= i < keep.to`.
 */
export function checkSealedTree(size: number, root: Hash, reader: SealedTreeReader, keep: { from: number; to: number }): SealedTreeCheck {
  const fail = (finding: string): SealedTreeCheck => ({ ok: false, finding });
  const full = Math.floor(size / TILE_WIDTH);
  const kept = new Uint8Array((keep.to - keep.from) * HASH);
  let range: CompactRange = emptyRange(); // over level-8 nodes: its level l is the tree's level 8 + l
  for (let lo = 0; lo < full; lo += PAGE) {
    const hi = Math.min(lo + PAGE, full);
    // A node that cannot be read, or is not 32 bytes, is the finding (the file-level attacker's edit), never another error code.
    const page = readNodes(() => (reader.nodeRange ? [...reader.nodeRange(TILE_HEIGHT, lo, hi - 1)] : Array.from({ length: hi - lo }, (_, k) => ({ level: TILE_HEIGHT, index: lo + k, hash: reader.node(TILE_HEIGHT, lo + k) }))));
    if (typeof page === 'string') return fail(`the log's level-8 nodes 8/${lo}..8/${hi - 1} cannot be read (${page})`);
    for (let i = lo; i < hi; i++) {
      const n = page[i - lo];
      if (n?.index !== i) return fail(`the log's node 8/${i} is not stored`);
      if (n.hash.length !== HASH) return fail(`the log's node 8/${i} is ${n.hash.length} bytes, not a 32-byte hash`);
      if (i >= keep.from && i < keep.to) kept.set(n.hash, (i - keep.from) * HASH);
      const step = appendLeaf(range, n.hash);
      // created[0] is the level-8 node itself; each further one is a parent it completes (RFC 9162 2.1.1).
      for (const c of step.created.slice(1)) {
        const level = TILE_HEIGHT + c.level;
        const first = c.index * 2 ** c.level;
        const stored = readNodes(() => reader.node(level, c.index));
        if (typeof stored === 'string') return fail(`the log's node ${level}/${c.index} cannot be read (${stored})`);
        if (!bytesEqual(stored, c.hash)) return fail(`the log's level-8 nodes 8/${first}..8/${first + 2 ** c.level - 1} do not hash to its node ${level}/${c.index}`);
      }
      range = step.range;
    }
  }
  // The root: the partial last tile's hash (its own stored nodes under level 8), folded right to
  // left with the perfect subtrees over the full tiles, as rangeRoot folds a compact range.
  const partial = size % TILE_WIDTH === 0 ? undefined : readNodes(() => subtreeHash(full * TILE_WIDTH, size, reader));
  if (typeof partial === 'string') return fail(`the stored nodes of the log's last partial tile (entries ${full * TILE_WIDTH}..${size - 1}) cannot be read (${partial})`);
  let top: Hash | undefined = partial;
  for (let k = range.hashes.length - 1; k >= 0; k--) top = top ? hashChildren(range.hashes[k], top) : range.hashes[k];
  if (!top || !bytesEqual(top, root)) return fail(`the log's tree, hashed up from its level-8 nodes 8/0..8/${full - 1} and the stored nodes of its last partial tile, does not give the root of its checkpoint at ${size}`);
  return { ok: true, node8: (i) => (i >= keep.from && i < keep.to ? kept.slice((i - keep.from) * HASH, (i - keep.from + 1) * HASH) : undefined) };
}

/** The read's result, or its error's message (a finding for the caller to name). */
function readNodes<T>(read: () => T): T | string {
  try {
    return read();
  } catch (e) {
    return (e as Error).message;
  }
}
