// Trees built with appendLeaf into an in-memory node store, checked against a naive
// transcription of RFC 9162 2.1.1 (MTH), 2.1.3.1 (PATH) and 2.1.4.1 (PROOF/SUBPROOF).
import { describe, expect, it } from 'vitest';
import { toHex, utf8 } from '../../src/canonical/index.js';
import {
  appendLeaf, compactRangeAt, consistencyProof, emptyRange, EMPTY_ROOT, extendRange, hashChildren, hashLeaf, inclusionProof,
  rangeRoot, rootAt, rootFromInclusion, subtreeHash, verifyConsistency, verifyInclusion, type CompactRange, type Hash, type NodeReader,
} from '../../src/log/merkle.js';

// Naive RFC 9162 over the full list of leaf hashes.
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}
function mth(d: Hash[]): Hash {
  if (d.length === 0) return EMPTY_ROOT;
  if (d.length === 1) return d[0];
  const k = split(d.length);
  return hashChildren(mth(d.slice(0, k)), mth(d.slice(k)));
}
function naivePath(m: number, d: Hash[]): Hash[] {
  if (d.length === 1) return [];
  const k = split(d.length);
  return m < k ? [...naivePath(m, d.slice(0, k)), mth(d.slice(k))] : [...naivePath(m - k, d.slice(k)), mth(d.slice(0, k))];
}
function naiveSubproof(m: number, d: Hash[], b: boolean): Hash[] {
  if (m === d.length) return b ? [] : [mth(d)];
  const k = split(d.length);
  return m <= k
    ? [...naiveSubproof(m, d.slice(0, k), b), mth(d.slice(k))]
    : [...naiveSubproof(m - k, d.slice(k), false), mth(d.slice(0, k))];
}

/** A log built with appendLeaf; `reads` counts node reads so tests can bound them. */
class MemoryLog implements NodeReader {
  readonly leaves: Hash[] = [];
  readonly roots: Hash[] = [EMPTY_ROOT];
  readonly ranges: CompactRange[] = [emptyRange()];
  range: CompactRange = emptyRange();
  reads = 0;
  private readonly nodes = new Map<string, Hash>();
  constructor(size: number) {
    for (let i = 0; i < size; i++) {
      const leaf = hashLeaf(utf8.encode(`entry ${i}`));
      const { range, created } = appendLeaf(this.range, leaf);
      for (const n of created) {
        const key = `${n.level}/${n.index}`;
        if (this.nodes.has(key)) throw new Error(`node ${key} created twice`);
        this.nodes.set(key, n.hash);
      }
      this.range = range;
      this.leaves.push(leaf);
      this.roots.push(rangeRoot(range));
      this.ranges.push(range);
    }
  }
  node(level: number, index: number): Hash {
    this.reads++;
    const hash = this.nodes.get(`${level}/${index}`);
    if (!hash) throw new Error(`node ${level}/${index} absent`);
    return hash;
  }
  get nodeCount(): number {
    return this.nodes.size;
  }
}

const hex = (hs: Hash[]) => hs.map(toHex);
function flipped(proof: Hash[], i: number, bit: number): Hash[] {
  const copy = proof.map((h) => h.slice());
  copy[i][bit >> 3] ^= 1 << (bit & 7);
  return copy;
}

const SMALL = 70;
const log = new MemoryLog(SMALL);

describe('appendLeaf', () => {
  it('creates the leaf node first, then each merged parent, and 2n - popcount(n) nodes in all', () => {
    const { created } = appendLeaf(log.ranges[7], log.leaves[7]);
    expect(created.map((n) => [n.level, n.index])).toEqual([[0, 7], [1, 3], [2, 1], [3, 0]]);
    expect(toHex(created[3].hash)).toBe(toHex(mth(log.leaves.slice(0, 8))));
    expect(log.nodeCount).toBe(2 * SMALL - 3); // 70 = 0b1000110: three set bits
  });

  it('does not modify the range it was given', () => {
    const before = log.ranges[3];
    const copy = { size: before.size, hashes: before.hashes.slice() };
    appendLeaf(before, log.leaves[3]);
    expect(before).toEqual(copy);
  });
});

