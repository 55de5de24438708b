// Strict UTF-8 decoding by Node's Buffer (NODE-ONLY), installed as the core's decoder when this
// module loads (canonical/encoding.ts installUtf8): validate natively (buffer.isUtf8), then slice.
import { isUtf8 } from 'node:buffer';
import { installUtf8 } from '../canonical/index.js';

export function nodeUtf8Decode(b: Uint8Array): string | undefined {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  return isUtf8(buf) ? buf.toString('utf8') : undefined;
}

installUtf8(nodeUtf8Decode);
