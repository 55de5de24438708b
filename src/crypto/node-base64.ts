// Base64 by Node's Buffer (NODE-ONLY), installed as the core's codec when this module loads
// (canonical/encoding.ts installBase64): every Node entry point imports crypto/node.ts, which
// imports this. Decoded bytes are copied into a Uint8Array of their own, never a view of
// Buffer's shared pool, so they can be transferred or kept like the portable decoder's.
import { installBase64 } from '../canonical/index.js';

export const nodeBase64 = {
  encode: (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
  decode: (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'base64')),
};

installBase64(nodeBase64);
