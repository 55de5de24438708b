// Reading a log through its tile archive: a LogStorage whose sealed part (full entry bundles and
// full hash tiles below the archive's checkpoint) comes from the archive files, the rest from
// SQLite. `log verify` and the background audit rebuild the tree over it, so every archived
// byte is checked against the signed checkpoints; what cannot be read is an `archive` finding.
import { join } from 'node:path';
import { bytesEqual } from '../canonical/index.js';
import { decodeEntryBundle, encodeEntryBundle, formatTilePath, fullTiles, openStrict, parseCheckpoint, parseNote, partialTile, tileLevels, TILE_HEIGHT, TILE_WIDTH, type Hash, type LogStorage, type NoteVerifier, type StoredEntry, type TileRef, type TreeNode } from '../log/index.js';
import { StoreError } from '../errors.js';
import { ArchiveFileError, MAX_ARCHIVE_CHECKPOINT_BYTES, MAX_ARCHIVE_TILE_BYTES, readArchiveFileSync } from './archive-file.js';

export interface ArchiveFinding {
  /** The archive file (relative to the tenant's archive), or `checkpoint`. */
  path: string;
  message: string;
}

export interface ArchiveView {
  /** The log with its sealed part read from the archive. */
  storage: LogStorage;
  /** The archive checkpoint's size (0: none, or not one this log signed). */
  size: number;
  /** Entries read from full entry bundles: [0, sealed). */
  sealed: number;
  /** What did not read back as it must, so far (grows as `storage` is read). */
  findings: ArchiveFinding[];
}

export interface ArchiveViewOptions {
  origin: string;
  /** The log's keys with their windows: the archive checkpoint must verify strictly. Without, it must only be a stored note (the log's). */
  verifiers?: NoteVerifier[];
}

const HASH = 32;
const ZERO: Hash = new Uint8Array(HASH);

/**
 * Opens the archive at `dir` over `storage`. Its checkpoint must verify with the log's keys, name
 * the log's origin and be the note the log stored at that size; otherwise nothing is read from
 * the archive and that is the finding.
 */
export function openArchiveView(dir: string, storage: LogStorage, opts: ArchiveViewOptions): ArchiveView {
  const findings: ArchiveFinding[] = [];
  const size = archiveSize(dir, storage, opts, findings);
  const sealed = fullTiles(size, 'entries') * TILE_WIDTH;
  const cache = new Map<string, Uint8Array | undefined>();
  /** A tile file's bytes (a few kept: rebuilds read each tile's hashes level by level). */
  const file = (t: TileRef): Uint8Array | undefined => {
    const rel = formatTilePath(t);
    if (cache.has(rel)) return cache.get(rel);
    let bytes: Uint8Array | undefined;
    try {
      bytes = readArchiveFileSync(join(dir, rel), MAX_ARCHIVE_TILE_BYTES);
    } catch (e) {
      reportOnce(findings, rel, `${rel}: ${(e as Error).message} (the archive's checkpoint at ${size} covers it)`);
    }
    if (cache.size >= 16) cache.delete(cache.keys().next().value!);
    cache.set(rel, bytes);
    return bytes;
  };
  /** Level 8L's archived nodes: index < the full tiles' end at that level. */
  const archivedEnd = (level: number) => (level % TILE_HEIGHT === 0 ? fullTiles(size, level / TILE_HEIGHT) * TILE_WIDTH : 0);
  const hashAt = (level: number, index: number): Hash | undefined => {
    const t: TileRef = { level: level / TILE_HEIGHT, index: Math.floor(index / TILE_WIDTH), width: TILE_WIDTH };
    const bytes = file(t);
    if (!bytes) return undefined;
    if (bytes.length !== TILE_WIDTH * HASH) {
      reportOnce(findings, formatTilePath(t), `${formatTilePath(t)} is ${bytes.length} bytes, a full hash tile ${TILE_WIDTH * HASH}`);
      return undefined;
    }
    const at = (index % TILE_WIDTH) * HASH;
    return bytes.subarray(at, at + HASH);
  };
  const bundles = new Map<number, Uint8Array[] | undefined>();
  const bundle = (index: number): Uint8Array[] | undefined => {
    if (bundles.has(index)) return bundles.get(index);
    const t: TileRef = { level: 'entries', index, width: TILE_WIDTH };
    const bytes = file(t);
    let entries: Uint8Array[] | undefined;
    try {
      entries = bytes && decodeEntryBundle(bytes);
      if (entries && entries.length !== TILE_WIDTH) throw new Error(`holds ${entries.length} entries, not ${TILE_WIDTH}`);
    } catch (e) {
      reportOnce(findings, formatTilePath(t), `${formatTilePath(t)}: ${(e as Error).message}`);
      entries = undefined;
    }
    if (bundles.size >= 4) bundles.delete(bundles.keys().next().value!);
    bundles.set(index, entries);
    return entries;
  };
  const view: LogStorage = {
    size: () => storage.size(),
    entry: (seq) => [...view.entries(seq, seq + 1)][0],
    *entries(from, to) {
      for (let seq = from; seq < to; ) {
        if (seq >= sealed) return yield* storage.entries(seq, to);
        const index = Math.floor(seq / TILE_WIDTH);
        const end = Math.min(to, (index + 1) * TILE_WIDTH);
        const b = bundle(index);
        // An unreadable bundle is a finding; its entries come from SQLite so the rest is still checked.
        if (!b) yield* storage.entries(seq, end);
        else for (let s = seq; s < end; s++) yield { seq: s, bytes: b[s % TILE_WIDTH], leaf: hashAt(0, s) ?? ZERO } satisfies StoredEntry;
        seq = end;
      }
    },
    node(level, index) {
      if (index >= archivedEnd(level)) return storage.node(level, index);
      const h = hashAt(level, index);
      if (!h) throw new StoreError('ERR_STORE_INCONSISTENT', `archived node ${level}/${index} cannot be read`);
      return h;
    },
    *nodeRange(level, lo, hi) {
      const end = Math.min(hi + 1, archivedEnd(level));
      for (let i = lo; i < end; i++) {
        const hash = hashAt(level, i);
        if (hash) yield { level, index: i, hash } satisfies TreeNode;
      }
      const rest = Math.max(lo, end);
      if (rest > hi) return;
      if (storage.nodeRange) yield* storage.nodeRange(level, rest, hi);
      else for (let i = rest; i <= hi; i++) yield { level, index: i, hash: storage.node(level, i) };
    },
    latestCheckpoint: () => storage.latestCheckpoint(),
    checkpointAt: (n) => storage.checkpointAt(n),
    checkpoints: () => storage.checkpoints(),
    appendBatch: () => {
      throw new StoreError('ERR_STORE', 'an archive view is read-only');
    },
    commitTag: storage.commitTag && (() => storage.commitTag!()),
  };
  return { storage: view, size, sealed, findings };
}

