// How an entry row's bytes sit on disk (issue 40, docs/storage.md): codec 0 is the signed bytes
// themselves; codec n > 0 is raw DEFLATE of them with dictionary n (entry_dictionaries). Every read
// of a row's bytes goes through decodeEntryRow, which gives back the signed bytes or throws.
import { deflateRawSync } from 'node:zlib';
import { bytesEqual, sha256 } from '../canonical/index.js';
import { StoreError } from '../errors.js';
import { rawInflater } from './inflate-raw.js';

export const CODEC_RAW = 0;

/** A dictionary as the reader holds it: its bytes were checked against the digest fixed at write. */
export interface EntryDictionary {
  id: number;
  bytes: Uint8Array;
}

/** The stored form of an entry: the codec and what goes in the bytes column. */
export interface EncodedRow {
  codec: number;
  stored: Uint8Array;
}

// The three partial indexes over entries (migrations 0003-0005) test the stored bytes for these
// substrings: a row that holds any of them stays raw, so the indexes see every entry they would
// have seen uncompressed, and a compressed row that inflates to one is refused (it hides from them).
// One pass for the three: every `"type":"policy"` (pin, key) begins with a `"type":"`, and what
// follows each of those is compared (a decision holds a few, its interceptor results' types).
const TYPE = Buffer.from('"type":"');
const INDEXED = ['policy"', 'pin"', 'key"'].map((s) => Buffer.from(s));
const isIndexed = (b: Uint8Array): boolean => {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  for (let i = buf.indexOf(TYPE); i !== -1; i = buf.indexOf(TYPE, i + 1)) {
    const at = i + TYPE.length;
    for (const s of INDEXED) if (at + s.length <= buf.length && buf.compare(s, 0, s.length, at, at + s.length) === 0) return true;
  }
  return false;
};

/** Whether an entry may be stored compressed at all (policy, pin and key entries may not). */
export const mayCompress = (bytes: Uint8Array): boolean => !isIndexed(bytes);

// An entry is at most a few KiB; a stored row that inflates past this is not one (a zip bomb).
const MAX_ENTRY_BYTES = 4 * 1024 * 1024;

/** Encode an entry's signed bytes: compressed with `dict` when that is allowed and smaller, else raw. */
export function encodeEntryRow(bytes: Uint8Array, dict: EntryDictionary | undefined): EncodedRow {
  if (!dict || !mayCompress(bytes)) return { codec: CODEC_RAW, stored: bytes };
  const z = deflateRawSync(bytes, { dictionary: dict.bytes, level: 6 });
  return z.byteLength < bytes.byteLength ? { codec: dict.id, stored: new Uint8Array(z.buffer, z.byteOffset, z.byteLength) } : { codec: CODEC_RAW, stored: bytes };
}

const inconsistent = (seq: number, why: string) =>
  new StoreError('ERR_STORE_INCONSISTENT', `entry ${seq}: ${why}: the log file was edited or damaged (\`vouch log verify\` says more; restore it from a backup)`);

/**
 * The signed bytes of a stored row. A compressed row must inflate, with the dictionary its row
 * names, to bytes whose leaf hash is the row's leaf: otherwise ERR_STORE_INCONSISTENT, never other
 * bytes. Raw rows are the bytes as stored (their leaf is checked where it always was: the tree).
 */
export function decodeEntryRow(seq: number, codec: number, stored: Uint8Array, leaf: Uint8Array | undefined, dictionary: (id: number) => EntryDictionary | undefined): Uint8Array {
  if (codec === CODEC_RAW) return stored;
  if (!Number.isSafeInteger(codec) || codec < 0) throw inconsistent(seq, `unknown codec ${codec}`);
  const dict = dictionary(codec);
  if (!dict) throw inconsistent(seq, `its dictionary ${codec} is not stored`);
  let prefixed: Buffer; // 0x00, then the inflated bytes (inflate-raw.ts): the leaf is one hash of it
  try {
    prefixed = rawInflater(dict.bytes, MAX_ENTRY_BYTES)(stored);
  } catch (cause) {
    throw inconsistent(seq, `its compressed bytes do not inflate with dictionary ${codec} (${(cause as Error).message})`);
  }
  const bytes = new Uint8Array(prefixed.buffer, prefixed.byteOffset + 1, prefixed.byteLength - 1);
  if (!leaf || !bytesEqual(sha256(prefixed), leaf)) throw inconsistent(seq, `its bytes, inflated with dictionary ${codec}, do not hash to its leaf`);
  if (isIndexed(bytes)) throw inconsistent(seq, 'a policy, pin or key entry is stored compressed, out of sight of its index');
  return bytes;
}
