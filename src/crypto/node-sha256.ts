// SHA-256 by node:crypto (NODE-ONLY), installed as the core's SHA-256 when this module loads
// (canonical/digest.ts installSha256): every Node entry point imports crypto/node.ts, which imports
// this. The digest is copied into a Uint8Array of its own (never a view of a shared pool), so it
// can be transferred or kept like noble's.
import { createHash } from 'node:crypto';
import { installSha256 } from '../canonical/index.js';

export function nodeSha256(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(bytes).digest());
}

installSha256(nodeSha256);
