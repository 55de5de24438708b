// RFC 9162 section 2.1.1 hashing with SHA-256: domain-separated leaf and interior-node hashes,
// so a leaf can never be passed off as an interior node (second-preimage defence).
import { concatBytes, sha256 } from '../canonical/index.js';

/** A SHA-256 Merkle hash: 32 bytes. */
export type Hash = Uint8Array;

export const HASH_SIZE = 32;

const LEAF_PREFIX = Uint8Array.of(0x00);
const NODE_PREFIX = Uint8Array.of(0x01);

/** RFC 9162 2.1.1: MTH({d(0)}) = HASH(0x00 || d(0)). */
export function hashLeaf(data: Uint8Array): Hash {
  return sha256(concatBytes(LEAF_PREFIX, data));
}

/** RFC 9162 2.1.1: HASH(0x01 || MTH(D[0:k]) || MTH(D[k:n])). Children are not length-checked. */
export function hashChildren(left: Hash, right: Hash): Hash {
  if (left.length !== HASH_SIZE || right.length !== HASH_SIZE) return sha256(concatBytes(NODE_PREFIX, left, right));
  // One buffer for every node hash (sha256 is synchronous and returns a copy): no concat per node.
  NODE_INPUT.set(left, 1);
  NODE_INPUT.set(right, 1 + HASH_SIZE);
  return sha256(NODE_INPUT);
}

const NODE_INPUT = new Uint8Array(1 + 2 * HASH_SIZE);
NODE_INPUT[0] = 0x01;

/** RFC 9162 2.1.1: the hash of an empty list is the hash of an empty string. */
export const EMPTY_ROOT: Hash = sha256(new Uint8Array(0));

/** A fresh copy of EMPTY_ROOT, so callers that mutate a returned root cannot corrupt the constant. */
export function emptyRoot(): Hash {
  return EMPTY_ROOT.slice();
}

export function isHash(value: unknown): value is Hash {
  return value instanceof Uint8Array && value.length === HASH_SIZE;
}
