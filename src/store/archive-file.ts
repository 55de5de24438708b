// Reading one file of a tile archive, as its file-level attacker may have left it: only a regular
// file reached without following a symlink at its name, and at most `max` bytes. A FIFO, a device,
// a directory or a symlink (dangling or not) is refused at once, never read, waited on or followed.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
// The caps are the core's (log/tiles.ts): the Workers archive (worker/archive-r2.ts) applies the same.
export { MAX_ARCHIVE_CHECKPOINT_BYTES, MAX_ARCHIVE_TILE_BYTES } from '../log/index.js';

/** Why an archive path holds no readable file; `code` is ENOENT when nothing is there. */
export class ArchiveFileError extends Error {
  constructor(readonly code: 'ENOENT' | 'ENOTREG' | 'ETOOBIG' | string, message: string) {
    super(message);
  }
}

// O_NONBLOCK: opening a FIFO for reading must not wait for a writer; on a regular file it changes nothing.
const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

function refuse(e: unknown): never {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') throw new ArchiveFileError('ENOENT', 'missing');
  // O_NOFOLLOW on a symlink: ELOOP (Linux, macOS), EMLINK (FreeBSD).
  if (code === 'ELOOP' || code === 'EMLINK') throw new ArchiveFileError('ENOTREG', 'not a regular file (a symbolic link)');
  throw new ArchiveFileError(code ?? 'EIO', (e as Error).message);
}

function checkStat(st: { isFile(): boolean; size: number }, max: number): number {
  if (!st.isFile()) throw new ArchiveFileError('ENOTREG', 'not a regular file (a directory, FIFO, socket or device)');
  if (st.size > max) throw new ArchiveFileError('ETOOBIG', `${st.size} bytes, larger than any archive file of its kind (${max})`);
  return st.size;
}

function bytesOf(buf: Buffer, n: number, size: number): Uint8Array {
  if (n > size) throw new ArchiveFileError('ETOOBIG', `grew past the ${size} bytes it had when opened`);
  return new Uint8Array(buf.buffer, buf.byteOffset, n);
}

/** The file's bytes (sync: log verify and the audit read tiles in their rebuild loop). Throws ArchiveFileError. */
export function readArchiveFileSync(path: string, max: number): Uint8Array {
  let fd: number;
  try {
    fd = openSync(path, FLAGS);
  } catch (e) {
    refuse(e);
  }
  try {
    const size = checkStat(fstatSync(fd), max);
    // One byte past the size it said: a file that grows while it is read is refused, not followed.
    const buf = Buffer.allocUnsafeSlow(size + 1); // not zeroed: only the bytes read are given (bytesOf)
    let n = 0;
    for (let r; n < buf.length && (r = readSync(fd, buf, n, buf.length - n, n)) > 0; ) n += r;
    buf.fill(0, n); // what was not read (the one byte past the size, or a file that shrank): no stale memory behind the view
    return bytesOf(buf, n, size);
  } finally {
    closeSync(fd);
  }
}

/** The file's bytes, or undefined when nothing is there (the writer's read before it writes). Throws ArchiveFileError. */
export async function readArchiveFile(path: string, max: number): Promise<Uint8Array | undefined> {
  let f;
  try {
    f = await open(path, FLAGS);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    refuse(e);
  }
  try {
    const size = checkStat(await f.stat(), max);
    const buf = Buffer.alloc(size + 1);
    let n = 0;
    for (let r; n < buf.length && (r = (await f.read(buf, n, buf.length - n, n)).bytesRead) > 0; ) n += r;
    return bytesOf(buf, n, size);
  } finally {
    await f.close();
  }
}

/** fsync the regular file at `path` (opened as it is read: no symlink followed, no FIFO waited on). Throws ArchiveFileError. */
export async function syncArchiveFile(path: string): Promise<void> {
  let f;
  try {
    f = await open(path, FLAGS);
  } catch (e) {
    refuse(e);
  }
  try {
    checkStat(await f.stat(), Number.MAX_SAFE_INTEGER);
    await f.sync();
  } finally {
    await f.close();
  }
}
