// A signed checkpoint note, read for a person: origin, size and root, and each signature line
// with its key name, key id and algorithm (told by its length), a cosignature with the time it
// carries. Reading only: what verifies is the checklist's business (src/receipt).
import { toHex } from '../../src/canonical/index.js';
import { ED25519_SIGNATURE_BYTES, MLDSA65_SIGNATURE_BYTES } from '../../src/crypto/index.js';
import { parseCheckpoint, parseNote } from '../../src/log/index.js';

export interface NoteLine {
  name: string;
  keyId: string;
  alg: string;
  /**
   * The log's own signature (ML-DSA-65, Ed25519); a witness cosignature (tlog-cosignature:
   * timestamp, then the signature); or `log-mldsa44`, the log's own ML-DSA-44 signature: one of the
   * log's keys, written in the timestamped tlog-cosignature (0x06) layout under the log's origin
   * (c2sp.org/tlog-checkpoint), so it is a log signature, not a witness's.
   */
  kind: 'log' | 'witness' | 'log-mldsa44';
  /** A timestamped line's time (a cosignature, the log's ML-DSA-44 line), ISO 8601. */
  time?: string;
}

export interface ReadNote {
  origin: string;
  size: number;
  root: string;
  lines: NoteLine[];
}

/** Cosignature lengths after the key id: 8-byte timestamp + Ed25519 or ML-DSA-44 signature. */
const COSIGNATURE: Record<number, string> = { [8 + 64]: 'Ed25519', [8 + 2420]: 'ML-DSA-44' };
const LOG_SIGNATURE: Record<number, string> = { [ED25519_SIGNATURE_BYTES]: 'Ed25519', [MLDSA65_SIGNATURE_BYTES]: 'ML-DSA-65' };

export function readNote(note: string): ReadNote {
  const n = parseNote(note);
  const cp = parseCheckpoint(n.text);
  const lines = n.signatures.map((s): NoteLine => {
    const keyId = toHex(s.keyId);
    const cosig = COSIGNATURE[s.signature.length];
    if (cosig) {
      const secs = new DataView(s.signature.buffer, s.signature.byteOffset, 8).getBigUint64(0);
      const ms = Number(secs) * 1000;
      return { name: s.name, keyId, alg: cosig, kind: s.name === cp.origin ? 'log-mldsa44' : 'witness', ...(Number.isSafeInteger(ms) && ms < 864e13 && { time: new Date(ms).toISOString() }) };
    }
    return { name: s.name, keyId, alg: LOG_SIGNATURE[s.signature.length] ?? `unknown (${s.signature.length} bytes)`, kind: 'log' };
  });
  return { origin: cp.origin, size: cp.size, root: toHex(cp.root), lines };
}

/** What a line is, for a person. */
export function lineWhat(l: NoteLine): string {
  const at = l.time ? ` at ${l.time}` : '';
  if (l.kind === 'log') return "the log's signature";
  if (l.kind === 'log-mldsa44') return `ML-DSA-44 (log): the log's own post-quantum signature, in the c2sp tlog-cosignature 0x06 format${l.time ? `, signed${at}` : ''}`;
  return `witness cosignature${at}`;
}
