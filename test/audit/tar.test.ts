// The bundle tar writer and reader: round trip, GNU tar interop, and refusal of what a bundle
// never holds (links, devices, fifos, bad checksums, truncation), what GNU tar writes (gnu, pax,
// long names), and the caps on entries and extended headers.
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeBase64, encodeBase64 } from '../../src/audit/_base64.js';
import { collectBundleTar, createTarWriter, readTar, tarHeader } from '../../src/audit/index.js';
import { toBase64 } from '../../src/canonical/index.js';

async function pack(files: [string, Uint8Array][]): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const tar = createTarWriter(async (c) => void parts.push(c.slice()));
  for (const [name, bytes] of files) await tar.file(name, bytes.length, [bytes.subarray(0, 100), bytes.subarray(100)]);
  await tar.finish();
  return Buffer.concat(parts);
}

async function unpack(bytes: Uint8Array, chunk = 333): Promise<Record<string, string>> {
  async function* chunks() {
    for (let i = 0; i < bytes.length; i += chunk) yield bytes.subarray(i, i + chunk);
  }
  const out: Record<string, string> = {};
  for await (const item of readTar(chunks())) {
    if (item.type === 'directory') {
      out[item.name] = '<dir>';
      continue;
    }
    const parts: Uint8Array[] = [];
    for await (const c of item.body) parts.push(c);
    out[item.name] = Buffer.concat(parts).toString('utf8');
  }
  return out;
}

const enc = (s: string) => new TextEncoder().encode(s);

describe('tar', () => {
  it('round-trips files of every size around the block boundary, parents first', async () => {
    const files: [string, Uint8Array][] = [0, 1, 511, 512, 513, 5000].map((n) => [`chains/f${n}.json`, enc('x'.repeat(n))]);
    const back = await unpack(await pack(files));
    expect(Object.keys(back)).toEqual(['chains/', ...files.map(([n]) => n)]);
    for (const [n, b] of files) expect(back[n]).toBe(Buffer.from(b).toString('utf8'));
  });

  it('writes archives GNU tar lists and extracts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-tar-'));
    writeFileSync(join(dir, 'a.tar'), await pack([['manifest.json', enc('{"a":1}\n')], ['policies/sha256-00', enc('permit')]]));
    expect(execFileSync('tar', ['-tf', join(dir, 'a.tar')], { encoding: 'utf8' }).split('\n').filter(Boolean)).toEqual(['manifest.json', 'policies/', 'policies/sha256-00']);
    execFileSync('tar', ['-xf', join(dir, 'a.tar'), '-C', dir]);
    expect(readFileSync(join(dir, 'policies', 'sha256-00'), 'utf8')).toBe('permit');
  });

  it('reads what GNU tar writes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-tar-'));
    writeFileSync(join(dir, 'checkpoint'), 'origin\n1\n');
    execFileSync('tar', ['--format=ustar', '-cf', join(dir, 'b.tar'), '-C', dir, 'checkpoint']);
    expect(await unpack(readFileSync(join(dir, 'b.tar')))).toEqual({ checkpoint: 'origin\n1\n' });
  });

  it('refuses a flipped header byte, a link, a truncated archive and a size lie', async () => {
    const good = await pack([['manifest.json', enc('hello')]]);
    const flipped = good.slice();
    flipped[3] ^= 1;
    await expect(unpack(flipped)).rejects.toMatchObject({ code: 'ERR_INPUT', message: expect.stringContaining('checksum') });
    const link = tarHeader('evil', 0, 'file');
    link[156] = 0x32; // symlink
    let sum = 0;
    link.fill(0x20, 148, 156);
    for (const b of link) sum += b;
    link.set(enc(sum.toString(8).padStart(6, '0') + '\0 '), 148);
    await expect(unpack(Buffer.concat([link, new Uint8Array(1024)]))).rejects.toMatchObject({ code: 'ERR_BUNDLE_FILE', message: expect.stringContaining('symbolic link') });
    await expect(unpack(good.subarray(0, 600))).rejects.toMatchObject({ code: 'ERR_INPUT' });
    const tar = createTarWriter(async () => undefined);
    await expect(tar.file('x', 3, [enc('four')])).rejects.toMatchObject({ code: 'ERR_INPUT' });
    await expect(tar.file('x', 5, [enc('four')])).rejects.toMatchObject({ code: 'ERR_INPUT' });
  });
});

