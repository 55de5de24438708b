// Issue a COSE receipt (RFC 9942) for one entry: a COSE_Sign1 by the log's key over the root of a
// checkpoint that same key already signed. The key signs nothing new about the log: a root it
// never put in a checkpoint is refused, so the COSE signature adds a format, never a claim.
import { bytesEqual, toHex, utf8 } from '../canonical/index.js';
import { createVerifier, noteKeyId, type SignatureAlg } from '../crypto/index.js';
import { CryptoError } from '../errors.js';
import { parseCheckpoint, parseNote } from '../log/index.js';
import { COSE_ALG, encodeCoseReceipt, encodeProtected, sigStructure, type CoseAlgName } from './cose-format.js';

/** A log key able to sign raw bytes (ML-DSA with the empty context, as RFC 9964 specifies). */
export interface CoseSigner {
  /** ML-DSA-65 or Ed25519: the keys that sign the checkpoint note's own text (ML-DSA-44 signs a cosignature message, not the note). */
  alg: CoseAlgName;
  publicKey: Uint8Array;
  sign(message: Uint8Array): Promise<Uint8Array>;
}

export interface CoseReceiptInput {
  /** The exact entry bytes (carried under `io.vouch/entry`). */
  entry: Uint8Array;
  seq: number;
  /** RFC 9162 inclusion path of `seq` in the checkpoint's tree, leaf to root. */
  proof: Uint8Array[];
  /** The signed checkpoint note whose root the receipt signs. */
  checkpoint: string;
  /** Key names the checkpoint may be signed under: the origin, and the data directory's key name for logs made before issue 18. */
  keyNames: string[];
}

/** The COSE kid of a log key: its 4-byte C2SP key id under the log's origin (what opens its checkpoint signature line). */
export function coseKid(origin: string, alg: SignatureAlg, publicKey: Uint8Array): Uint8Array {
  return noteKeyId(origin, alg, publicKey);
}

/**
 * The part of a receipt that depends only on the checkpoint and the key: the protected header and
 * the signature over (header, root). Every entry under one checkpoint shares it, so a service
 * signs once per checkpoint and key (see coseSignatureCache), not once per request.
 */
export async function signCoseRoot(checkpoint: string, keyNames: string[], signer: CoseSigner): Promise<{ protectedBytes: Uint8Array; signature: Uint8Array }> {
  const note = parseNote(checkpoint);
  const cp = parseCheckpoint(note.text);
  // Fail closed: this key must have signed this very checkpoint, or it signs nothing.
  const verifier = createVerifier(signer.alg, signer.publicKey);
  const msg = utf8.encode(note.text);
  const signedIt = note.signatures.some((s) => keyNames.some((n) => bytesEqual(s.keyId, noteKeyId(n, signer.alg, signer.publicKey)) && s.name === n && verifier.verify(msg, s.signature)));
  if (!signedIt) throw new CryptoError('ERR_SIGN_FAILED', `the ${signer.alg} key did not sign checkpoint ${cp.origin} size ${cp.size}: refusing to sign its root in a COSE receipt (the key was rotated since; fetch the receipt again once a checkpoint by the current key exists)`);
  const protectedBytes = encodeProtected(COSE_ALG[signer.alg], coseKid(cp.origin, signer.alg, signer.publicKey), cp.origin, cp.size);
  // Domain separation from notes, which sign with the same key and empty context: a Sig_structure
  // starts 0x84 0x6a ("Signature1"), which no note (UTF-8 text, no control bytes) can begin with.
  const signature = await signer.sign(sigStructure(protectedBytes, cp.root));
  return { protectedBytes, signature };
}

/** A whole COSE receipt for one entry. */
export async function buildCoseReceipt(input: CoseReceiptInput, signer: CoseSigner, signed?: { protectedBytes: Uint8Array; signature: Uint8Array }): Promise<Uint8Array> {
  const cp = parseCheckpoint(parseNote(input.checkpoint).text);
  const { protectedBytes, signature } = signed ?? (await signCoseRoot(input.checkpoint, input.keyNames, signer));
  return encodeCoseReceipt({ protectedBytes, treeSize: cp.size, leafIndex: input.seq, path: input.proof, entry: input.entry, signature });
}

/**
 * Per-process memo of signCoseRoot by (key, checkpoint): an auditor fetching many receipts costs
 * one ML-DSA signature per checkpoint, and repeated requests cannot make the service sign at will.
 */
export function coseSignatureCache(max = 64): (checkpoint: string, keyNames: string[], signer: CoseSigner) => Promise<{ protectedBytes: Uint8Array; signature: Uint8Array }> {
  const memo = new Map<string, Promise<{ protectedBytes: Uint8Array; signature: Uint8Array }>>();
  return (checkpoint, keyNames, signer) => {
    const key = `${signer.alg}\n${toHex(signer.publicKey)}\n${keyNames.join(' ')}\n${checkpoint}`;
    let p = memo.get(key);
    if (!p) {
      p = signCoseRoot(checkpoint, keyNames, signer);
      p.catch(() => memo.delete(key));
      memo.set(key, p);
      if (memo.size > max) memo.delete(memo.keys().next().value!);
    }
    return p;
  };
}
