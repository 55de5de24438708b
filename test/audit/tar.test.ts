// The bundle tar writer and reader: round trip, GNU tar interop, and refusal of what a bundle
// never holds (links, bad checksums, truncation).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeBase64, encodeBase64 } from '../../src/audit/_base64.js';
import { createTarWriter, readTar, tarHeader } from '../../src/audit/index.js';
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
    await expect(unpack(Buffer.concat([link, new Uint8Array(1024)]))).rejects.toMatchObject({ message: expect.stringContaining('not allowed') });
    await expect(unpack(good.subarray(0, 600))).rejects.toMatchObject({ code: 'ERR_INPUT' });
    const tar = createTarWriter(async () => undefined);
    await expect(tar.file('x', 3, [enc('four')])).rejects.toMatchObject({ code: 'ERR_INPUT' });
    await expect(tar.file('x', 5, [enc('four')])).rejects.toMatchObject({ code: 'ERR_INPUT' });
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
