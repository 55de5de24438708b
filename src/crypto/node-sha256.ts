// SHA-256 by node:crypto (NODE-ONLY), installed as the core's SHA-256 when this module loads
// (canonical/digest.ts installSha256): every Node entry point imports crypto/node.ts, which imports
// this. The digest is copied into a Uint8Array of its own (never a view of a shared pool), so it
// can be transferred or kept like noble's. Where Node has the one-shot `crypto.hash` (20.12+),
// digests take it: no Hash object per call (measured about 1.6 against 3.3 µs for a 2 KB entry's
// hex digest), and `digestBytes` gets its hex straight from it.
import * as crypto from 'node:crypto';
import { installSha256 } from '../canonical/index.js';

type OneShot = (algorithm: string, data: Uint8Array, encoding: 'hex' | 'buffer') => string | Buffer;
const oneShot = (crypto as unknown as { hash?: OneShot }).hash;

export function nodeSha256(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(oneShot ? (oneShot('sha256', bytes, 'buffer') as Buffer) : crypto.createHash('sha256').update(bytes).digest());
}

/** Lowercase hex of the SHA-256 of `bytes`. */
export function nodeSha256Hex(bytes: Uint8Array): string {
  return oneShot ? (oneShot('sha256', bytes, 'hex') as string) : crypto.createHash('sha256').update(bytes).digest('hex');
}

installSha256(nodeSha256, nodeSha256Hex);
