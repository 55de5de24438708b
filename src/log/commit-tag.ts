// Commit tags: what lets start-up tell the entries this service committed but had not signed yet
// (durable before signed, appender.ts) from entries someone wrote into the file after the newest
// checkpoint. Each group commit stores, in the same transaction, HMAC-SHA256 over (origin, size,
// root) under a key derived from the log's ML-DSA-65 signing seed, which a file-level attacker
// cannot read. At open, an unsigned tail is signed only if the stored tree reproduces the tagged
// root at the stored size (open-check.ts); otherwise nothing is signed. Only the newest tag is
// kept: older ones are covered by checkpoints or superseded. Tags are never shown to anyone.
import { concatBytes, sha256, toHex, utf8 } from '../canonical/index.js';
import type { Hash } from './merkle-hash.js';

/** A tag over the tree the store held after a commit. */
export interface CommitTag {
  size: number;
  tag: Uint8Array;
}

const BLOCK = 64;

/** RFC 2104 HMAC with SHA-256 (keys of at most one block, as these are). */
export function hmacSha256(key: Uint8Array, msg: Uint8Array): Uint8Array {
  if (key.length > BLOCK) throw new RangeError('HMAC key longer than one block');
  const ipad = new Uint8Array(BLOCK).fill(0x36);
  const opad = new Uint8Array(BLOCK).fill(0x5c);
  for (let i = 0; i < key.length; i++) {
    ipad[i] ^= key[i];
    opad[i] ^= key[i];
  }
  return sha256(concatBytes(opad, sha256(concatBytes(ipad, msg))));
}

/** The commit key of a signing seed: HMAC-SHA256(seed, label), so the tag key is not the seed. */
export function commitKeyOf(mldsaSeed: Uint8Array): Uint8Array {
  return hmacSha256(mldsaSeed, utf8.encode('vouch commit tag key v1'));
}

function tagMessage(origin: string, size: number, root: Hash): Uint8Array {
  return utf8.encode(`vouch commit tag v1\n${origin}\n${size}\n${toHex(root)}\n`);
}

export function commitTag(key: Uint8Array, origin: string, size: number, root: Hash): CommitTag {
  return { size, tag: hmacSha256(key, tagMessage(origin, size, root)) };
}

/** Constant-time check of a stored tag against the tree it should name. */
export function commitTagValid(key: Uint8Array, origin: string, t: CommitTag, root: Hash): boolean {
  const want = hmacSha256(key, tagMessage(origin, t.size, root));
  if (!(t.tag instanceof Uint8Array) || t.tag.length !== want.length) return false;
  let d = 0;
  for (let i = 0; i < want.length; i++) d |= want[i] ^ t.tag[i];
  return d === 0;
}