function reportOnce(findings: ArchiveFinding[], path: string, message: string): void {
  if (!findings.some((f) => f.path === path)) findings.push({ path, message });
}

/** The archive checkpoint's size once it is this log's, signed; else 0 with the finding. */
function archiveSize(dir: string, storage: LogStorage, opts: ArchiveViewOptions, findings: ArchiveFinding[]): number {
  let note: string;
  try {
    note = new TextDecoder().decode(readArchiveFileSync(join(dir, 'checkpoint'), MAX_ARCHIVE_CHECKPOINT_BYTES));
  } catch (e) {
    if (e instanceof ArchiveFileError && e.code === 'ENOENT') return 0; // no archive yet: everything is read from SQLite
    findings.push({ path: 'checkpoint', message: `checkpoint: ${(e as Error).message}` });
    return 0;
  }
  try {
    const cp = opts.verifiers ? openStrict(note, opts.verifiers).checkpoint : parseCheckpoint(parseNote(note).text);
    if (cp.origin !== opts.origin) throw new Error(`it is ${opts.verifiers ? 'signed ' : ''}for origin ${JSON.stringify(cp.origin)}, not ${JSON.stringify(opts.origin)}`);
    if (storage.checkpointAt(cp.size)?.note !== note) throw new Error(`the log stored no such checkpoint at size ${cp.size}`);
    return cp.size;
  } catch (e) {
    findings.push({ path: 'checkpoint', message: `checkpoint: not this log's (nothing read from the archive): ${(e as Error).message}` });
    return 0;
  }
}

/**
 * The partial tiles the archive's checkpoint needs (the full ones are read through the view):
 * each must be byte for byte what the log (already verified through the view) gives.
 */
export function checkArchiveEdge(dir: string, view: ArchiveView): ArchiveFinding[] {
  const out: ArchiveFinding[] = [];
  if (view.size === 0) return out;
  const edge = [...Array.from({ length: tileLevels(view.size) }, (_, l) => partialTile(view.size, l)), partialTile(view.size, 'entries')];
  for (const t of edge) {
    if (!t) continue;
    const rel = formatTilePath(t);
    let want: Uint8Array;
    try {
      want = expectedTile(t, view.storage);
    } catch (e) {
      out.push({ path: rel, message: `${rel}: the log cannot give it: ${(e as Error).message}` });
      continue;
    }
    let got: Uint8Array;
    try {
      got = readArchiveFileSync(join(dir, rel), MAX_ARCHIVE_TILE_BYTES);
    } catch (e) {
      out.push({ path: rel, message: `${rel}: ${(e as Error).message} (the archive's checkpoint at ${view.size} needs it)` });
      continue;
    }
    if (!bytesEqual(got, want)) out.push({ path: rel, message: `${rel}: differs from the log's` });
  }
  return out;
}

function expectedTile(t: TileRef, storage: LogStorage): Uint8Array {
  const from = t.index * TILE_WIDTH;
  if (t.level === 'entries') return encodeEntryBundle([...storage.entries(from, from + t.width)], from, t.width);
  const out = new Uint8Array(t.width * HASH);
  let i = 0;
  for (const n of storage.nodeRange!(t.level * TILE_HEIGHT, from, from + t.width - 1)) out.set(n.hash, (n.index - from) * HASH), i++;
  if (i !== t.width) throw new Error(`${t.width - i} of its nodes are not stored`);
  return out;
}
