// vouch's RFC 9162 Merkle tree: hashing, the O(log n) compact-range appender, proofs from
// stored nodes, and proof verification. One import point for the log module and the store.
export { EMPTY_ROOT, hashChildren, hashLeaf, type Hash } from './merkle-hash.js';
export { appendLeaf, emptyRange, extendRange, rangeRoot, type CompactRange, type TreeNode } from './merkle-range.js';
export { cachedReader, compactRangeAt, consistencyProof, inclusionProof, rootAt, subtreeHash, type NodeReader } from './merkle-proof.js';
export { rootFromInclusion, verifyConsistency, verifyInclusion } from './merkle-verify.js';
