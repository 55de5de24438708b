// A minimal POSIX ustar writer and a streaming reader for audit bundles: regular files and
// directories only, every header checksummed. The reader also takes what GNU tar writes (gnu and
// pax formats, long names) and refuses links, devices and fifos by entry type. Portable (byte
// chunks in, byte chunks out): the CLI (node:zlib) and GET /v1/export (CompressionStream) share it.
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

export interface TarLimits {
  /** Entries (files, directories, headers) an archive may hold. */
  maxEntries: number;
  /** A pax extended header or a GNU long name. */
  maxHeaderBytes: number;
}

const DEFAULT_TAR_LIMITS: TarLimits = { maxEntries: 100_000, maxHeaderBytes: 64 << 10 };

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
  // GNU base-256 for values past the octal field (sizes over 8 GiB): high bit set, big-endian.
  if (h[at] & 0x80) {
    let v = h[at] & 0x3f;
    if (h[at] & 0x40) throw new InputError('ERR_INPUT', `tar: negative ${what} field`);
    for (let i = 1; i < len; i++) {
      v = v * 256 + h[at + i];
      if (v > Number.MAX_SAFE_INTEGER) throw new InputError('ERR_BUNDLE_LIMIT', `tar: ${what} field too large`);
    }
    return v;
  }
  const s = text(h, at, len).trim();
  if (!/^[0-7]+$/.test(s)) throw new InputError('ERR_INPUT', `tar: bad ${what} field`);
  return parseInt(s, 8);
}

/** What each refused entry type is, for a message the auditor can act on. */
const REFUSED: Record<string, string> = {
  '1': 'a hard link', '2': 'a symbolic link', '3': 'a character device', '4': 'a block device', '6': 'a fifo',
  '7': 'a contiguous file', K: 'a GNU long link name', S: 'a GNU sparse file', M: 'a GNU multi-volume part', V: 'a GNU volume label', N: 'a GNU old long name',
};

interface RawHeader {
  name: string;
  size: number;
  flag: string;
}

function parseHeader(h: Uint8Array): RawHeader {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i];
  if (parseOctal(h, 148, 8, 'checksum') !== sum) throw new InputError('ERR_INPUT', 'tar: header checksum mismatch');
  const magic = text(h, 257, 8);
  // POSIX ustar ("ustar\0" "00") or GNU ("ustar  \0"): what `tar czf` writes by default.
  if (magic !== 'ustar' && magic !== 'ustar  ') throw new InputError('ERR_INPUT', 'tar: not a ustar or GNU tar archive');
  const prefix = magic === 'ustar' ? text(h, 345, 155) : '';
  const name = prefix ? `${prefix}/${text(h, 0, 100)}` : text(h, 0, 100);
  return { name, size: parseOctal(h, 124, 12, 'size'), flag: h[156] === 0 ? '0' : String.fromCharCode(h[156]) };
}

/** pax records: "<len> <key>=<value>\n", each length counting the whole record. */
export function parsePax(bytes: Uint8Array): Map<string, string> {
  const out = new Map<string, string>();
  let at = 0;
  while (at < bytes.length) {
    const sp = bytes.indexOf(0x20, at);
    const len = sp < 0 ? NaN : Number(dec.decode(bytes.subarray(at, sp)));
    if (!Number.isSafeInteger(len) || len <= sp - at + 1 || at + len > bytes.length || bytes[at + len - 1] !== 0x0a) throw new InputError('ERR_INPUT', 'tar: malformed pax header');
    const record = dec.decode(bytes.subarray(sp + 1, at + len - 1));
    const eq = record.indexOf('=');
    if (eq <= 0) throw new InputError('ERR_INPUT', 'tar: malformed pax record');
    out.set(record.slice(0, eq), record.slice(eq + 1));
    at += len;
  }
  return out;
}

export async function* readTar(chunks: AsyncIterable<Uint8Array>, limits: Partial<TarLimits> = {}): AsyncGenerator<TarItem> {
  const lim = { ...DEFAULT_TAR_LIMITS, ...limits };
  const r = new ByteReader(chunks[Symbol.asyncIterator]());
  let entries = 0;
  // Set by a pax 'x' header or a GNU 'L' long name, for the next entry only.
  let nextName: string | undefined;
  let nextSize: number | undefined;
  const skip = async (name: string, n: number) => {
    let left = n;
    while (left > 0) {
      const c = await r.some(Math.min(left, 1 << 16));
      if (!c) throw new InputError('ERR_INPUT', `tar: ${name} is truncated`);
      left -= c.length;
    }
  };
  const whole = async (name: string, n: number): Promise<Uint8Array> => {
    if (n > lim.maxHeaderBytes) throw new InputError('ERR_BUNDLE_LIMIT', `tar: a ${name} of ${n} bytes is over the ${lim.maxHeaderBytes}-byte limit`);
    const b = await r.exact(n + ((BLOCK - (n % BLOCK)) % BLOCK));
    if (!b) throw new InputError('ERR_INPUT', `tar: ${name} is truncated`);
    return b.slice(0, n);
  };
  for (;;) {
    const h = await r.exact(BLOCK);
    if (!h) throw new InputError('ERR_INPUT', 'tar: archive ends without its end-of-archive blocks');
    if (h.every((b) => b === 0)) return;
    if (++entries > lim.maxEntries) throw new InputError('ERR_BUNDLE_LIMIT', `tar: more than ${lim.maxEntries} entries`);
    const raw = parseHeader(h);
    if (raw.flag === 'x' || raw.flag === 'g') {
      const pax = parsePax(await whole('pax header', raw.size));
      if (raw.flag === 'g') {
        // Global headers that would rename or resize every later entry are not worth the risk.
        if (pax.has('path') || pax.has('size') || pax.has('linkpath')) throw new InputError('ERR_BUNDLE_FILE', 'tar: a global pax header sets path, size or linkpath');
        continue;
      }
      if (pax.has('path')) nextName = pax.get('path');
      if (pax.has('size')) {
        const v = pax.get('size')!;
        if (!/^[0-9]{1,16}$/.test(v) || !Number.isSafeInteger(Number(v))) throw new InputError('ERR_INPUT', 'tar: bad pax size');
        nextSize = Number(v);
      }
      continue;
    }
    if (raw.flag === 'L') {
      const b = await whole('GNU long name', raw.size);
      const end = b.indexOf(0);
      nextName = dec.decode(end < 0 ? b : b.subarray(0, end));
      continue;
    }
    const name = nextName ?? raw.name;
    const size = nextSize ?? raw.size;
    nextName = nextSize = undefined;
    if (raw.flag !== '0' && raw.flag !== '5') {
      const what = REFUSED[raw.flag] ?? `an entry of type ${JSON.stringify(raw.flag)}`;
      throw new InputError('ERR_BUNDLE_FILE', `tar: ${JSON.stringify(name)} is ${what}: a bundle holds regular files and directories only`);
    }
    const type = raw.flag === '5' ? 'directory' : 'file';
    if (type === 'directory' && size !== 0) throw new InputError('ERR_INPUT', `tar: directory ${JSON.stringify(name)} declares ${size} bytes of data`);
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
    // What the consumer left unread, then the padding to the next block.
    await skip(name, left);
    await skip(name, (BLOCK - (size % BLOCK)) % BLOCK);
  }
}
