// Byte comparison by Node's Buffer (NODE-ONLY), installed as the core's sameBytes when this module
// loads (canonical/encoding.ts installSameBytes): a native memcmp for public data (not constant-time).
import { installSameBytes } from '../canonical/index.js';

const view = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

export function nodeSameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && view(a).equals(view(b));
}

installSameBytes(nodeSameBytes);
