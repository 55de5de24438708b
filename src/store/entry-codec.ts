// How an entry row's bytes sit on disk (issue 40, docs/storage.md): codec 0 is the signed bytes
// themselves; codec n > 0 is raw DEFLATE of them with dictionary n (entry_dictionaries). Every read
// of a row's bytes goes through decodeEntryRow, which gives back the signed bytes or throws.
import { deflateRawSync } from 'node:zlib';
import { bytesEqual, sameBytes, sha256 } from '../canonical/index.js';
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
// One regular expression for the three, over the bytes read as Latin-1 (one character a byte, so
// a match is exactly the bytes): V8 skips through the text by its literal prefix. (Buffer.indexOf
// stops at every `"`, the commonest byte of JSON: three searches, or one per `"type":"` and a
// compare per candidate, cost log verify 1.5-3 us an entry; this costs about 0.5.)
const INDEXED = /"type":"(?:policy|pin|key)"/;
const isIndexed = (b: Uint8Array): boolean => INDEXED.test(Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1'));

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
 * `copy`: the entry's other copy (the tile archive's), which the caller hashes against its leaf
 * itself (log verify's rebuild, the audit): a row that inflates to exactly its bytes, under the same
 * leaf, is given as that copy without a hash of its own; any other row is hashed as always.
 */
export function decodeEntryRow(seq: number, codec: number, stored: Uint8Array, leaf: Uint8Array | undefined, dictionary: (id: number) => EntryDictionary | undefined, copy?: { bytes: Uint8Array; leaf: Uint8Array }): Uint8Array {
  if (codec === CODEC_RAW) return stored;
  if (!Number.isSafeInteger(codec) || codec < 0) throw inconsistent(seq, `unknown codec ${codec}`);
  const dict = dictionary(codec);
  if (!dict) throw inconsistent(seq, `its dictionary ${codec} is not stored`);
  // 0x00, then the inflated bytes (inflate-raw.ts): the leaf is one hash of it. The inflater's own
  // buffer, reused by its next row: compared or hashed here, copied only to be given back.
  let prefixed: Buffer;
  try {
    prefixed = rawInflater(dict.bytes, MAX_ENTRY_BYTES)(stored);
  } catch (cause) {
    throw inconsistent(seq, `its compressed bytes do not inflate with dictionary ${codec} (${(cause as Error).message})`);
  }
  let bytes = new Uint8Array(prefixed.buffer, prefixed.byteOffset + 1, prefixed.byteLength - 1);
  if (leaf && copy && bytesEqual(leaf, copy.leaf) && sameBytes(bytes, copy.bytes)) bytes = copy.bytes;
  else if (!leaf || !bytesEqual(sha256(prefixed), leaf)) throw inconsistent(seq, `its bytes, inflated with dictionary ${codec}, do not hash to its leaf`);
  else bytes = bytes.slice();
  if (isIndexed(bytes)) throw inconsistent(seq, 'a policy, pin or key entry is stored compressed, out of sight of its index');
  return bytes;
}
