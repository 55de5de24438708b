// Reading a log through its tile archive, wherever the archive's files are (a directory on Node,
// an R2 bucket on Workers): a LogStorage whose sealed part (full entry bundles and full hash tiles
// below the archive's checkpoint) comes from the archive, the rest from the log's store. Rebuilding
// the tree over it checks every archived byte against the signed checkpoints. No I/O: the caller's
// `read` gives a file's bytes.
import { bytesEqual, sameBytes } from '../canonical/index.js';
import { decodeEntryBundle, formatTilePath, fullTiles, openStrict, parseCheckpoint, parseNote, partialTile, tileBytesOf, tileLevels, TILE_HEIGHT, TILE_WIDTH, type Hash, type LogStorage, type NoteVerifier, type StoredEntry, type TileRef, type TreeNode } from '../log/index.js';
import { StoreError } from '../errors.js';

export interface ArchiveFinding {
  /** The archive file (relative to the tenant's archive), or `checkpoint`. */
  path: string;
  message: string;
  /** A finding about the database's copy beside the archive (a row or node that differs), not about an archive file. */
  database?: true;
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
  /**
   * Where the store's own copy of the log starts: its pruned watermark (below it the store reads
   * this same archive, store/sealed-tiles.ts). From there on, every sealed entry and archived node
   * read from the archive is compared with the store's: the store's rows are what the service
   * serves, so a row rewritten under a genuine archive is a finding too. Default 0: compare all.
   */
  rowsFrom?: number;
}

/**
 * A file of the archive by its path relative to the tenant's archive (`checkpoint`,
 * `tile/0/000`): its bytes, or undefined when it is not there; any other failure throws.
 */
export type ArchiveRead = (rel: string) => Uint8Array | undefined;

const HASH = 32;
const ZERO: Hash = new Uint8Array(HASH);

/**
 * Opens the archive `read` gives over `storage`. Its checkpoint must verify with the log's keys, name
 * the log's origin and be the note the log stored at that size; otherwise nothing is read from
 * the archive and that is the finding.
 */
