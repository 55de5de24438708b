// The appender's state: a compact range (the roots of the perfect subtrees covering [0, size)),
// extended one leaf at a time in O(log n) hashes and O(log n) memory, whatever the log's size.
import { InputError, type Issue } from '../errors.js';
import { countSubtrees, half, isOdd, isSize } from './merkle-bits.js';
import { emptyRoot, hashChildren, isHash, type Hash } from './merkle-hash.js';

/** A complete (perfect) subtree: 2^level leaves starting at leaf index << level. Level 0 = leaf hash. */
export interface TreeNode {
  level: number;
  index: number;
  hash: Hash;
}

/** Compact range covering leaves [0, size): roots of the perfect subtrees, left to right (largest first). */
export interface CompactRange {
  size: number;
  hashes: Hash[];
}

export function emptyRange(): CompactRange {
  return { size: 0, hashes: [] };
}

/** A range may come from an audit bundle: its shape must match its size before any hashing. */
function assertRange(range: CompactRange): void {
  const issues: Issue[] = [];
  if (!isSize(range?.size)) issues.push({ path: '/size', message: 'not a non-negative safe integer' });
  if (!Array.isArray(range?.hashes)) {
    issues.push({ path: '/hashes', message: 'not an array' });
  } else {
    if (isSize(range.size) && range.hashes.length !== countSubtrees(range.size)) {
      issues.push({ path: '/hashes', message: `a range of size ${range.size} has ${countSubtrees(range.size)} hashes` });
    }
    range.hashes.forEach((h, i) => {
      if (!isHash(h)) issues.push({ path: `/hashes/${i}`, message: 'not a 32-byte hash' });
    });
  }
  if (issues.length > 0) throw new InputError('ERR_INPUT', 'malformed compact range', issues);
}

/**
 * Adds leaf number `size` to `hashes` in place. Each trailing 1 bit of the old size is a perfect
 * subtree of the same level as the one being carried: merge them (RFC 9162 2.1.1, equal halves).
 */
function pushLeaf(hashes: Hash[], size: number, leaf: Hash, created?: TreeNode[]): void {
  if (!isHash(leaf)) throw new InputError('ERR_INPUT', 'leaf hash is not 32 bytes', [{ path: '/leaf', message: 'not a 32-byte hash' }]);
  if (!isSize(size + 1)) throw new InputError('ERR_INPUT', 'tree size would exceed 2^53 - 1');
  let hash = leaf;
  let level = 0;
  let index = size;
  created?.push({ level, index, hash });
  for (let rest = size; isOdd(rest); rest = half(rest)) {
    hash = hashChildren(hashes.pop() as Hash, hash);
    level++;
    index = half(index);
    created?.push({ level, index, hash });
  }
  hashes.push(hash);
}

/** Append one leaf hash; returns the new range and every complete node it created (the level-0 leaf node first, then each merged parent). */
export function appendLeaf(range: CompactRange, leaf: Hash): { range: CompactRange; created: TreeNode[] } {
  assertRange(range);
  const hashes = range.hashes.slice();
  const created: TreeNode[] = [];
  pushLeaf(hashes, range.size, leaf, created);
  return { range: { size: range.size + 1, hashes }, created };
}

/** Streams leaves onto a copy of `range`; memory stays O(log n) however many leaves come. */
export function extendRange(range: CompactRange, leaves: Iterable<Hash>): CompactRange {
  assertRange(range);
  const hashes = range.hashes.slice();
  let size = range.size;
  for (const leaf of leaves) pushLeaf(hashes, size++, leaf);
  return { size, hashes };
}

/** MTH(D[0:size]): fold the subtree roots right to left, as RFC 9162 2.1.1 splits at the largest power of two. */
export function rangeRoot(range: CompactRange): Hash {
  assertRange(range);
  if (range.size === 0) return emptyRoot();
  const { hashes } = range;
  let root = hashes[hashes.length - 1];
  for (let i = hashes.length - 2; i >= 0; i--) root = hashChildren(hashes[i], root);
  return root;
}
