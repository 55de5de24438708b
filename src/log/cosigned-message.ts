// c2sp.org/tlog-cosignature's timestamped ML-DSA-44 signature (type 0x06) over a checkpoint: the
// cosigned_message struct, and the signature line body `timestamp || signature`. One construction
// for the log's own ML-DSA-44 line (tlog-checkpoint: logs SHOULD sign with it) and witnesses'. Portable.
import { concatBytes, utf8 } from '../canonical/index.js';
import { InputError } from '../errors.js';
import { parseCheckpoint } from './checkpoint.js';

/** "It MUST NOT exceed 2^63 - 1". */
const MAX_TIMESTAMP = (1n << 63n) - 1n;
/** uint8 label[12] = "subtree/v1\n\0" */
const SUBTREE_LABEL = concatBytes(utf8.encode('subtree/v1\n'), Uint8Array.of(0));

export function u64(n: number | bigint): Uint8Array {
  const v = BigInt(n);
  if (v < 0n || v > MAX_TIMESTAMP) throw new InputError('ERR_INPUT', 'a cosignature timestamp or size must be within 0 .. 2^63-1');
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, v);
  return out;
}

/** opaque x<1..2^8-1>: one length byte, then the bytes. */
function opaque8(s: string, what: string): Uint8Array {
  const b = utf8.encode(s);
  if (b.length < 1 || b.length > 255) throw new InputError('ERR_INPUT', `${what} must be 1..255 bytes for an ML-DSA-44 cosignature`);
  return concatBytes(Uint8Array.of(b.length), b);
}

/**
 * "ML-DSA-44 signed message": the cosigned_message struct for a whole checkpoint (start 0,
 * end = size): label, the signer's key name, the timestamp, the origin, 0, size, root hash.
 */
export function mldsa44CosignedMessage(keyName: string, timestamp: number, checkpointText: string): Uint8Array {
  const cp = parseCheckpoint(checkpointText);
  return concatBytes(SUBTREE_LABEL, opaque8(keyName, 'key name'), u64(timestamp), opaque8(cp.origin, 'log origin'), u64(0), u64(cp.size), cp.root);
}

/** Splits a 0x06 line body into its timestamp and signature; undefined when it cannot be one. */
export function splitTimestamped(body: Uint8Array, signatureBytes: number): { timestamp: number; signature: Uint8Array } | undefined {
  if (body.length !== 8 + signatureBytes) return undefined;
  const ts = new DataView(body.buffer, body.byteOffset, 8).getBigUint64(0);
  if (ts > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return { timestamp: Number(ts), signature: body.subarray(8) };
}
