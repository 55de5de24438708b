// A minimal POSIX ustar writer and streaming reader for audit bundles: regular files and
// directories only, every header checksummed. Portable (byte chunks in, byte chunks out), so
// the same code packs a bundle for the CLI (node:zlib) and for GET /v1/export (CompressionStream).
import { InputError } from '../errors.js';

const BLOCK = 512;
const enc = new TextEncoder();
const dec = new TextDecoder();

export interface TarWriter {
  /** One regular file of exactly `size` bytes. */
  file(name: string, size: number, chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<void>;
  directory(name: string): Promise<void>;
  /** The two zero blocks that end an archive. */
  finish(): Promise<void>;
}

function octal(field: Uint8Array, at: number, width: number, value: number): void {
  const text = value.toString(8).padStart(width - 1, '0');
  if (text.length > width - 1) throw new InputError('ERR_TOO_LARGE', `tar field overflows: ${value}`);
  field.set(enc.encode(text), at);
}

export function tarHeader(name: string, size: number, type: 'file' | 'directory', mtime = 0): Uint8Array {
  const h = new Uint8Array(BLOCK);
  let prefix = '';
  let base = name;
  if (enc.encode(name).length > 100) {
    const cut = name.lastIndexOf('/', 155);
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
    if (cut <= 0 || enc.encode(base).length > 100 || enc.encode(prefix).length > 155) throw new InputError('ERR_INPUT', `tar name too long: ${name}`);
  }
  h.set(enc.encode(base), 0);
  octal(h, 100, 8, type === 'directory' ? 0o755 : 0o644);
  octal(h, 108, 8, 0);
  octal(h, 116, 8, 0);
  octal(h, 124, 12, size);
  octal(h, 136, 12, mtime);
  h[156] = type === 'directory' ? 0x35 : 0x30;
  h.set(enc.encode('ustar\u000000'), 257);
  h.set(enc.encode(prefix), 345);
  h.fill(0x20, 148, 156); // the checksum is computed with its own field as spaces
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += h[i];
  octal(h, 148, 7, sum);
  h[155] = 0x20;
  return h;
}

export function createTarWriter(write: (chunk: Uint8Array) => Promise<void>, mtime = 0): TarWriter {
  const dirs = new Set<string>();
  const directory = async (name: string) => {
    const d = name.endsWith('/') ? name : `${name}/`;
    if (dirs.has(d)) return;
    dirs.add(d);
    await write(tarHeader(d, 0, 'directory', mtime));
  };
  return {
    async file(name, size, chunks) {
      // Parent directories first, once each: some extractors will not create them.
      for (let i = name.indexOf('/'); i > 0; i = name.indexOf('/', i + 1)) await directory(name.slice(0, i));
      await write(tarHeader(name, size, 'file', mtime));
      let n = 0;
      for await (const c of chunks) {
        n += c.length;
        if (n > size) throw new InputError('ERR_INPUT', `tar: ${name} is longer than its declared ${size} bytes`);
        if (c.length > 0) await write(c);
      }
      if (n !== size) throw new InputError('ERR_INPUT', `tar: ${name} has ${n} bytes, declared ${size}`);
      if (size % BLOCK !== 0) await write(new Uint8Array(BLOCK - (size % BLOCK)));
    },
    directory,
    async finish() {
      await write(new Uint8Array(2 * BLOCK));
    },
  };
}

export interface TarItem {
  name: string;
  type: 'file' | 'directory';
  size: number;
  /** Consume it before asking for the next item; what is left unread is skipped. */
  body: AsyncIterable<Uint8Array>;
}

/** Reads exactly n bytes at a time from a chunk stream, without copying whole files. */
class ByteReader {
  private buf: Uint8Array = new Uint8Array(0);
  private off = 0;
  constructor(private readonly it: AsyncIterator<Uint8Array>) {}

  private async fill(): Promise<boolean> {
    const r = await this.it.next();
    if (r.done) return false;
    this.buf = this.off < this.buf.length ? concat(this.buf.subarray(this.off), r.value) : r.value;
    this.off = 0;
    return true;
  }

  async exact(n: number): Promise<Uint8Array | undefined> {
    while (this.buf.length - this.off < n) if (!(await this.fill())) return undefined;
    const out = this.buf.subarray(this.off, this.off + n);
    this.off += n;
    return out;
  }

  /** Up to `max` bytes (at least one), or undefined at end of stream. */
  async some(max: number): Promise<Uint8Array | undefined> {
    if (this.off >= this.buf.length && !(await this.fill())) return undefined;
    const n = Math.min(max, this.buf.length - this.off);
    const out = this.buf.subarray(this.off, this.off + n);
    this.off += n;
    return out;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

const text = (h: Uint8Array, at: number, len: number): string => {
  const field = h.subarray(at, at + len);
  const end = field.indexOf(0);
  return dec.decode(end < 0 ? field : field.subarray(0, end));
};

function parseOctal(h: Uint8Array, at: number, len: number, what: string): number {
  const s = text(h, at, len).trim();
  if (!/^[0-7]+$/.test(s)) throw new InputError('ERR_INPUT', `tar: bad ${what} field`);
  return parseInt(s, 8);
}

function parseHeader(h: Uint8Array): { name: string; size: number; type: 'file' | 'directory' } {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i];
  if (parseOctal(h, 148, 8, 'checksum') !== sum) throw new InputError('ERR_INPUT', 'tar: header checksum mismatch');
  if (text(h, 257, 6) !== 'ustar') throw new InputError('ERR_INPUT', 'tar: not a ustar archive');
  const flag = h[156];
  if (flag !== 0x30 && flag !== 0 && flag !== 0x35) throw new InputError('ERR_INPUT', `tar: entry type ${String.fromCharCode(flag)} is not allowed in a bundle (files and directories only)`);
  const prefix = text(h, 345, 155);
  const name = prefix ? `${prefix}/${text(h, 0, 100)}` : text(h, 0, 100);
  return { name, size: parseOctal(h, 124, 12, 'size'), type: flag === 0x35 ? 'directory' : 'file' };
}

export async function* readTar(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<TarItem> {
  const r = new ByteReader(chunks[Symbol.asyncIterator]());
  for (;;) {
    const h = await r.exact(BLOCK);
    if (!h) throw new InputError('ERR_INPUT', 'tar: archive ends without its end-of-archive blocks');
    if (h.every((b) => b === 0)) return;
    const { name, size, type } = parseHeader(h);
    let left = size;
    async function* body(): AsyncGenerator<Uint8Array> {
      while (left > 0) {
        const c = await r.some(Math.min(left, 1 << 16));
        if (!c) throw new InputError('ERR_INPUT', `tar: ${name} is truncated`);
        left -= c.length;
        yield c.slice();
      }
    }
    yield { name, type, size, body: body() };
    while (left > 0) {
      const c = await r.some(Math.min(left, 1 << 16));
      if (!c) throw new InputError('ERR_INPUT', `tar: ${name} is truncated`);
      left -= c.length;
    }
    const padding = (BLOCK - (size % BLOCK)) % BLOCK;
    if (padding && !(await r.exact(padding))) throw new InputError('ERR_INPUT', `tar: ${name} is truncated`);
  }
}
