// C2SP tlog-tiles from stored nodes: tile paths (parse and format), hash tiles and entry bundles.
// A tile is a run of stored complete nodes at tree level 8*L, so it costs at most 256 node reads
// however large the log; nothing here hashes leaves or walks the tree.
import { InputError, VouchError } from '../errors.js';
import { HASH_SIZE, type Hash } from './merkle-hash.js';

/** Tile height: 2^8 = 256 hashes per full tile (tlog-tiles fixes it). */
export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 1 << TILE_HEIGHT;
/** An entry bundle's length prefix is a big-endian uint16. */
export const MAX_BUNDLE_ENTRY = 0xffff;
/** The most bytes an archived tile file can hold: a full entry bundle, TILE_WIDTH entries of at most MAX_BUNDLE_ENTRY bytes, each framed by 2. */
export const MAX_ARCHIVE_TILE_BYTES = TILE_WIDTH * (2 + MAX_BUNDLE_ENTRY);
/** An archived checkpoint is a signed note (note.ts MAX_NOTE_LENGTH characters, at most 4 bytes each in UTF-8). */
export const MAX_ARCHIVE_CHECKPOINT_BYTES = 4 << 20;

/** A hash tile (`level` >= 0) or an entry bundle (`level` = 'entries'); `width` 1..256 (256 = full). */
export interface TileRef {
  level: number | 'entries';
  index: number;
  width: number;
}

/** What tiles read: stored nodes of one tree level, lo..hi inclusive, in index order (all present). */
export interface TileNodeSource {
  nodes(level: number, lo: number, hi: number): Promise<Hash[]>;
}

const LEVEL_RE = /^(0|[1-9][0-9]?)$/;
const WIDTH_RE = /^[1-9][0-9]{0,2}$/;

function badPath(path: string, why: string): never {
  throw new InputError('ERR_INPUT', `not a tlog-tiles path: ${why}`, [{ path: '/path', message: `${JSON.stringify(path.slice(0, 80))}: ${why}` }]);
}

/** `<N>` as tlog-tiles writes it: 3-digit groups, every group but the last prefixed with `x`. */
export function formatTileIndex(index: number): string {
  if (!Number.isSafeInteger(index) || index < 0) throw new InputError('ERR_INPUT', `bad tile index ${index}`);
  const groups: string[] = [];
  let n = index;
  do {
    groups.unshift(String(n % 1000).padStart(3, '0'));
    n = Math.floor(n / 1000);
  } while (n > 0);
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join('/');
}

/** The path under the log prefix, e.g. `tile/0/x001/234.p/5` or `tile/entries/000`. */
export function formatTilePath(t: TileRef): string {
  const suffix = t.width < TILE_WIDTH ? `.p/${t.width}` : '';
  return `tile/${t.level}/${formatTileIndex(t.index)}${suffix}`;
}

/**
 * Parses the part after `tile/`. Strict: only the canonical encoding is accepted (no extra
 * leading groups like `x000/`, no leading zeroes in L or W), so each resource has one URL.
 */
export function parseTilePath(rest: string): TileRef {
  const parts = rest.split('/');
  const head = parts.shift() ?? '';
  let level: number | 'entries';
  if (head === 'entries') level = 'entries';
  else if (LEVEL_RE.test(head) && Number(head) <= 63) level = Number(head);
  else badPath(rest, 'level must be 0..63 without leading zeroes, or "entries"');
  let width = TILE_WIDTH;
  const last = parts.length - 1;
  if (last >= 1 && parts[last - 1].endsWith('.p')) {
    if (!WIDTH_RE.test(parts[last]) || Number(parts[last]) > 255) badPath(rest, 'partial width must be 1..255 without leading zeroes');
    width = Number(parts[last]);
    parts.pop();
    parts[parts.length - 1] = parts[parts.length - 1].slice(0, -2);
  }
  if (parts.length === 0 || parts.length > 6) badPath(rest, 'index must be 1..6 groups of 3 digits');
  let index = 0;
  parts.forEach((g, i) => {
    const m = (i < parts.length - 1 ? /^x([0-9]{3})$/ : /^([0-9]{3})$/).exec(g);
    if (!m) badPath(rest, 'index groups are 3 digits, all but the last prefixed with x');
    index = index * 1000 + Number(m[1]);
  });
  if (!Number.isSafeInteger(index)) badPath(rest, 'index too large');
  const t: TileRef = { level, index, width };
  if (formatTilePath(t) !== `tile/${rest}`) badPath(rest, 'not the canonical encoding of its index');
  return t;
}


