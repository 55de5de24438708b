// NODE-ONLY: an untrusted bundle on disk (a directory or one .tar.gz) opened for reading within
// fixed limits: regular files only (lstat in a directory, entry types in a tar), sizes, lines,
// file counts and the gzip ratio capped, nothing unpacked to disk. Everything is checked in one
// pass before the bundle is handed over; a .tar.gz is then read again once per JSONL file.
import { closeSync, constants, createReadStream, fstatSync, lstatSync, openSync, opendirSync, readSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { InputError } from '../errors.js';
import { bundleTarEntries, type BundleTarEntry } from './bundle-tar.js';
import { BUNDLE_DIRS, DEFAULT_BUNDLE_LIMITS, isBundleFile, isJsonlFile, type BundleLimits } from './bundle-format.js';
import type { BundleReader } from './verify-bundle.js';

/** A BundleReader that also lists what it found beside the format's files. */
export interface CheckedBundleReader extends BundleReader {
  /** Files (and directories, ending in /) that are not part of the bundle format: never read. */
  unknown: string[];
}

const limit = (message: string) => new InputError('ERR_BUNDLE_LIMIT', `bundle refused: ${message}`);
const refused = (name: string, what: string) => new InputError('ERR_BUNDLE_FILE', `bundle refused: ${JSON.stringify(name)} is ${what}: a bundle holds regular files and directories only`);

function kindOf(st: Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isFIFO()) return 'a fifo';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** Byte chunks as lines (latin1: bundle lines are ASCII by format), none longer than maxLine. */
export async function* splitLines(chunks: AsyncIterable<Uint8Array>, name: string, maxLine: number): AsyncGenerator<string> {
  let parts: Buffer[] = [];
  let partLen = 0;
  const tooLong = () => limit(`${name} has a line longer than ${maxLine} bytes`);
  const strip = (l: string) => (l.endsWith('\r') ? l.slice(0, -1) : l);
  for await (const c of chunks) {
    const b = Buffer.isBuffer(c) ? c : Buffer.from(c.buffer, c.byteOffset, c.byteLength);
    let at = 0;
    for (let nl = b.indexOf(10, at); nl >= 0; nl = b.indexOf(10, at)) {
      if (partLen + nl - at > maxLine) throw tooLong();
      let line: string;
      if (partLen === 0) line = b.toString('latin1', at, nl);
      else {
        parts.push(b.subarray(at, nl));
        line = Buffer.concat(parts).toString('latin1');
        parts = [];
        partLen = 0;
      }
      yield strip(line);
      at = nl + 1;
    }
    if (at < b.length) {
      partLen += b.length - at;
      if (partLen > maxLine) throw tooLong();
      parts.push(b.subarray(at));
    }
  }
  if (partLen > 0) yield strip(Buffer.concat(parts).toString('latin1'));
}

/** Only the longest line is checked: nothing is decoded or kept. */
async function checkLines(chunks: AsyncIterable<Uint8Array>, name: string, maxLine: number): Promise<void> {
  let run = 0;
  for await (const c of chunks) {
    const b = Buffer.isBuffer(c) ? c : Buffer.from(c.buffer, c.byteOffset, c.byteLength);
    let at = 0;
    for (let nl = b.indexOf(10, at); nl >= 0; nl = b.indexOf(10, at)) {
      if (run + nl - at > maxLine) throw limit(`${name} has a line longer than ${maxLine} bytes`);
      run = 0;
      at = nl + 1;
    }
    run += b.length - at;
    if (run > maxLine) throw limit(`${name} has a line longer than ${maxLine} bytes`);
  }
}

// ---- a bundle directory ----

/** Opens a file in the bundle without following a link or blocking on a fifo; it must be regular. */
export function openRegular(path: string, name: string): number {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw refused(name, 'a symbolic link');
    throw new InputError('ERR_INPUT', `cannot read ${name}: ${(e as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw refused(name, kindOf(st));
  }
  return fd;
}

export function readWhole(path: string, name: string, max: number): Buffer {
  const fd = openRegular(path, name);
  try {
    const size = fstatSync(fd).size;
    if (size > max) throw limit(`${name} is larger than ${max} bytes`);
    const buf = Buffer.alloc(size);
    let n = 0;
    while (n < size) {
      const r = readSync(fd, buf, n, size - n, n);
      if (r === 0) break;
      n += r;
    }
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

export function fileChunks(path: string, name: string): AsyncIterable<Uint8Array> {
  return (async function* () {
    const fd = openRegular(path, name);
    yield* createReadStream(path, { fd, highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>;
  })();
}

/** Every file in the directory, by lstat: links and special files refused, the rest sized and named. */
function inventoryDir(dir: string, lim: BundleLimits): { sizes: Map<string, number>; unknown: string[] } {
  const sizes = new Map<string, number>();
  const unknown: string[] = [];
  let count = 0;
  let total = 0;
  let small = 0;
  const walk = (rel: string) => {
    const d = opendirSync(rel ? join(dir, rel) : dir);
    try {
      for (let e = d.readSync(); e; e = d.readSync()) {
        if (++count > lim.maxFiles) throw limit(`more than ${lim.maxFiles} files`);
        const name = rel ? `${rel}/${e.name}` : e.name;
        const st = lstatSync(join(dir, name));
        if (st.isDirectory()) {
          if (!rel && (BUNDLE_DIRS as readonly string[]).includes(e.name)) walk(name);
          else unknown.push(`${name}/`);
          continue;
        }
        if (!st.isFile()) throw refused(name, kindOf(st));
        if (!isBundleFile(name)) {
          unknown.push(name);
          continue;
        }
        total += st.size;
        if (total > lim.maxTotal) throw limit(`its files hold more than ${lim.maxTotal} bytes`);
        // A sparse file is a directory's gzip bomb: gigabytes to read from a few blocks on disk.
        if (st.size > lim.ratioFloor && st.blocks * 512 * lim.maxRatio < st.size) throw limit(`${name} is sparse: ${st.size} bytes stored in ${st.blocks * 512}`);
        if (!isJsonlFile(name)) {
          if (st.size > lim.maxSmallFile) throw limit(`${name} is larger than ${lim.maxSmallFile} bytes`);
          small += st.size;
          if (small > lim.maxSmallTotal) throw limit(`its manifest, keys and documents hold more than ${lim.maxSmallTotal} bytes`);
        }
        sizes.set(name, st.size);
      }
    } finally {
      d.closeSync();
    }
  };
  walk('');
  return { sizes, unknown: unknown.sort() };
}

/** A bundle directory, checked whole (names, kinds, sizes, line lengths) before it is read. */
export async function openCheckedDir(dir: string, limits: Partial<BundleLimits> = {}): Promise<CheckedBundleReader> {
  const lim = { ...DEFAULT_BUNDLE_LIMITS, ...limits };
  const { sizes, unknown } = inventoryDir(dir, lim);
  const path = (name: string) => join(dir, ...name.split('/'));
  for (const name of sizes.keys()) if (isJsonlFile(name)) await checkLines(fileChunks(path(name), name), name, lim.maxLine);
  const small = async (name: string) => (sizes.has(name) && !isJsonlFile(name) ? readWhole(path(name), name, lim.maxSmallFile) : undefined);
  return {
    unknown,
    text: async (name) => (await small(name))?.toString('utf8'),
    bytes: async (name) => {
      const b = await small(name);
      return b && new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    },
    lines: (name) => (sizes.has(name) && isJsonlFile(name) ? splitLines(fileChunks(path(name), name), name, lim.maxLine) : undefined),
  };
}

// ---- a .tar.gz ----

/**
 * The archive's entries under their bundle names (bundle-tar.ts). Decompression is metered: total
 * bytes and the ratio to the compressed bytes read so far. The file and the inflater are closed
 * when iteration stops; `drain` reads on to the end (gzip's CRC, nothing after the archive).
 */
async function* tarGzEntries(file: string, lim: BundleLimits, drain = false): AsyncGenerator<BundleTarEntry> {
  const input = createReadStream(file, { highWaterMark: 1 << 16 });
  const gunzip = createGunzip({ chunkSize: 1 << 16 });
  pipeline(input, gunzip, () => undefined); // errors surface in the iteration below
  let out = 0;
  const metered = (async function* () {
    const it = (gunzip as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    for (;;) {
      let r: IteratorResult<Buffer>;
      try {
        r = await it.next();
      } catch (e) {
        throw new InputError('ERR_INPUT', `${file} does not decompress: ${(e as Error).message}`); // zlib's own words: bad header, bad CRC, truncated
      }
      if (r.done) return;
      out += r.value.length;
      if (out > lim.maxTotal) throw limit(`it decompresses to more than ${lim.maxTotal} bytes`);
      if (out > lim.ratioFloor && out > lim.maxRatio * Math.max(1, input.bytesRead)) throw limit(`it decompresses to more than ${lim.maxRatio} times its compressed size`);
      yield r.value;
    }
  })();
  const meteredIt = metered[Symbol.asyncIterator]();
  const once = { [Symbol.asyncIterator]: () => ({ next: () => meteredIt.next() }) } as AsyncIterable<Buffer>;
  try {
    yield* bundleTarEntries(once, lim.maxFiles);
    if (drain) {
      // The rest must be the archive's zero padding; reading it to the end checks gzip's CRC.
      for (let r = await meteredIt.next(); !r.done; r = await meteredIt.next()) {
        if (r.value.some((b) => b !== 0)) throw new InputError('ERR_INPUT', 'tar: data after the end-of-archive blocks');
      }
    }
  } finally {
    input.destroy();
    gunzip.destroy();
  }
}

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of chunks) parts.push(Buffer.isBuffer(c) ? c : Buffer.from(c.buffer, c.byteOffset, c.byteLength));
  return Buffer.concat(parts);
}

/** A .tar.gz bundle: one checking pass keeps the small files in memory; each JSONL file is streamed by a pass of its own. */
export async function openCheckedTarGz(file: string, limits: Partial<BundleLimits> = {}): Promise<CheckedBundleReader> {
  const lim = { ...DEFAULT_BUNDLE_LIMITS, ...limits };
  const st = statSync(file);
  if (!st.isFile()) throw refused(file, kindOf(st));
  const small = new Map<string, Buffer>();
  const jsonl = new Set<string>();
  const unknown: string[] = [];
  let smallTotal = 0;
  for await (const e of tarGzEntries(file, lim, true)) {
    if ('unknown' in e) {
      unknown.push(e.unknown);
      continue;
    }
    const { name, item } = e;
    if (isJsonlFile(name)) {
      await checkLines(item.body, name, lim.maxLine);
      jsonl.add(name);
      continue;
    }
    if (item.size > lim.maxSmallFile) throw limit(`${name} is larger than ${lim.maxSmallFile} bytes`);
    smallTotal += item.size;
    if (smallTotal > lim.maxSmallTotal) throw limit(`its manifest, keys and documents hold more than ${lim.maxSmallTotal} bytes`);
    small.set(name, await collect(item.body));
  }
  return {
    unknown: unknown.sort(),
    text: async (name) => small.get(name)?.toString('utf8'),
    bytes: async (name) => {
      const b = small.get(name);
      return b && new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    },
    lines: (name) => {
      if (!jsonl.has(name)) return undefined;
      return (async function* () {
        for await (const e of tarGzEntries(file, lim)) {
          if ('name' in e && e.name === name) {
            yield* splitLines(e.item.body, name, lim.maxLine);
            return;
          }
        }
      })();
    },
  };
}

