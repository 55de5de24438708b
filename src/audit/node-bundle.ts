// NODE-ONLY: audit bundles on disk (a directory or one .tar.gz; untrusted ones are opened through
// node-bundle-read.ts, within limits) and the SQLite store as a replay and export source. Everything
// streams: files are written and read chunk by chunk, and entries are read from SQLite in pages.
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { InputError } from '../errors.js';
import { inclusionProof } from '../log/index.js';
import type { LogStore } from '../store/port.js';
import { scanErasures } from './erasures.js';
import type { BundleSink, ExportSource } from './export.js';
import type { ReplaySource } from './replay.js';
import { DEFAULT_BUNDLE_LIMITS, isBundleFile, isJsonlFile, type BundleLimits } from './bundle-format.js';
import { fileChunks, openCheckedDir, openCheckedTarGz, readWhole, splitLines, type CheckedBundleReader } from './node-bundle-read.js';
import { createTarWriter } from './tar.js';
import type { BundleReader } from './verify-bundle.js';

const PAGE = 512;

const LEAF_PREFIX = Uint8Array.of(0x00);

/** RFC 9162 leaf hash by node:crypto (native SHA-256): several times the pure-JS rate on big bundles. */
export function nodeHashLeaf(bytes: Uint8Array): Uint8Array {
  const d = createHash('sha256').update(LEAF_PREFIX).update(bytes).digest();
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}

export const isTarGz = (path: string): boolean => /\.(tar\.gz|tgz)$/i.test(path);

/**
 * A bundle directory as a BundleReader, file by file (links, fifos and devices refused, sizes and
 * lines capped). openBundle checks the whole directory first; this is for trusted callers and tests.
 */
export function openBundleDir(dir: string, limits: Partial<BundleLimits> = {}): BundleReader {
  const lim = { ...DEFAULT_BUNDLE_LIMITS, ...limits };
  const file = (name: string) => join(dir, ...name.split('/'));
  const present = (name: string) => isBundleFile(name) && existsSync(file(name));
  const small = async (name: string) => (present(name) && !isJsonlFile(name) ? readWhole(file(name), name, lim.maxSmallFile) : undefined);
  return {
    text: async (name) => (await small(name))?.toString('utf8'),
    bytes: async (path) => {
      const b = await small(path);
      return b && new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    },
    lines: (name) => (present(name) && isJsonlFile(name) ? splitLines(fileChunks(file(name), name), name, lim.maxLine) : undefined),
  };
}

/**
 * Open a bundle directory or .tar.gz as untrusted input: checked whole first (names, file kinds,
 * sizes, line lengths, the gzip ratio), so a hostile bundle fails fast with ERR_BUNDLE_LIMIT or
 * ERR_BUNDLE_FILE. Nothing is unpacked to disk. `reader.unknown` lists files the format lacks.
 */
export async function openBundle(path: string, limits: Partial<BundleLimits> = {}): Promise<{ reader: CheckedBundleReader; dir: string; close(): void }> {
  if (!existsSync(path)) throw new InputError('ERR_INPUT', `no bundle at ${path}`);
  if (!isTarGz(path)) {
    if (!statSync(path).isDirectory()) throw new InputError('ERR_INPUT', `${path} is neither a bundle directory nor a .tar.gz`);
    return { reader: await openCheckedDir(path, limits), dir: path, close: () => undefined };
  }
  return { reader: await openCheckedTarGz(path, limits), dir: path, close: () => undefined };
}

/** Writes each file under `dir` (created); the sink for `vouch export -o DIR`. */
export function createDirSink(dir: string): BundleSink {
  mkdirSync(dir, { recursive: true });
  return {
    async file(name, _size, chunks) {
      const to = join(dir, ...name.split('/'));
      mkdirSync(dirname(to), { recursive: true });
      await pipeline(Readable.from(chunks as AsyncIterable<Uint8Array>), createWriteStream(to, { flags: 'wx' }));
    },
  };
}

/** A gzip'd tar written to any Node writable (a file, an HTTP response); finish() ends it. */
export function createTarGzSink(out: Writable): BundleSink & { finish(): Promise<void> } {
  const gzip = createGzip();
  const done = pipeline(gzip, out);
  const write = (chunk: Uint8Array) =>
    new Promise<void>((resolve, reject) => {
      if (gzip.write(chunk)) return resolve();
      const settle = (e?: Error) => {
        gzip.off('drain', settle).off('error', settle);
        if (e) reject(e);
        else resolve();
      };
      gzip.on('drain', settle).on('error', settle);
    });
  const tar = createTarWriter(write);
  return {
    file: (name, size, chunks) => tar.file(name, size, chunks),
    async finish() {
      await tar.finish();
      gzip.end();
      await done;
    },
  };
}

/** Entries in pages: an open SQLite iterator would keep the connection busy for other reads. */
async function* pagedEntries(store: LogStore, from: number, to: number): AsyncGenerator<{ seq: number; bytes: Uint8Array }> {
  for (let at = from; at < to; at += PAGE) {
    const page = [...store.entries(at, Math.min(to, at + PAGE))];
    for (const e of page) yield { seq: e.seq, bytes: e.bytes };
  }
}

/** A tenant's SQLite log (read-only is enough) as a replay source. */
export function storeReplaySource(store: LogStore): ReplaySource {
  let erasures: Promise<Map<string, number>> | undefined;
  return {
    size: async () => store.size(),
    entries: (from, to) => pagedEntries(store, from, to),
    payload: async (d) => store.payload(d),
    document: async (d) => store.document(d)?.bytes,
    // Only when a payload is absent: one scan of the log for erasure entries, then a lookup.
    erasedAt: async (d) => (await (erasures ??= scanErasures(pagedEntries(store, 0, store.size())))).get(d),
  };
}

export function storeExportSource(store: LogStore, origin: string): ExportSource {
  return {
    origin,
    size: async () => store.size(),
    entry: async (seq) => store.entry(seq)?.bytes,
    entries: (from, to) => pagedEntries(store, from, to),
    checkpointAt: async (size) => store.checkpointAt(size),
    latestCheckpoint: async () => store.latestCheckpoint(),
    inclusionProof: async (seq, size) => inclusionProof(seq, size, store),
    payload: async (d) => store.payload(d),
    document: async (d) => store.document(d),
  };
}