/** Complete nodes of tree level 8*L in a tree of `size` leaves: floor(size / 256^L). Exact (division by a power of two). */
export function nodesAtTileLevel(size: number, level: number): number {
  return Math.floor(size / 2 ** (TILE_HEIGHT * level));
}

/** Whether the tree of `size` (a signed checkpoint's) holds all of `t`; tiles beyond it are never served. */
export function tileInTree(t: TileRef, size: number): boolean {
  const level = t.level === 'entries' ? 0 : t.level;
  return t.index * TILE_WIDTH + t.width <= nodesAtTileLevel(size, level);
}

function notInTree(t: TileRef, size: number): VouchError {
  return new VouchError('ERR_NOT_FOUND', `${formatTilePath(t)} is not in the tree of size ${size}`);
}

/** The tile's bytes: `width` 32-byte hashes, the stored nodes (tree level 8*L, index n*256 + i). */
export async function readHashTile(t: TileRef, size: number, source: TileNodeSource): Promise<Uint8Array<ArrayBuffer>> {
  if (t.level === 'entries') throw new InputError('ERR_INPUT', 'an entry bundle is not a hash tile');
  if (!tileInTree(t, size)) throw notInTree(t, size);
  const lo = t.index * TILE_WIDTH;
  const hashes = await source.nodes(TILE_HEIGHT * t.level, lo, lo + t.width - 1);
  if (hashes.length !== t.width || hashes.some((h) => h.length !== HASH_SIZE)) {
    throw new VouchError('ERR_STORE_INCONSISTENT', `the store holds ${hashes.length} of the ${t.width} nodes of ${formatTilePath(t)}`);
  }
  const out = new Uint8Array(t.width * HASH_SIZE);
  hashes.forEach((h, i) => out.set(h, i * HASH_SIZE));
  return out;
}

/** The leaf range [from, to) an entry bundle covers, checked against the tree size. */
export function bundleRange(t: TileRef, size: number): { from: number; to: number } {
  if (t.level !== 'entries') throw new InputError('ERR_INPUT', 'a hash tile is not an entry bundle');
  if (!tileInTree(t, size)) throw notInTree(t, size);
  return { from: t.index * TILE_WIDTH, to: t.index * TILE_WIDTH + t.width };
}

/**
 * An entry bundle: each entry as a big-endian uint16 length, then its bytes. For vouch an entry is
 * the stored entry bytes (RFC 8785 JSON), exactly what the leaf hash covers: SHA-256(0x00 || bytes).
 * One longer than 65535 bytes cannot be framed: refused, never truncated.
 */
export function encodeEntryBundle(entries: { seq: number; bytes: Uint8Array }[], expectFrom: number, count: number): Uint8Array<ArrayBuffer> {
  if (entries.length !== count || entries.some((e, i) => e.seq !== expectFrom + i)) {
    throw new VouchError('ERR_STORE_INCONSISTENT', `the store returned ${entries.length} of entries ${expectFrom}..${expectFrom + count - 1}`);
  }
  let total = 0;
  for (const e of entries) {
    if (e.bytes.length > MAX_BUNDLE_ENTRY) {
      throw new VouchError('ERR_TILE_ENTRY_TOO_LARGE', `entry ${e.seq} is ${e.bytes.length} bytes: a tlog-tiles entry bundle frames at most ${MAX_BUNDLE_ENTRY}`);
    }
    total += 2 + e.bytes.length;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const e of entries) {
    out[at] = e.bytes.length >>> 8;
    out[at + 1] = e.bytes.length & 0xff;
    out.set(e.bytes, at + 2);
    at += 2 + e.bytes.length;
  }
  return out;
}

/**
 * Splits an entry bundle back into entries (for clients and tests); malformed framing throws. No
 * bundle holds more than TILE_WIDTH entries: a hostile one of empty entries (a tile-sized file is
 * 8 million of them) is refused at the first entry past that, not decoded whole.
 */
export function decodeEntryBundle(bundle: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bundle.length; ) {
    if (out.length === TILE_WIDTH) throw new InputError('ERR_INPUT', `entry bundle holds more than ${TILE_WIDTH} entries`);
    if (at + 2 > bundle.length) throw new InputError('ERR_INPUT', 'entry bundle ends inside a length prefix');
    const n = (bundle[at] << 8) | bundle[at + 1];
    if (at + 2 + n > bundle.length) throw new InputError('ERR_INPUT', 'entry bundle ends inside an entry');
    out.push(bundle.subarray(at + 2, at + 2 + n));
    at += 2 + n;
  }
  return out;
}
