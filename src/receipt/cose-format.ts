// COSE Receipts (RFC 9942) for vouch entries: the byte format only. A receipt is a tagged
// COSE_Sign1 (RFC 9052) whose detached payload is the RFC 9162 root of a signed checkpoint and
// whose unprotected header carries the inclusion proof. No signing, no verification: portable.
import { decode, encode } from 'cborg';
import { InputError } from '../errors.js';

/** COSE header labels (IANA "COSE Header Parameters"; RFC 9052, RFC 9597, RFC 9942). */
export const COSE_LABEL = { alg: 1, kid: 4, cwtClaims: 15, vds: 395, vdp: 396 } as const;
/** RFC 9942 section 5.2: the inclusion-proof label inside vdp. */
export const VDP_INCLUSION = -1;
/** RFC 9942 section 5.1: the RFC9162_SHA256 verifiable data structure. */
export const VDS_RFC9162_SHA256 = 1;
/** CWT claim `iss` (RFC 8392): the issuer, here the log's origin. */
export const CWT_ISS = 1;
/**
 * COSE algorithm values: ML-DSA-65 is -49 (RFC 9964, ML-DSA for JOSE and COSE; -48 is ML-DSA-44,
 * -50 ML-DSA-87). Ed25519 uses EdDSA (-8, RFC 9053) rather than the fully specified Ed25519 (-19,
 * RFC 9864) because the COSE libraries in use today (cose-ts, pycose, go-cose) read -8.
 */
export const COSE_ALG = { 'ML-DSA-65': -49, Ed25519: -8 } as const;
export type CoseAlgName = keyof typeof COSE_ALG;
/**
 * Where the entry bytes ride: an unprotected text label (RFC 9052 section 3 allows tstr labels).
 * Unsigned on purpose: the inclusion proof binds them (their leaf hash must lead to the signed
 * root), and a verifier that ignores the label can be handed the entry bytes some other way.
 */
export const ENTRY_LABEL = 'io.vouch/entry';
/**
 * The tree size, signed. RFC 9942 signs only the root and leaves tree_size in the unprotected
 * proof, and RFC 9162's algorithm gives one root for several sizes (index 1 of size 3 and of size
 * 4 share a path shape): an unsigned size could be moved, and with it a key-window check. vouch
 * signs it in the protected header (an extra parameter RFC 9942 section 5.2 allows; tools that do
 * not know it ignore it), and the verifier requires the proof's tree_size to equal it.
 */
export const TREE_SIZE_LABEL = 'io.vouch/tree-size';
/** COSE_Sign1 tag 18 (RFC 9052 section 4.2) as its one-byte CBOR head. */
const TAG_SIGN1 = 0xd2;
export const COSE_MEDIA_TYPE = 'application/cose; cose-type="cose-sign1"';

const MAX_RECEIPT_BYTES = 5 * 1024 * 1024;
const MAX_PATH = 63;

export interface CoseReceipt {
  /** The exact protected header bytes (what the signature covers). */
  protectedBytes: Uint8Array;
  alg: number;
  kid: Uint8Array;
  vds: number;
  issuer: string;
  /** The proof's tree_size (unprotected). */
  treeSize: number;
  /** The tree size the signature covers (protected, TREE_SIZE_LABEL). */
  signedTreeSize: number;
  leafIndex: number;
  path: Uint8Array[];
  entry?: Uint8Array;
  signature: Uint8Array;
}

/** The protected header: alg, kid, vds, the issuer in CWT claims (RFC 9597) and the signed tree size; deterministic CBOR. */
export function encodeProtected(alg: number, kid: Uint8Array, issuer: string, treeSize: number): Uint8Array {
  return encode(new Map<number | string, unknown>([[COSE_LABEL.alg, alg], [COSE_LABEL.kid, kid], [COSE_LABEL.cwtClaims, new Map([[CWT_ISS, issuer]])], [COSE_LABEL.vds, VDS_RFC9162_SHA256], [TREE_SIZE_LABEL, treeSize]]));
}

/** RFC 9052 section 4.4 Sig_structure for COSE_Sign1, the detached payload being the tree root. */
export function sigStructure(protectedBytes: Uint8Array, root: Uint8Array): Uint8Array {
  return encode(['Signature1', protectedBytes, new Uint8Array(0), root]);
}

/** RFC 9942 section 5.2: bstr .cbor [tree_size, leaf_index, inclusion_path]. */
export function encodeInclusionProof(treeSize: number, leafIndex: number, path: Uint8Array[]): Uint8Array {
  return encode([treeSize, leafIndex, path]);
}

export function encodeCoseReceipt(a: { protectedBytes: Uint8Array; treeSize: number; leafIndex: number; path: Uint8Array[]; entry?: Uint8Array; signature: Uint8Array }): Uint8Array {
  const unprotected = new Map<number | string, unknown>([[COSE_LABEL.vdp, new Map([[VDP_INCLUSION, [encodeInclusionProof(a.treeSize, a.leafIndex, a.path)]]])]]);
  if (a.entry) unprotected.set(ENTRY_LABEL, a.entry);
  const body = encode([a.protectedBytes, unprotected, null, a.signature]);
  const out = new Uint8Array(body.length + 1);
  out[0] = TAG_SIGN1;
  out.set(body, 1);
  return out;
}

/** Strict CBOR (RFC 8949 preferred integer sizes, no indefinite lengths, no duplicate keys, no tags). */
const STRICT = { strict: true, useMaps: true, rejectDuplicateMapKeys: true, allowIndefinite: false, allowUndefined: false, allowBigInt: false } as const;