describe(`every tree of size 0..${SMALL}`, () => {
  it('rangeRoot == rootAt == naive MTH', () => {
    for (let n = 0; n <= SMALL; n++) {
      const want = toHex(mth(log.leaves.slice(0, n)));
      expect(toHex(log.roots[n]), `size ${n}`).toBe(want);
      expect(toHex(rootAt(n, log)), `size ${n}`).toBe(want);
    }
  });

  it('subtreeHash of every [start, end), aligned or not, == naive MTH', () => {
    for (let end = 0; end <= 24; end++) {
      for (let start = 0; start <= end; start++) {
        expect(toHex(subtreeHash(start, end, log)), `[${start}, ${end})`).toBe(toHex(mth(log.leaves.slice(start, end))));
      }
    }
  });

  it('inclusion proofs equal the naive PATH, verify, and fail with any flipped bit', () => {
    for (let n = 1; n <= SMALL; n++) {
      for (let m = 0; m < n; m++) {
        const proof = inclusionProof(m, n, log);
        expect(hex(proof), `${m}/${n}`).toEqual(hex(naivePath(m, log.leaves.slice(0, n))));
        expect(verifyInclusion(m, n, log.leaves[m], proof, log.roots[n]), `${m}/${n}`).toBe(true);
        expect(toHex(rootFromInclusion(m, n, log.leaves[m], proof))).toBe(toHex(log.roots[n]));
        for (let i = 0; i < proof.length; i++) {
          const bits = n <= 8 ? 256 : 1; // every bit for small trees, one (varying) bit otherwise
          for (let b = 0; b < bits; b++) {
            const bit = bits === 1 ? (m * 31 + n * 7 + i) % 256 : b;
            expect(verifyInclusion(m, n, log.leaves[m], flipped(proof, i, bit), log.roots[n]), `${m}/${n} #${i} bit ${bit}`).toBe(false);
          }
        }
        if (n > 1) {
          expect(verifyInclusion(m, n, log.leaves[m], proof, log.roots[n - 1])).toBe(false);
          expect(verifyInclusion(m, n, log.leaves[(m + 1) % n], proof, log.roots[n])).toBe(false);
        }
      }
    }
  });

  it('consistency proofs equal the naive PROOF, verify, and fail with any flipped bit', () => {
    for (let n = 1; n <= SMALL; n++) {
      for (let m = 1; m <= n; m++) {
        const proof = consistencyProof(m, n, log);
        expect(hex(proof), `${m}->${n}`).toEqual(hex(naiveSubproof(m, log.leaves.slice(0, n), true)));
        expect(verifyConsistency(m, n, log.roots[m], log.roots[n], proof), `${m}->${n}`).toBe(true);
        for (let i = 0; i < proof.length; i++) {
          const bits = n <= 8 ? 256 : 1;
          for (let b = 0; b < bits; b++) {
            const bit = bits === 1 ? (m * 31 + n * 7 + i) % 256 : b;
            expect(verifyConsistency(m, n, log.roots[m], log.roots[n], flipped(proof, i, bit)), `${m}->${n} #${i} bit ${bit}`).toBe(false);
          }
        }
        if (m < n) {
          expect(verifyConsistency(m, n, log.roots[m], log.roots[n - 1], proof)).toBe(false);
          expect(verifyConsistency(m, n, log.roots[m - 1], log.roots[n], proof)).toBe(false);
        }
      }
    }
  });

  it('extendRange from compactRangeAt(from) over leaves [from, to) gives rootAt(to)', () => {
    for (let from = 0; from <= SMALL; from++) {
      const start = compactRangeAt(from, log);
      expect(start.size).toBe(from);
      expect(hex(start.hashes)).toEqual(hex(log.ranges[from].hashes));
      for (const to of [from, from + 1, Math.min(SMALL, from + 5), SMALL]) {
        if (to > SMALL) continue;
        const extended = extendRange(start, log.leaves.slice(from, to));
        expect(extended.size).toBe(to);
        expect(toHex(rangeRoot(extended)), `${from}->${to}`).toBe(toHex(rootAt(to, log)));
      }
    }
  });
});

describe.each([1000, 1024, 1025])('a tree of %i leaves', (size) => {
  const big = new MemoryLog(size);
  const logReads = 2 * Math.ceil(Math.log2(size)) + 2;

  it('rangeRoot == rootAt == naive MTH, at every size', () => {
    expect(toHex(big.roots[size])).toBe(toHex(mth(big.leaves)));
    for (let n = 0; n <= size; n++) expect(toHex(rootAt(n, big)), `size ${n}`).toBe(toHex(big.roots[n]));
  });

  it(`every inclusion proof verifies in at most ${logReads} node reads; sampled ones equal the naive PATH`, () => {
    for (let m = 0; m < size; m++) {
      big.reads = 0;
      const proof = inclusionProof(m, size, big);
      expect(big.reads).toBeLessThanOrEqual(logReads);
      expect(verifyInclusion(m, size, big.leaves[m], proof, big.roots[size])).toBe(true);
      if (m % 97 === 0 || m === size - 1) expect(hex(proof)).toEqual(hex(naivePath(m, big.leaves)));
    }
  });

  it(`every consistency proof to ${size} verifies in at most ${logReads} node reads; sampled ones equal the naive PROOF`, () => {
    for (let m = 1; m <= size; m++) {
      big.reads = 0;
      const proof = consistencyProof(m, size, big);
      expect(big.reads).toBeLessThanOrEqual(logReads);
      expect(verifyConsistency(m, size, big.roots[m], big.roots[size], proof)).toBe(true);
      if (m % 97 === 0 || m === size - 1) expect(hex(proof)).toEqual(hex(naiveSubproof(m, big.leaves, true)));
    }
  });

  it('extendRange from a compact range read at 3 offsets reaches the root', () => {
    for (const from of [0, 513, size - 1]) {
      expect(toHex(rangeRoot(extendRange(compactRangeAt(from, big), big.leaves.slice(from))))).toBe(toHex(big.roots[size]));
    }
  });
});
