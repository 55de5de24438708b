// The tile archive's writer: a tenant log as static C2SP tlog-tiles files (<dir>/checkpoint,
// tile/<L>/<N>, tile/entries/<N>, and the partial tiles its checkpoint needs), the same bytes the
// tiles routes serve. Every tile file is written once (temp, fsync, link): one already there with
// other bytes is an integrity alarm, never overwritten. Only `checkpoint` is replaced (rename).
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, mkdir, open, rename, rm, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { bytesEqual } from '../canonical/index.js';
import { StoreError } from '../errors.js';
import { ArchiveFileError, MAX_ARCHIVE_CHECKPOINT_BYTES, MAX_ARCHIVE_TILE_BYTES, readArchiveFile } from './archive-file.js';
import { formatTilePath, tileBytesOf, tilesBetween, TILE_WIDTH, type LogStorage, type TileRef } from '../log/index.js';

/** Where the archive lives unless configured (`--archive DIR`): inside the data directory, so one copy of DIR backs up both. */
export const defaultArchiveRoot = (data: string): string => join(data, 'archive');

/** A tenant's archive under the archive root: `<root>/<tenant>/` is one static tlog-tiles log. */
export const tenantArchiveDir = (root: string, tenant: string): string => join(root, tenant);

export interface ArchiveSync {
  /** Tree size of the checkpoint the archive now holds (0: none yet). */
  size: number;
  /** Files written by this sync (tiles, bundles, the checkpoint). */
  written: number;
  /** Tile files already present with the same bytes (a sync after a crash). */
  kept: number;
}

export function archiveMismatch(message: string): StoreError {
  return new StoreError('ERR_ARCHIVE_MISMATCH', `${message}: the archive was changed by someone else (never overwritten; compare it with a backup, then move the file away and the next sync writes it again)`);
}

/**
 * Brings the archive at `dir` up to the log's newest stored checkpoint. `from`: the size the
 * archive is known to hold (this process wrote it); without, the archive's own checkpoint says,
 * once it is the exact note the log stored for that size. Idempotent: a rerun after a crash
 * finds the tiles it wrote, compares them and goes on.
 */
export async function syncArchive(dir: string, storage: LogStorage, from?: number): Promise<ArchiveSync> {
  const latest = storage.latestCheckpoint();
  const done = from ?? (await archivedSize(dir, storage));
  const result: ArchiveSync = { size: done, written: 0, kept: 0 };
  if (!latest || latest.size <= done) return result;
  await rm(join(dir, '.tmp'), { recursive: true, force: true }); // a crash's leftovers: never linked, never served
  await mkdir(join(dir, '.tmp'), { recursive: true });
  const dirs = new Set<string>();
  const full: TileRef[] = [];
  for (const t of tilesBetween(done, latest.size)) {
    const path = join(dir, formatTilePath(t));
    // The bytes the tiles routes serve; a stored row whose bytes do not hash to its leaf is refused, never published.
    const wrote = await writeOnce(dir, path, tileBytesOf(t, storage, { hashLeaf: leafHash }));
    if (wrote) (result.written++, dirs.add(dirname(path)));
    else result.kept++;
    if (t.width === TILE_WIDTH) full.push(t);
  }
  // The tiles are durable (their files and directory entries) before the checkpoint names them.
  for (const d of dirs) await fsyncDir(d);
  await replaceFile(dir, join(dir, 'checkpoint'), new TextEncoder().encode(latest.note));
  result.written++;
  result.size = latest.size;
  // A full tile's partial versions may go (tlog-tiles: clients fall back to the full tile).
  for (const t of full) await rm(`${join(dir, formatTilePath({ ...t, width: 1 })).slice(0, -2)}`, { recursive: true, force: true });
  return result;
}

/** The size of the archive's checkpoint, once it is byte for byte a checkpoint the log stored. */
async function archivedSize(dir: string, storage: LogStorage): Promise<number> {
  const bytes = await present(join(dir, 'checkpoint'), MAX_ARCHIVE_CHECKPOINT_BYTES);
  if (!bytes) return 0; // a new archive (or a lost checkpoint: every tile is compared)
  const note = new TextDecoder().decode(bytes);
  const size = Number(note.split('\n')[1]);
  const stored = Number.isSafeInteger(size) ? storage.checkpointAt(size) : undefined;
  if (!stored || stored.note !== note) throw archiveMismatch(`${join(dir, 'checkpoint')} is not a checkpoint this log stored`);
  return size;
}

function leafHash(bytes: Uint8Array): Uint8Array {
  return createHash('sha256').update(Uint8Array.of(0)).update(bytes).digest();
}

/** Writes a new file, or finds it already there with the same bytes (false); other bytes: the alarm. */
async function writeOnce(root: string, path: string, bytes: Uint8Array): Promise<boolean> {
  const there = await present(path, MAX_ARCHIVE_TILE_BYTES);
  if (there) {
    if (!bytesEqual(there, bytes)) throw archiveMismatch(`${path} holds other bytes than the log's ${path.slice(root.length + 1)}`);
    return false;
  }
  await mkdir(dirname(path), { recursive: true });
  const tmp = await writeTemp(root, bytes);
  try {
    await link(tmp, path); // EEXIST if it appeared meanwhile: a file is never replaced
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    await unlink(tmp);
    return writeOnce(root, path, bytes);
  }
  await unlink(tmp);
  return true;
}

/** What an archive path holds, undefined when nothing; anything but a regular file of a sane size is the alarm (never read, waited on or followed). */
async function present(path: string, max: number): Promise<Uint8Array | undefined> {
  try {
    return await readArchiveFile(path, max);
  } catch (e) {
    if (e instanceof ArchiveFileError) throw archiveMismatch(`${path}: ${e.message}`);
    throw e;
  }
}

async function replaceFile(root: string, path: string, bytes: Uint8Array): Promise<void> {
  await rename(await writeTemp(root, bytes), path);
  await fsyncDir(dirname(path));
}

async function writeTemp(root: string, bytes: Uint8Array): Promise<string> {
  const tmp = join(root, '.tmp', randomBytes(8).toString('hex'));
  const f = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
  try {
    await f.writeFile(bytes);
    await f.sync();
  } finally {
    await f.close();
  }
  return tmp;
}

async function fsyncDir(path: string): Promise<void> {
  const d = await open(path, constants.O_RDONLY);
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}
