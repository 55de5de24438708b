// Sizes past 2^32 (up to 2^53 - 1) on a computable virtual tree, and the refusals: bad
// arguments throw coded errors, bad proofs throw ERR_VERIFY_PROOF or return false, never crash.
import { describe, expect, it } from 'vitest';
import { toHex, utf8 } from '../../src/canonical/index.js';
import {
  appendLeaf, compactRangeAt, consistencyProof, emptyRange, extendRange, hashChildren, hashLeaf, inclusionProof, rangeRoot, rootAt,
  rootFromInclusion, subtreeHash, verifyConsistency, verifyInclusion, type Hash, type NodeReader,
} from '../../src/log/merkle.js';

/**
 * A tree whose leaves are all `plain` except leaf `marked`: every node hash is computable from
 * its level and whether it covers the marked leaf, so trees of 2^53 - 1 leaves fit in memory.
 * Reads outside [0, size) throw like a real store; a wrong index usually flips plain/marked.
 */
function virtualTree(size: number, marked: number): NodeReader & { plain: Hash; marked: Hash } {
  const plain = [hashLeaf(utf8.encode('plain'))];
  const mark = [hashLeaf(utf8.encode('marked'))];
  for (let l = 1; l <= 53; l++) {
    plain.push(hashChildren(plain[l - 1], plain[l - 1]));
    // the marked leaf is in the left or right child depending on the bit of `marked` at level l-1
    mark.push(Math.floor(marked / 2 ** (l - 1)) % 2 === 0 ? hashChildren(mark[l - 1], plain[l - 1]) : hashChildren(plain[l - 1], mark[l - 1]));
  }
  return {
    plain: plain[0],
    marked: mark[0],
    node(level, index) {
      const width = 2 ** level;
      if (!Number.isSafeInteger(index) || index < 0 || (index + 1) * width > size) throw new Error(`node ${level}/${index} absent`);
      return Math.floor(marked / width) === index ? mark[level] : plain[level];
    },
  };
}

/** Independent length check in BigInt (transparency-dev/merkle's decomposition): inner + border. */
function inclusionProofLength(index: number, size: number): number {
  const inner = (BigInt(index) ^ BigInt(size - 1)).toString(2).replace(/^0$/, '').length;
  const border = (BigInt(index) >> BigInt(inner)).toString(2).replace(/0/g, '').length;
  return inner + border;
}

const MAX = Number.MAX_SAFE_INTEGER;
const cases: [string, number, number][] = [
  ['2^31 - 1', 2 ** 31 - 1, 2 ** 31 - 2],
  ['2^31', 2 ** 31, 2 ** 30 + 7],
  ['2^32 + 5', 2 ** 32 + 5, 2 ** 32 + 1],
  ['2^40 + 12345', 2 ** 40 + 12345, 2 ** 33 + 3],
  ['2^53 - 1', MAX, MAX - 1],
  ['2^53 - 1, leaf 0', MAX, 0],
];

describe.each(cases)('a virtual tree of %s leaves', (_, size, leaf) => {
  const tree = virtualTree(size, leaf);
  const root = rootAt(size, tree);

  it('the marked leaf has an inclusion proof that verifies, and a neighbour index does not', () => {
    const proof = inclusionProof(leaf, size, tree);
    expect(proof.length).toBe(inclusionProofLength(leaf, size));
    expect(verifyInclusion(leaf, size, tree.marked, proof, root)).toBe(true);
    expect(verifyInclusion(leaf, size, tree.plain, proof, root)).toBe(false);
    const other = leaf === 0 ? 1 : leaf - 1;
    expect(verifyInclusion(other, size, tree.marked, proof, root)).toBe(false);
  });

  it('consistency proofs from smaller sizes around the marked leaf verify', () => {
    for (const size1 of [1, leaf + 1, Math.floor(size / 2), size - 1].filter((s) => s >= 1 && s <= size)) {
      const proof = consistencyProof(size1, size, tree);
      expect(verifyConsistency(size1, size, rootAt(size1, tree), root, proof), `${size1}`).toBe(true);
      if (proof.length > 0) expect(verifyConsistency(size1, size, rootAt(size1, tree), root, proof.slice(1)), `${size1}`).toBe(false);
    }
  });

  it('compactRangeAt has one hash per set bit and its root is rootAt', () => {
    const range = compactRangeAt(size, tree);
    expect(range.hashes.length).toBe(size.toString(2).replace(/0/g, '').length);
    expect(toHex(rangeRoot(range))).toBe(toHex(root));
  });
});

