// RFC 9162 proof verification (2.1.3.2 inclusion, 2.1.4.2 consistency), step by step.
// Bad proofs return false; only rootFromInclusion throws, with a coded VerificationError.
import { bytesEqual } from '../canonical/index.js';
import { VerificationError } from '../errors.js';
import { exactLog2, half, isOdd, isSize } from './merkle-bits.js';
import { hashChildren, isHash, type Hash } from './merkle-hash.js';

function isHashList(proof: unknown): proof is Hash[] {
  return Array.isArray(proof) && proof.every(isHash);
}

function badProof(message: string): VerificationError {
  return new VerificationError('ERR_VERIFY_PROOF', message);
}

/** The root an inclusion proof implies (RFC 9162 2.1.3.2 steps 1-5, without the final root comparison). */
export function rootFromInclusion(leafIndex: number, treeSize: number, leafHash: Hash, proof: Hash[]): Hash {
  if (!isSize(leafIndex) || !isSize(treeSize)) throw badProof('leaf index and tree size must be safe integers');
  if (leafIndex >= treeSize) throw badProof(`leaf ${leafIndex} is outside a tree of size ${treeSize}`); // step 1
  if (!isHash(leafHash)) throw badProof('leaf hash is not 32 bytes');
  if (!isHashList(proof)) throw badProof('proof is not a list of 32-byte hashes');
  let fn = leafIndex; // step 2
  let sn = treeSize - 1;
  let r = leafHash; // step 3
  for (const p of proof) {
    // step 4
    if (sn === 0) throw badProof('proof is too long'); // 4a
    if (isOdd(fn) || fn === sn) {
      r = hashChildren(p, r); // 4b
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn); // 4b: if LSB(fn) is not set, shift until it is or fn is 0
        sn = half(sn);
      }
    } else {
      r = hashChildren(r, p); // 4b otherwise
    }
    fn = half(fn); // 4c
    sn = half(sn);
  }
  if (sn !== 0) throw badProof('proof is too short'); // step 5: sn must be 0
  return r;
}

/** RFC 9162 2.1.3.2; returns false on any mismatch or malformed input, never throws. */
export function verifyInclusion(leafIndex: number, treeSize: number, leafHash: Uint8Array, proof: Uint8Array[], root: Uint8Array): boolean {
  if (!(root instanceof Uint8Array)) return false;
  try {
    return bytesEqual(rootFromInclusion(leafIndex, treeSize, leafHash, proof), root); // step 5: r == root
  } catch (e) {
    if (e instanceof VerificationError) return false;
    throw e;
  }
}

/**
 * RFC 9162 2.1.4.2; false on any mismatch, never throws.
 * Edge rules follow transparency-dev/merkle: size1 == 0 is always rejected; size1 == size2
 * holds iff the proof is empty and the roots are byte-equal (RFC step 1 alone would reject
 * every empty proof). Otherwise both roots must be 32 bytes.
 */
export function verifyConsistency(size1: number, size2: number, root1: Uint8Array, root2: Uint8Array, proof: Uint8Array[]): boolean {
  if (!isSize(size1) || !isSize(size2) || !(root1 instanceof Uint8Array) || !(root2 instanceof Uint8Array)) return false;
  if (!isHashList(proof)) return false;
  if (size1 > size2) return false; // a log never shrinks
  if (size1 === 0) return false; // nothing to prove about the empty tree (upstream rule)
  if (size1 === size2) return proof.length === 0 && bytesEqual(root1, root2);
  if (proof.length === 0) return false; // step 1
  if (!isHash(root1) || !isHash(root2)) return false;
  const path = exactLog2(size1) >= 0 ? [root1, ...proof] : proof; // step 2: prepend first_hash
  let fn = size1 - 1; // step 3
  let sn = size2 - 1;
  while (isOdd(fn)) {
    fn = half(fn); // step 4
    sn = half(sn);
  }
  let fr = path[0]; // step 5
  let sr = path[0];
  for (const c of path.slice(1)) {
    // step 6
    if (sn === 0) return false; // 6a
    if (isOdd(fn) || fn === sn) {
      fr = hashChildren(c, fr); // 6b
      sr = hashChildren(c, sr);
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn); // 6b: if LSB(fn) is not set, shift until it is or fn is 0
        sn = half(sn);
      }
    } else {
      sr = hashChildren(sr, c); // 6b otherwise
    }
    fn = half(fn); // 6c
    sn = half(sn);
  }
  return sn === 0 && bytesEqual(fr, root1) && bytesEqual(sr, root2); // step 7
}