describe('tar as GNU tar writes it', () => {
  const gnu = (format: string, files: Record<string, string>, extra: string[] = []) => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-tar-'));
    const src = join(dir, 'src');
    for (const [name, body] of Object.entries(files)) {
      mkdirSync(dirname(join(src, name)), { recursive: true });
      writeFileSync(join(src, name), body);
    }
    execFileSync('tar', [`--format=${format}`, ...extra, '-cf', join(dir, 'x.tar'), '-C', src, '.']);
    return readFileSync(join(dir, 'x.tar'));
  };
  const long = `policies/${'d'.repeat(120)}/sha256-${'0'.repeat(64)}`;

  it('reads gnu, pax and ustar archives, long names included, with ./ prefixes', async () => {
    for (const format of ['gnu', 'pax', 'posix']) {
      const back = await unpack(gnu(format, { checkpoint: 'c\n', [long]: 'permit' }), 1000);
      expect(back['./checkpoint'], format).toBe('c\n');
      expect(back[`./${long}`], format).toBe('permit');
    }
  });

  it('honours a pax size and path, and refuses a global header that renames everything', async () => {
    const back = await unpack(gnu('pax', { 'entries.jsonl': 'x'.repeat(700) }, ['--pax-option=mtime:=0']));
    expect(back['./entries.jsonl']).toHaveLength(700);
    const global = gnu('pax', { a: 'a' }, ['--pax-option=path=evil']);
    await expect(unpack(global)).rejects.toMatchObject({ code: 'ERR_BUNDLE_FILE' });
  });

  it('names what it refuses: hard links, fifos, devices', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-tar-'));
    writeFileSync(join(dir, 'checkpoint'), 'c');
    linkSync(join(dir, 'checkpoint'), join(dir, 'again'));
    execFileSync('tar', ['-cf', join(dir, 'h.tar'), '-C', dir, 'checkpoint', 'again']);
    await expect(unpack(readFileSync(join(dir, 'h.tar')))).rejects.toMatchObject({ code: 'ERR_BUNDLE_FILE', message: expect.stringContaining('hard link') });
    execFileSync('mkfifo', [join(dir, 'f')]);
    execFileSync('tar', ['-cf', join(dir, 'f.tar'), '-C', dir, 'f']);
    await expect(unpack(readFileSync(join(dir, 'f.tar')))).rejects.toMatchObject({ code: 'ERR_BUNDLE_FILE', message: expect.stringContaining('fifo') });
    const dev = tarHeader('null', 0, 'file');
    dev[156] = 0x33; // character device
    dev.fill(0x20, 148, 156);
    let sum = 0;
    for (const b of dev) sum += b;
    dev.set(enc(sum.toString(8).padStart(6, '0') + '\0 '), 148);
    await expect(unpack(Buffer.concat([dev, new Uint8Array(1024)]))).rejects.toMatchObject({ code: 'ERR_BUNDLE_FILE', message: expect.stringContaining('character device') });
  });

  it('caps the entries of an archive and the size of its extended headers', async () => {
    const many = await pack(Array.from({ length: 5 }, (_, i) => [`f${i}`, enc('x')] as [string, Uint8Array]));
    const it = readTar((async function* () { yield many; })(), { maxEntries: 3 });
    await expect((async () => { for await (const x of it) for await (const _ of x.body); })()).rejects.toMatchObject({ code: 'ERR_BUNDLE_LIMIT' });
    const bigPax = gnu('pax', { ['n'.repeat(200)]: 'x' });
    const small = readTar((async function* () { yield bigPax; })(), { maxHeaderBytes: 100 });
    await expect((async () => { for await (const x of small) for await (const _ of x.body); })()).rejects.toMatchObject({ code: 'ERR_BUNDLE_LIMIT' });
  });
});

describe('a tar stream as bundle files (CLI and browser)', () => {
  const chunks = (b: Uint8Array) => (async function* () { yield b; })();
  const hex = '0'.repeat(64);

  it('strips ./ and one wrapping directory, lists what the format lacks, refuses duplicates and ..', async () => {
    const wrapped = await pack([['b/manifest.json', enc('{}')], [`b/policies/sha256-${hex}`, enc('permit')], ['b/NOTES.txt', enc('trust me')], ['elsewhere/x', enc('x')]]);
    const got = await collectBundleTar(chunks(wrapped), { maxFiles: 100, maxTotal: 1 << 20 });
    expect([...got.files.keys()]).toEqual(['manifest.json', `policies/sha256-${hex}`]);
    expect(got.unknown).toEqual(['NOTES.txt', 'elsewhere/', 'elsewhere/x']);
    const twice = await pack([['manifest.json', enc('{}')], ['./manifest.json', enc('{"forged":1}')]]);
    await expect(collectBundleTar(chunks(twice), { maxFiles: 100, maxTotal: 1 << 20 })).rejects.toMatchObject({ code: 'ERR_BUNDLE_FILE', message: expect.stringContaining('twice') });
    const up = await pack([['checkpoint', enc('c')], ['x/../../etc/passwd', enc('x')]]);
    await expect(collectBundleTar(chunks(up), { maxFiles: 100, maxTotal: 1 << 20 })).rejects.toMatchObject({ code: 'ERR_BUNDLE_FILE', message: expect.stringContaining('outside the bundle') });
  });

  it('keeps no more than maxTotal bytes and maxFiles files', async () => {
    const big = await pack([['manifest.json', enc('x'.repeat(5000))]]);
    await expect(collectBundleTar(chunks(big), { maxFiles: 100, maxTotal: 4096 })).rejects.toMatchObject({ code: 'ERR_BUNDLE_LIMIT' });
    const many = await pack(Array.from({ length: 6 }, (_, i) => [`f${i}`, enc('x')] as [string, Uint8Array]));
    await expect(collectBundleTar(chunks(many), { maxFiles: 5, maxTotal: 1 << 20 })).rejects.toMatchObject({ code: 'ERR_BUNDLE_LIMIT', message: expect.stringContaining('more than 5 files') });
  });
});

describe('bundle base64', () => {
  it('matches the canonical encoder on every length and byte value', () => {
    for (let n = 0; n < 70; n++) {
      const b = Uint8Array.from({ length: n }, (_, i) => (i * 97 + n * 13) & 255);
      expect(encodeBase64(b)).toBe(toBase64(b));
      expect(decodeBase64(toBase64(b))).toEqual(b);
    }
  });

  it('refuses non-canonical and non-base64 text', () => {
    for (const bad of ['QQ', 'QR==', 'QUJ=', 'QU I=', 'Q===', '****', 'QUJDé===']) {
      expect(() => decodeBase64(bad), bad).toThrow(expect.objectContaining({ code: 'ERR_INPUT' }));
    }
  });
});
