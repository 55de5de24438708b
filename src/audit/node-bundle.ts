// NODE-ONLY: audit bundles on disk (a directory or one .tar.gz) and the SQLite store as a replay
// and export source. Everything streams: files are written and read chunk by chunk, and
// entries are read from SQLite in pages, so memory stays flat however large the log.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { InputError } from '../errors.js';
import { inclusionProof } from '../log/index.js';
import type { LogStore } from '../store/port.js';
import { scanErasures } from './erasures.js';
import type { BundleSink, ExportSource } from './export.js';
import type { ReplaySource } from './replay.js';
import { createTarWriter, readTar } from './tar.js';
import type { BundleReader } from './verify-bundle.js';

const PAGE = 512;
const MAX_SMALL_FILE = 64 << 20;
const NAME_RE = /^(manifest\.json|checkpoint|entries\.jsonl|range\.json|keys\.json|payloads\.jsonl|README\.md|chains\/sha256-[0-9a-f]{64}\.json|policies\/sha256-[0-9a-f]{64})$/;

const LEAF_PREFIX = Uint8Array.of(0x00);

/** RFC 9162 leaf hash by node:crypto (native SHA-256): several times the pure-JS rate on big bundles. */
export function nodeHashLeaf(bytes: Uint8Array): Uint8Array {
  const d = createHash('sha256').update(LEAF_PREFIX).update(bytes).digest();
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}

export const isTarGz = (path: string): boolean => /\.(tar\.gz|tgz)$/i.test(path);

/** A bundle directory as a BundleReader. */
export function openBundleDir(dir: string): BundleReader {
  const file = (name: string) => join(dir, ...name.split('/'));
  const small = async (name: string): Promise<Buffer | undefined> => {
    if (!NAME_RE.test(name) || !existsSync(file(name))) return undefined;
    if (statSync(file(name)).size > MAX_SMALL_FILE) throw new InputError('ERR_TOO_LARGE', `${name} is larger than ${MAX_SMALL_FILE} bytes`);
    return readFile(file(name));
  };
  return {
    text: async (name) => (await small(name))?.toString('utf8'),
    bytes: async (path) => {
      const b = await small(path);
      return b && new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    },
    lines: (name) => (existsSync(file(name)) ? readLines(file(name)) : undefined),
  };
}

/**
 * Lines of a JSONL bundle file, streamed in 1 MiB reads. Bundle lines are ASCII by format
 * (digits, digests, base64), so bytes are read as latin1: no UTF-8 validation pass, and a stray
 * non-ASCII byte still fails the line's own parse, where the finding names it.
 */
async function* readLines(path: string): AsyncGenerator<string> {
  let rest = '';
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    const lines = (rest + (chunk as Buffer).toString('latin1')).split('\n');
    rest = lines.pop()!;
    for (const l of lines) yield l.endsWith('\r') ? l.slice(0, -1) : l;
  }
  if (rest !== '') yield rest;
}

/** Open a bundle directory or .tar.gz (unpacked, streaming, into a temporary directory). */
export async function openBundle(path: string): Promise<{ reader: BundleReader; dir: string; close(): void }> {
  if (!existsSync(path)) throw new InputError('ERR_INPUT', `no bundle at ${path}`);
  if (!isTarGz(path)) {
    if (!statSync(path).isDirectory()) throw new InputError('ERR_INPUT', `${path} is neither a bundle directory nor a .tar.gz`);
    return { reader: openBundleDir(path), dir: path, close: () => undefined };
  }
  const dir = mkdtempSync(join(tmpdir(), 'vouch-bundle-'));
  try {
    await extractTarGz(path, dir);
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return { reader: openBundleDir(dir), dir, close: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Unpack only the file names a bundle has (no paths outside `dir`, no links). */
export async function extractTarGz(file: string, dir: string): Promise<void> {
  const gunzip = createReadStream(file).pipe(createGunzip());
  for await (const item of readTar(gunzip as AsyncIterable<Uint8Array>)) {
    const name = item.name.replace(/^\.\//, '');
    if (item.type === 'directory') {
      if (!/^(chains|policies)\/?$/.test(name)) throw new InputError('ERR_INPUT', `unexpected directory ${JSON.stringify(item.name)} in the bundle`);
      continue;
    }
    if (!NAME_RE.test(name)) throw new InputError('ERR_INPUT', `unexpected file ${JSON.stringify(item.name)} in the bundle`);
    const to = join(dir, ...name.split('/'));
    mkdirSync(dirname(to), { recursive: true });
    await pipeline(Readable.from(item.body), createWriteStream(to, { flags: 'wx' }));
  }
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