export function openArchiveViewOf(read: ArchiveRead, storage: LogStorage, opts: ArchiveViewOptions): ArchiveView {
  const findings: ArchiveFinding[] = [];
  const size = archiveSize(read, storage, opts, findings);
  const rowsFrom = opts.rowsFrom ?? 0;
  const sealed = fullTiles(size, 'entries') * TILE_WIDTH;
  const cache = new Map<string, Uint8Array | undefined>();
  /** A tile file's bytes (a few kept: rebuilds read each tile's hashes level by level). */
  const file = (t: TileRef): Uint8Array | undefined => {
    const rel = formatTilePath(t);
    if (cache.has(rel)) return cache.get(rel);
    let bytes: Uint8Array | undefined;
    try {
      bytes = read(rel);
      if (!bytes) reportOnce(findings, rel, `${rel}: missing (the archive's checkpoint at ${size} covers it)`);
    } catch (e) {
      reportOnce(findings, rel, `${rel}: ${(e as Error).message} (the archive's checkpoint at ${size} covers it)`);
    }
    if (cache.size >= 16) cache.delete(cache.keys().next().value!);
    cache.set(rel, bytes);
    return bytes;
  };
  /** Level 8L's archived nodes: index < the full tiles' end at that level. */
  const archivedEnd = (level: number) => (level % TILE_HEIGHT === 0 ? fullTiles(size, level / TILE_HEIGHT) * TILE_WIDTH : 0);
  /** A full hash tile's bytes (level 8L's nodes of tile `tile`), or undefined (a finding: missing, unreadable, short). */
  let last: { level: number; tile: number; bytes: Uint8Array | undefined } | undefined; // read node by node: one lookup a tile
  const hashTile = (level: number, tile: number): Uint8Array | undefined => {
    if (last?.level === level && last.tile === tile) return last.bytes;
    const t: TileRef = { level: level / TILE_HEIGHT, index: tile, width: TILE_WIDTH };
    let bytes = file(t);
    if (bytes && bytes.length !== TILE_WIDTH * HASH) {
      reportOnce(findings, formatTilePath(t), `${formatTilePath(t)} is ${bytes.length} bytes, a full hash tile ${TILE_WIDTH * HASH}`);
      bytes = undefined;
    }
    last = { level, tile, bytes };
    return bytes;
  };
  const hashAt = (level: number, index: number): Hash | undefined => {
    const bytes = hashTile(level, Math.floor(index / TILE_WIDTH));
    const at = (index % TILE_WIDTH) * HASH;
    return bytes?.subarray(at, at + HASH);
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
  /**
   * A read of the store that may reach entries pruned to the archive (a Node log after \`vouch log
   * prune\`, store/sealed-tiles.ts): their refusal (ERR_ARCHIVE_*, naming the file) is a finding.
   */
  const pruned = <T>(read: () => T, none: T): T => {
    try {
      return read();
    } catch (e) {
      const code = (e as StoreError).code;
      if (code !== 'ERR_ARCHIVE_MISSING' && code !== 'ERR_ARCHIVE_MISMATCH') throw e;
      reportOnce(findings, (e as Error).message, `pruned entries: ${(e as Error).message}`);
      return none;
    }
  };
  /**
   * The store's rows beside the archive's entries of one bundle (from rowsFrom on): the same seqs,
   * bytes and leaf hashes, or one finding for the tile naming the first row that differs.
   */
  const compareRows = (index: number, got: StoredEntry[]): void => {
    const from = Math.max(got[0].seq, rowsFrom);
    const to = got[got.length - 1].seq + 1;
    if (from >= to) return;
    const rel = formatTilePath({ level: 'entries', index, width: TILE_WIDTH });
    const differ = (why: string) => reportOnce(findings, `rows of ${rel}`, `${why}, and the archive's ${rel} differ (the database's rows are what the service serves; the other findings say which copy the signed tree holds)`, true);
    // Every consumer of this view hashes the entries it gives against their leaves (log verify's
    // rebuild, the audit), and it gives the archive's copies: a row equal to its copy is not hashed twice.
    const rows = pruned(() => [...storage.entries(from, to, (seq) => got[seq - got[0].seq])], undefined);
    if (!rows) return;
    let at = from;
    for (const r of rows) {
      if (r.seq !== at) return differ(`entry ${at}: the database holds no row`);
      const a = got[at - got[0].seq];
      if (!sameBytes(r.bytes, a.bytes)) return differ(`entry ${at}: the database row's bytes`);
      if (!bytesEqual(r.leaf, a.leaf)) return differ(`entry ${at}: the database row's leaf hash`);
      at++;
    }
    if (at < to) differ(`entry ${at}: the database holds no row`);
  };
  /** The store's node beside an archived one (a node the store keeps: level 8 and up, or above rowsFrom): one finding for the tile if they differ. */
  const compareNode = (level: number, index: number, hash: Hash): void => {
    if (level < TILE_HEIGHT && index * 2 ** level < rowsFrom) return;
    let own: Hash | undefined;
    try {
      own = storage.node(level, index);
    } catch (e) {
      const code = (e as StoreError).code;
      if (code !== 'ERR_NOT_FOUND' && code !== 'ERR_ARCHIVE_MISSING' && code !== 'ERR_ARCHIVE_MISMATCH') throw e;
    }
    if (!own || !bytesEqual(own, hash)) nodeDiffers(level, index, own);
  };
  const nodeDiffers = (level: number, index: number, own: Hash | undefined): void => {
    const rel = formatTilePath({ level: level / TILE_HEIGHT, index: Math.floor(index / TILE_WIDTH), width: TILE_WIDTH });
    reportOnce(findings, `nodes of ${rel}`, `node ${level}/${index}: the database's copy ${own ? 'and the archive\'s' : 'is missing beside the archive\'s'} ${rel}${own ? ' differ' : ''} (the database's nodes are what proofs are built from; the other findings say which copy the signed tree holds)`, true);
  };
  const view: LogStorage = {
    size: () => storage.size(),
    entry: (seq) => [...view.entries(seq, seq + 1)][0],
    *entries(from, to) {
      for (let seq = from; seq < to; ) {
        if (seq >= sealed) return yield* pruned(() => [...storage.entries(seq, to)], []);
        const index = Math.floor(seq / TILE_WIDTH);
        const end = Math.min(to, (index + 1) * TILE_WIDTH);
        const b = bundle(index);
        // An unreadable bundle is a finding; its entries come from the store so the rest is still checked
        // (a pruned log has no rows there: its own refusal is one more finding, and none are given).
        if (!b) yield* pruned(() => [...storage.entries(seq, end)], []);
        else {
          const got: StoredEntry[] = [];
          for (let s = seq; s < end; s++) got.push({ seq: s, bytes: b[s % TILE_WIDTH], leaf: hashAt(0, s) ?? ZERO });
          compareRows(index, got);
          yield* got;
        }
        seq = end;
      }
    },
    node(level, index) {
      if (index >= archivedEnd(level)) return storage.node(level, index);
      const h = hashAt(level, index);
      if (!h) throw new StoreError('ERR_STORE_INCONSISTENT', `archived node ${level}/${index} cannot be read`);
      compareNode(level, index, h);
      return h;
    },
    *nodeRange(level, lo, hi) {
      const end = Math.min(hi + 1, archivedEnd(level));
      // The store's own copy of the archived part: compared in the store where it can (nothing read
      // back when they agree), else one range read compared here.
      const ownFrom = level < TILE_HEIGHT ? Math.max(lo, Math.ceil(rowsFrom / 2 ** level)) : lo;
      let unlike: Set<number> | undefined;
      if (ownFrom < end && storage.nodesUnlike) {
        const want = new Uint8Array((end - ownFrom) * HASH); // an index without an archived hash is not compared (below)
        for (let i = ownFrom; i < end; i++) {
          const h = hashAt(level, i);
          if (h) want.set(h, (i - ownFrom) * HASH);
        }
        const r = storage.nodesUnlike(level, ownFrom, want);
        if (r.stored === end - ownFrom) unlike = new Set(r.unlike); // else some are missing: the read below names them
      }
      const own: (Hash | undefined)[] = new Array(unlike ? 0 : Math.max(0, end - ownFrom)); // by index - ownFrom
      if (!unlike && ownFrom < end) for (const n of storage.nodeRange ? pruned(() => [...storage.nodeRange!(level, ownFrom, end - 1)], []) : []) if (n.index >= ownFrom && n.index < end) own[n.index - ownFrom] = n.hash;
      for (let i = lo; i < end; i++) {
        const hash = hashAt(level, i);
        if (!hash) continue;
        if (unlike) {
          if (unlike.has(i)) compareNode(level, i, hash); // read back only where the store found a difference
        } else {
          const mine = i >= ownFrom ? own[i - ownFrom] : undefined;
          if (i >= ownFrom && !(mine && bytesEqual(mine, hash))) {
            if (storage.nodeRange) nodeDiffers(level, i, mine);
            else compareNode(level, i, hash);
          }
        }
        yield { level, index: i, hash } satisfies TreeNode;
      }
      const rest = Math.max(lo, end);
      if (rest > hi) return;
      if (storage.nodeRange) yield* pruned(() => [...storage.nodeRange!(level, rest, hi)], []);
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

function reportOnce(findings: ArchiveFinding[], path: string, message: string, database?: true): void {
  if (!findings.some((f) => f.path === path)) findings.push({ path, message, ...(database && { database }) });
}

/** The archive checkpoint's size once it is this log's, signed; else 0 with the finding. */
function archiveSize(read: ArchiveRead, storage: LogStorage, opts: ArchiveViewOptions, findings: ArchiveFinding[]): number {
  let note: string;
  try {
    const bytes = read('checkpoint');
    if (!bytes) return 0; // no archive yet: everything is read from the store
    note = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (e) {
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
 * The files of an archive whose checkpoint is at `size`, compared byte for byte with what `log`
 * gives: `edge`, the partial tiles that checkpoint needs (pass the view's storage: the full tiles
 * are read through the view, so verifying it checks them); `all`, every tile the checkpoint names,
 * so a changed file is named by its path (pass the log's own store, where it still holds every
 * entry, as a Durable Object's does: the view would read a full tile from the archive itself).
 */
export function checkArchiveFilesOf(read: ArchiveRead, size: number, log: LogStorage, which: 'edge' | 'all'): ArchiveFinding[] {
  const out: ArchiveFinding[] = [];
  if (size === 0) return out;
  for (const t of archivedTiles(size, which)) {
    const rel = formatTilePath(t);
    let want: Uint8Array;
    try {
      want = tileBytesOf(t, log);
    } catch (e) {
      out.push({ path: rel, message: `${rel}: the log cannot give it: ${(e as Error).message}` });
      continue;
    }
    let got: Uint8Array | undefined;
    try {
      got = read(rel);
    } catch (e) {
      out.push({ path: rel, message: `${rel}: ${(e as Error).message} (the archive's checkpoint at ${size} needs it)` });
      continue;
    }
    if (!got) out.push({ path: rel, message: `${rel}: missing (the archive's checkpoint at ${size} needs it)` });
    else if (!bytesEqual(got, want)) out.push({ path: rel, message: `${rel}: differs from the log's` });
  }
  return out;
}

/** The tiles an archive whose checkpoint is at `size` holds: its right edge, or every one. */
export function archivedTiles(size: number, which: 'edge' | 'all'): TileRef[] {
  const levels: (number | 'entries')[] = [...Array.from({ length: tileLevels(size) }, (_, l) => l), 'entries'];
  const out: TileRef[] = [];
  for (const level of levels) {
    if (which === 'all') for (let i = 0; i < fullTiles(size, level); i++) out.push({ level, index: i, width: TILE_WIDTH });
    const p = partialTile(size, level);
    if (p) out.push(p);
  }
  return out;
}
