// checkSealedTree (src/store/sealed-tree.ts): the level-8 nodes hashed up, with the partial last
// tile's stored nodes, must give the signed root, whatever the stored nodes above level 8 say.
// Trees here are built by the appender's own compact range, every node it creates kept.
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/canonical/index.js';
import { appendLeaf, emptyRange, hashChildren, rootAt, type CompactRange, type Hash, type TreeNode } from '../../src/log/index.js';
import { checkSealedTree, type SealedTreeReader } from '../../src/store/sealed-tree.js';

function tree(size: number): { nodes: Map<string, Hash>; root: Hash } {
  const nodes = new Map<string, Hash>();
  let range: CompactRange = emptyRange();
  for (let i = 0; i < size; i++) {
    const step = appendLeaf(range, sha256(Uint8Array.of(i & 0xff, i >> 8, 7)));
    for (const n of step.created) nodes.set(`${n.level}/${n.index}`, n.hash);
    range = step.range;
  }
  const reader = readerOf(nodes, true);
  return { nodes, root: rootAt(size, reader) };
}

function readerOf(nodes: Map<string, Hash>, ranges: boolean): SealedTreeReader {
  const node = (level: number, index: number) => {
    const h = nodes.get(`${level}/${index}`);
    if (!h) throw new Error(`no node ${level}/${index}`);
    return h;
  };
  const nodeRange = (level: number, lo: number, hi: number): TreeNode[] => {
    const out: TreeNode[] = [];
    for (let i = lo; i <= hi; i++) if (nodes.has(`${level}/${i}`)) out.push({ level, index: i, hash: node(level, i) });
    return out;
  };
  return ranges ? { node, nodeRange } : { node };
}

const other = (h: Hash): Hash => hashChildren(h, h);

describe('checkSealedTree', () => {
  for (const size of [256, 257, 600, 1024, 1280, 2048 + 5, 7 * 256 + 255]) {
    for (const ranges of [true, false]) {
      it(`a genuine tree of ${size} (${ranges ? 'nodeRange' : 'node reads only'}): ok, the kept level-8 nodes as stored`, () => {
        const { nodes, root } = tree(size);
        const full = Math.floor(size / 256);
        const r = checkSealedTree(size, root, readerOf(nodes, ranges), { from: 0, to: full });
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        for (let i = 0; i < full; i++) expect(r.node8(i)).toEqual(nodes.get(`8/${i}`));
        expect(r.node8(full)).toBeUndefined();
      });
    }
  }

  it('keeps only the level-8 nodes of the tiles asked for', () => {
    const { nodes, root } = tree(1280);
    const r = checkSealedTree(1280, root, readerOf(nodes, true), { from: 2, to: 4 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect([r.node8(1), r.node8(2), r.node8(3), r.node8(4)]).toEqual([undefined, nodes.get('8/2'), nodes.get('8/3'), undefined]);
  });

  it('a forged level-8 node under genuine upper nodes: the finding names the upper node it no longer hashes to', () => {
    const { nodes, root } = tree(1280);
    nodes.set('8/3', other(nodes.get('8/3')!));
    expect(checkSealedTree(1280, root, readerOf(nodes, true), { from: 0, to: 5 })).toEqual({ ok: false, finding: expect.stringContaining('8/2..8/3 do not hash to its node 9/1') });
  });

  it('a forged level-8 node with every upper node rehashed to match: the finding names the checkpoint', () => {
    const { nodes, root } = tree(1280);
    nodes.set('8/3', other(nodes.get('8/3')!));
    nodes.set('9/1', hashChildren(nodes.get('8/2')!, nodes.get('8/3')!));
    nodes.set('10/0', hashChildren(nodes.get('9/0')!, nodes.get('9/1')!));
    expect(checkSealedTree(1280, root, readerOf(nodes, true), { from: 0, to: 5 })).toEqual({ ok: false, finding: expect.stringContaining('root of its checkpoint at 1280') });
  });

  it('the last level-8 node (one the compact range holds, no parent yet) forged: the root differs', () => {
    const { nodes, root } = tree(1280);
    nodes.set('8/4', other(nodes.get('8/4')!));
    expect(checkSealedTree(1280, root, readerOf(nodes, true), { from: 0, to: 5 })).toEqual({ ok: false, finding: expect.stringContaining('checkpoint at 1280') });
  });

  it('a node of the partial last tile forged: the root differs', () => {
    const { nodes, root } = tree(600);
    nodes.set('6/8', other(nodes.get('6/8')!)); // leaves 512..575
    expect(checkSealedTree(600, root, readerOf(nodes, true), { from: 0, to: 2 })).toEqual({ ok: false, finding: expect.stringContaining('checkpoint at 600') });
  });

  it('a level-8 node missing: named', () => {
    const { nodes, root } = tree(1280);
    nodes.delete('8/2');
    expect(checkSealedTree(1280, root, readerOf(nodes, true), { from: 0, to: 5 })).toEqual({ ok: false, finding: "the log's node 8/2 is not stored" });
  });

  it('a level-8 node of the wrong length, an upper node or a partial-tile node missing: a finding naming it, never a thrown error', () => {
    const { nodes, root } = tree(600);
    const short = new Map(nodes);
    short.set('8/1', nodes.get('8/1')!.subarray(0, 31));
    const r1 = checkSealedTree(600, root, readerOf(short, true), { from: 0, to: 2 });
    expect(r1).toEqual({ ok: false, finding: expect.stringMatching(/node 8\/1 is 31 bytes/) });
    const noUpper = new Map(nodes);
    noUpper.delete('9/0');
    expect(checkSealedTree(600, root, readerOf(noUpper, false), { from: 0, to: 2 })).toEqual({ ok: false, finding: expect.stringMatching(/node 9\/0 cannot be read/) });
    const noPartial = new Map(nodes);
    for (const k of [...noPartial.keys()]) if (k.startsWith('6/') && Number(k.split('/')[1]) >= 8) noPartial.delete(k);
    expect(checkSealedTree(600, root, readerOf(noPartial, false), { from: 0, to: 2 })).toEqual({ ok: false, finding: expect.stringMatching(/last partial tile .* cannot be read/) });
  });
});
