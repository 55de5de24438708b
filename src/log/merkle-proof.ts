// Subtree hashes and RFC 9162 proofs computed from stored complete nodes, so a proof costs
// O(log n) node reads instead of rehashing leaves. The store supplies nodes through NodeReader.
import { InputError } from '../errors.js';
import { exactLog2, isSize, perfectSubtrees, splitPoint } from './merkle-bits.js';
import { emptyRoot, hashChildren, type Hash } from './merkle-hash.js';
import type { CompactRange } from './merkle-range.js';

/** Random access to stored complete nodes (synchronous: SQLite and Durable Object SQL are sync). Throws if absent. */
export interface NodeReader {
  node(level: number, index: number): Hash;
}

function badArgs(message: string): InputError {
  return new InputError('ERR_INPUT', message);
}

/**
 * MTH(D[start:end]) per RFC 9162 2.1.1, for any 0 <= start <= end <= stored size.
 * Every subtree a proof needs starts on a multiple of its enclosing power of two, so its left
 * halves are stored nodes: O(log n) reads. An unaligned range is still hashed correctly, from
 * smaller stored nodes, at a higher read cost.
 */
export function subtreeHash(start: number, end: number, reader: NodeReader): Hash {
  if (!isSize(start) || !isSize(end) || start > end) throw badArgs(`bad subtree range [${start}, ${end})`);
  if (start === end) return emptyRoot(); // 2.1.1: MTH({}) = HASH()
  return hashRange(start, end, reader);
}

function hashRange(start: number, end: number, reader: NodeReader): Hash {
  const n = end - start;
  const level = exactLog2(n);
  if (level >= 0 && start % n === 0) return reader.node(level, start / n); // a stored perfect subtree
  const k = splitPoint(n); // 2.1.1: k is the largest power of two smaller than n
  return hashChildren(hashRange(start, start + k, reader), hashRange(start + k, end, reader));
}

export function rootAt(size: number, reader: NodeReader): Hash {
  return subtreeHash(0, size, reader);
}

/** The compact range of [0, size) read from stored nodes: one read per set bit of size. */
export function compactRangeAt(size: number, reader: NodeReader): CompactRange {
  if (!isSize(size)) throw badArgs(`bad tree size ${size}`);
  return { size, hashes: perfectSubtrees(size).map(({ level, index }) => reader.node(level, index)) };
}

/** RFC 9162 section 2.1.3.1 inclusion proof of leaf `index` in the tree of `size`. */
export function inclusionProof(index: number, size: number, reader: NodeReader): Hash[] {
  if (!isSize(index) || !isSize(size) || index >= size) throw badArgs(`no leaf ${index} in a tree of size ${size}`);
  const proof: Hash[] = [];
  path(index, 0, size, reader, proof);
  return proof;
}

/** PATH(m, D[start:end]) with m relative to start; siblings are appended leaf-side first. */
function path(m: number, start: number, end: number, reader: NodeReader, out: Hash[]): void {
  const n = end - start;
  if (n === 1) return; // 2.1.3.1: PATH(0, {d(0)}) = {}
  const k = splitPoint(n);
  if (m < k) {
    path(m, start, start + k, reader, out); // 2.1.3.1: m < k: PATH(m, D[0:k]) : MTH(D[k:n])
    out.push(hashRange(start + k, end, reader));
  } else {
    path(m - k, start + k, end, reader, out); // 2.1.3.1: m >= k: PATH(m - k, D[k:n]) : MTH(D[0:k])
    out.push(hashRange(start, start + k, reader));
  }
}

/** RFC 9162 section 2.1.4.1 consistency proof from size1 to size2 (0 < size1 <= size2). */
export function consistencyProof(size1: number, size2: number, reader: NodeReader): Hash[] {
  if (!isSize(size1) || !isSize(size2) || size1 === 0 || size1 > size2) {
    throw badArgs(`no consistency proof from size ${size1} to size ${size2}`);
  }
  const proof: Hash[] = [];
  subproof(size1, 0, size2, true, reader, proof); // 2.1.4.1: PROOF(m, D[n]) = SUBPROOF(m, D[n], true)
  return proof;
}

/** SUBPROOF(m, D[start:end], b) with m relative to start. */
function subproof(m: number, start: number, end: number, b: boolean, reader: NodeReader, out: Hash[]): void {
  const n = end - start;
  if (m === n) {
    // 2.1.4.1: SUBPROOF(m, D[m], true) = {}; SUBPROOF(m, D[m], false) = {MTH(D[m])}
    if (!b) out.push(hashRange(start, end, reader));
    return;
  }
  const k = splitPoint(n);
  if (m <= k) {
    subproof(m, start, start + k, b, reader, out); // 2.1.4.1: m <= k: SUBPROOF(m, D[0:k], b) : MTH(D[k:n])
    out.push(hashRange(start + k, end, reader));
  } else {
    subproof(m - k, start + k, end, false, reader, out); // 2.1.4.1: m > k: SUBPROOF(m - k, D[k:n], false) : MTH(D[0:k])
    out.push(hashRange(start, start + k, reader));
  }
}

/** Proofs for one checkpoint share most of their nodes: a reader that reads each from `reader` once. */
export function cachedReader(reader: NodeReader): NodeReader {
  const map = new Map<string, Hash>();
  return {
    node: (level, index) => {
      const key = `${level}/${index}`;
      let h = map.get(key);
      if (!h) map.set(key, (h = reader.node(level, index)));
      return h;
    },
  };
}