function strictDecode(bytes: Uint8Array, what: string): unknown {
  try {
    return decode(bytes, STRICT);
  } catch (e) {
    throw new InputError('ERR_INPUT', `malformed COSE receipt: ${what} is not strict CBOR (${(e as Error).message})`);
  }
}

/** True when the bytes start like a tagged COSE_Sign1 (how `vouch verify` tells a .cose file). */
export function looksLikeCoseSign1(bytes: Uint8Array): boolean {
  return bytes.length > 1 && bytes[0] === TAG_SIGN1 && bytes[1] === 0x84;
}

/** Parse an untrusted COSE receipt; every bad field is listed. Verifies nothing. */
export function parseCoseReceipt(bytes: Uint8Array): CoseReceipt {
  const fail = (path: string, message: string): never => {
    throw new InputError('ERR_INPUT', `malformed COSE receipt: ${path} ${message}`, [{ path, message }]);
  };
  if (!(bytes instanceof Uint8Array) || bytes.length > MAX_RECEIPT_BYTES) fail('', `must be at most ${MAX_RECEIPT_BYTES} bytes`);
  if (!looksLikeCoseSign1(bytes)) fail('', 'must be a tagged COSE_Sign1 (CBOR tag 18 around a 4-element array), RFC 9942 section 2');
  const msg = strictDecode(bytes.subarray(1), 'the COSE_Sign1') as unknown[];
  const [protectedBytes, unprotected, payload, signature] = msg;
  if (!(protectedBytes instanceof Uint8Array)) fail('/0', 'protected header must be a byte string');
  if (!(unprotected instanceof Map)) fail('/1', 'unprotected header must be a map');
  if (payload !== null) fail('/2', 'payload must be detached (nil): the verifier recomputes the root from the proof (RFC 9942 section 3)');
  if (!(signature instanceof Uint8Array)) fail('/3', 'signature must be a byte string');
  const prot = strictDecode(protectedBytes as Uint8Array, 'the protected header');
  if (!(prot instanceof Map)) return fail('/0', 'protected header must encode a map');
  const alg = prot.get(COSE_LABEL.alg);
  const kid = prot.get(COSE_LABEL.kid);
  const vds = prot.get(COSE_LABEL.vds);
  const claims = prot.get(COSE_LABEL.cwtClaims);
  if (!Number.isInteger(alg)) fail('/0/1', 'alg must be an integer');
  if (!(kid instanceof Uint8Array) || kid.length === 0 || kid.length > 64) fail('/0/4', 'kid must be a byte string');
  if (!Number.isInteger(vds)) fail('/0/395', 'vds must be an integer (RFC 9942)');
  const issuer = claims instanceof Map ? claims.get(CWT_ISS) : undefined;
  if (typeof issuer !== 'string' || issuer.length === 0 || issuer.length > 1024) fail('/0/15/1', 'CWT claims must carry the issuer (iss): the log origin');
  const signedTreeSize = prot.get(TREE_SIZE_LABEL);
  if (!Number.isSafeInteger(signedTreeSize) || (signedTreeSize as number) < 1) fail(`/0/${TREE_SIZE_LABEL}`, 'the signed tree size must be a positive integer');
  for (const k of prot.keys()) if (![COSE_LABEL.alg, COSE_LABEL.kid, COSE_LABEL.vds, COSE_LABEL.cwtClaims, TREE_SIZE_LABEL].includes(k as never)) fail(`/0/${String(k)}`, 'unknown protected header parameter (a receipt vouch cannot read in full is refused)');
  const vdp = (unprotected as Map<unknown, unknown>).get(COSE_LABEL.vdp);
  if (!(vdp instanceof Map)) return fail('/1/396', 'vdp must be a map (RFC 9942)');
  const proofs = vdp.get(VDP_INCLUSION);
  if (!Array.isArray(proofs) || proofs.length !== 1 || !(proofs[0] instanceof Uint8Array)) return fail('/1/396/-1', 'must hold exactly one inclusion proof (bstr .cbor [tree_size, leaf_index, inclusion_path])');
  const proof = strictDecode(proofs[0], 'the inclusion proof');
  if (!Array.isArray(proof) || proof.length !== 3) return fail('/1/396/-1/0', 'must be [tree_size, leaf_index, inclusion_path]');
  const [treeSize, leafIndex, path] = proof as [unknown, unknown, unknown];
  if (!Number.isSafeInteger(treeSize) || (treeSize as number) < 1) fail('/1/396/-1/0/0', 'tree_size must be a positive integer');
  if (!Number.isSafeInteger(leafIndex) || (leafIndex as number) < 0) fail('/1/396/-1/0/1', 'leaf_index must be a non-negative integer');
  if (!Array.isArray(path) || path.length > MAX_PATH) return fail('/1/396/-1/0/2', `inclusion_path must be an array of at most ${MAX_PATH} hashes`);
  path.forEach((h, i) => (h instanceof Uint8Array && h.length === 32) || fail(`/1/396/-1/0/2/${i}`, 'must be a 32-byte hash'));
  const entry = (unprotected as Map<unknown, unknown>).get(ENTRY_LABEL);
  if (entry !== undefined && !(entry instanceof Uint8Array)) fail(`/1/${ENTRY_LABEL}`, 'must be the entry bytes');
  return { protectedBytes: protectedBytes as Uint8Array, alg: alg as number, kid: kid as Uint8Array, vds: vds as number, issuer: issuer as string, treeSize: treeSize as number, signedTreeSize: signedTreeSize as number, leafIndex: leafIndex as number, path: path as Uint8Array[], entry: entry as Uint8Array | undefined, signature: signature as Uint8Array };
}