describe('appending past 32 bits', () => {
  it('the leaf that completes 2^33 creates 34 nodes with the right indices and the right root', () => {
    const size = 2 ** 33 - 1;
    const tree = virtualTree(2 ** 33, 0);
    const { range, created } = appendLeaf(compactRangeAt(size, tree), tree.plain);
    expect(created.map((n) => [n.level, n.index])).toEqual(Array.from({ length: 34 }, (_, l) => [l, Math.floor(size / 2 ** l)]));
    expect(range).toEqual({ size: 2 ** 33, hashes: [created[33].hash] });
    expect(toHex(rangeRoot(range))).toBe(toHex(rootAt(2 ** 33, tree)));
  });

  it('extendRange across 2^32 matches rootAt', () => {
    const tree = virtualTree(2 ** 32 + 3, 2 ** 32 + 1);
    const leaves = [tree.plain, tree.plain, tree.plain, tree.marked, tree.plain]; // leaves 2^32 - 2 .. 2^32 + 2
    const extended = extendRange(compactRangeAt(2 ** 32 - 2, tree), leaves);
    expect(toHex(rangeRoot(extended))).toBe(toHex(rootAt(2 ** 32 + 3, tree)));
  });

  it('refuses to grow past 2^53 - 1', () => {
    const range = compactRangeAt(MAX, virtualTree(MAX, 0));
    expect(() => appendLeaf(range, hashLeaf(new Uint8Array()))).toThrow(expect.objectContaining({ code: 'ERR_INPUT' }));
  });
});

describe('refusals', () => {
  const tree = virtualTree(8, 5);
  const root8 = rootAt(8, tree);
  const proof = inclusionProof(5, 8, tree);

  it('proof generators reject impossible arguments with ERR_INPUT', () => {
    for (const [i, n] of [[8, 8], [-1, 8], [1.5, 8], [0, 0], [0, 2 ** 53]]) {
      expect(() => inclusionProof(i, n, tree), `${i}/${n}`).toThrow(expect.objectContaining({ code: 'ERR_INPUT' }));
    }
    for (const [m, n] of [[0, 8], [9, 8], [0, 0], [NaN, 8]]) {
      expect(() => consistencyProof(m, n, tree), `${m}->${n}`).toThrow(expect.objectContaining({ code: 'ERR_INPUT' }));
    }
    expect(() => subtreeHash(3, 2, tree)).toThrow(expect.objectContaining({ code: 'ERR_INPUT' }));
    expect(() => compactRangeAt(-1, tree)).toThrow(expect.objectContaining({ code: 'ERR_INPUT' }));
  });

  it('a read past the stored size surfaces the store error', () => {
    expect(() => inclusionProof(0, 9, tree)).toThrow('absent');
    expect(() => rootAt(9, tree)).toThrow('absent');
  });

  it('rootFromInclusion throws ERR_VERIFY_PROOF on a proof of the wrong shape', () => {
    expect(toHex(rootFromInclusion(5, 8, tree.marked, proof))).toBe(toHex(root8));
    const bad: [number, number, Uint8Array, Uint8Array[]][] = [
      [8, 8, tree.marked, proof], // index outside the tree
      [5, 8, tree.marked, proof.slice(1)], // too short
      [5, 8, tree.marked, [...proof, proof[0]]], // too long
      [5, 8, tree.marked.slice(1), proof], // 31-byte leaf
      [5, 8, tree.marked, [proof[0], new Uint8Array(33), proof[2]]], // 33-byte element
      [2 ** 53, 2 ** 53 + 2, tree.marked, proof], // not safe integers
      [5, 8, tree.marked, null as unknown as Uint8Array[]],
    ];
    for (const [i, n, leaf, p] of bad) {
      expect(() => rootFromInclusion(i, n, leaf, p), `${i}/${n}`).toThrow(expect.objectContaining({ code: 'ERR_VERIFY_PROOF' }));
      expect(verifyInclusion(i, n, leaf, p, root8)).toBe(false);
    }
  });

  it('verifiers return false, never throw, on inputs of the wrong type', () => {
    const junk = [undefined, null, 'x', 1, {}, [1], NaN, -1, 1.5, Infinity] as unknown[];
    for (const j of junk) {
      const x = j as never;
      expect(verifyInclusion(x, 8, tree.marked, proof, root8)).toBe(false);
      expect(verifyInclusion(5, x, tree.marked, proof, root8)).toBe(false);
      expect(verifyInclusion(5, 8, x, proof, root8)).toBe(false);
      expect(verifyInclusion(5, 8, tree.marked, x, root8)).toBe(false);
      expect(verifyInclusion(5, 8, tree.marked, proof, x)).toBe(false);
      expect(verifyConsistency(x, 8, root8, root8, [])).toBe(false);
      expect(verifyConsistency(4, x, root8, root8, [root8])).toBe(false);
      expect(verifyConsistency(8, 8, x, root8, [])).toBe(false);
      expect(verifyConsistency(8, 8, root8, x, [])).toBe(false);
      expect(verifyConsistency(4, 8, root8, root8, x)).toBe(false);
    }
  });

  it('a consistency proof with a 31-byte element or root is rejected', () => {
    const p = consistencyProof(3, 8, tree);
    const r3 = rootAt(3, tree);
    expect(verifyConsistency(3, 8, r3, root8, p)).toBe(true);
    expect(verifyConsistency(3, 8, r3, root8, [p[0].slice(1), ...p.slice(1)])).toBe(false);
    expect(verifyConsistency(3, 8, r3.slice(1), root8, p)).toBe(false);
    expect(verifyConsistency(3, 8, r3, root8.slice(1), p)).toBe(false);
  });

  it('compact ranges of the wrong shape are rejected with ERR_INPUT listing each bad field', () => {
    const leaf = tree.plain;
    const good = compactRangeAt(3, tree);
    const shapes = [
      { size: 3, hashes: good.hashes.slice(1) }, // 2 hashes needed
      { size: 3, hashes: [good.hashes[0], good.hashes[1].slice(2)] },
      { size: -1, hashes: [] },
      { size: 1, hashes: 'x' },
    ] as never[];
    for (const r of shapes) {
      expect(() => appendLeaf(r, leaf)).toThrow(expect.objectContaining({ code: 'ERR_INPUT' }));
      expect(() => rangeRoot(r)).toThrow(expect.objectContaining({ code: 'ERR_INPUT' }));
      expect(() => extendRange(r, [])).toThrow(expect.objectContaining({ code: 'ERR_INPUT' }));
    }
    expect(() => appendLeaf(good, leaf.slice(1))).toThrow(expect.objectContaining({ code: 'ERR_INPUT' }));
    expect(() => extendRange(emptyRange(), [leaf, new Uint8Array(3)])).toThrow(expect.objectContaining({ code: 'ERR_INPUT' }));
    expect(() => rangeRoot({ size: 3, hashes: [good.hashes[0].slice(1)] })).toThrow(
      expect.objectContaining({ code: 'ERR_INPUT', issues: [expect.objectContaining({ path: '/hashes' }), expect.objectContaining({ path: '/hashes/0' })] }),
    );
  });
});
