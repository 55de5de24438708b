// Bundles as hostile input (issue 15 item 6): an attacker hands the auditor a crafted bundle made
// from a real export. Bombs, links, fifos and devices are refused fast (exit 3, a coded error) in
// bounded memory with nothing written to /tmp; unknown files are reported; GNU re-packs verify.
import { execFile, execFileSync } from 'node:child_process';
import { closeSync, cpSync, createWriteStream, lstatSync, mkdirSync, openSync, truncateSync, writeSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTarGzSink, openBundle } from '../../src/audit/node-bundle.js';
import { main } from '../../src/cli/main.js';
import { loadKeys } from '../../src/store/node.js';
import { captureIo, generateLog } from '../audit/_generate.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MiB = 1 << 20;
let work: string;
let bundle: string; // a real exported directory bundle, with payloads
let keyFile: string;

async function vouch(...argv: string[]) {
  const c = captureIo();
  const code = await main(argv, c.io);
  return { code, out: c.text(), err: c.errText() };
}

/** `vouch verify ...` in a child under /usr/bin/time -v (peak RSS), with its own empty TMPDIR. */
function child(...argv: string[]): Promise<{ code: number | null; out: string; err: string; rssMiB: number; seconds: number; tmpFiles: string[]; tmpBytes: number }> {
  const tmp = mkdtempSync(join(work, 'tmp-'));
  const t0 = Date.now();
  return new Promise((resolve) => {
    // coreutils timeout kills vouch itself after 45 s (the old code read /dev/zero for ever); time -v still reports its peak RSS.
    execFile('/usr/bin/time', ['-v', 'timeout', '-s', 'KILL', '45', process.execPath, 'bin/vouch.js', 'verify', ...argv], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, TMPDIR: tmp } }, (e, stdout, stderr) => {
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      resolve({
        code: e ? (typeof e.code === 'number' ? e.code : null) : 0,
        out: stdout,
        err: stderr,
        rssMiB: rss ? Number(rss[1]) / 1024 : NaN,
        seconds: (Date.now() - t0) / 1000,
        // tsx keeps its compile cache there (tsx-<uid>): anything else would be the bundle.
        tmpFiles: readdirSync(tmp).filter((f) => !/^tsx-\d+$/.test(f)),
        tmpBytes: du(tmp),
      });
    });
  });
}

function du(path: string): number {
  const st = lstatSync(path);
  return st.isDirectory() ? readdirSync(path).reduce((n, f) => n + du(join(path, f)), 0) : st.size;
}

/** A copy of the real bundle to tamper with. */
function copyBundle(name: string): string {
  const to = join(work, name);
  cpSync(bundle, to, { recursive: true });
  return to;
}

/** The real bundle's files as a .tar.gz, with `entries.jsonl` replaced by `entries` (any size). */
async function tarGzWith(name: string, entries: { size: number; chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array> }, extra: Record<string, string> = {}): Promise<string> {
  const file = join(work, name);
  const sink = createTarGzSink(createWriteStream(file));
  for (const f of ['manifest.json', 'README.md', 'keys.json', 'checkpoint', 'range.json']) {
    const b = readFileSync(join(bundle, f));
    await sink.file(f, b.length, [b]);
  }
  for (const [f, body] of Object.entries(extra)) await sink.file(f, Buffer.byteLength(body), [Buffer.from(body)]);
  await sink.file('entries.jsonl', entries.size, entries.chunks);
  await sink.finish();
  return file;
}

function* repeat(byte: number, total: number): Iterable<Uint8Array> {
  const chunk = Buffer.alloc(MiB, byte);
  for (let left = total; left > 0; left -= MiB) yield left >= MiB ? chunk : chunk.subarray(0, left);
}

beforeAll(async () => {
  const g = await generateLog(40, { concurrency: 20 });
  await g.close();
  work = mkdtempSync(join(tmpdir(), 'vouch-hostile-'));
  keyFile = join(work, 'trusted.vkey');
  writeFileSync(keyFile, loadKeys(g.dir, 'vouch.local/default').keys.map((k) => k.vkey).join('\n') + '\n'); // the log's keys, under its origin
  bundle = join(work, 'bundle');
  expect((await vouch('export', '--data', g.dir, '--payloads', '-o', bundle)).code).toBe(0);
  const clean = await vouch('verify', bundle, '--key', keyFile, '--json');
  expect(clean.code, clean.out).toBe(0);
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a gzip bomb: 1 GiB entries.jsonl without a newline in a ~1 MiB .tar.gz', () => {
  it('fails fast with ERR_BUNDLE_LIMIT (exit 3), under 256 MiB RSS, writing nothing to TMPDIR', async () => {
    const bomb = await tarGzWith('bomb.tar.gz', { size: 1 << 30, chunks: repeat(0x41, 1 << 30) });
    const r = await child(bomb, '--key', keyFile);
    expect(r.code, r.err).toBe(3);
    expect(r.err).toContain('ERR_BUNDLE_LIMIT');
    expect(r.err).toMatch(/entries\.jsonl has a line longer than/);
    expect(r.rssMiB).toBeLessThan(256);
    expect(r.seconds).toBeLessThan(30);
    expect(r.tmpFiles).toEqual([]);
    expect(r.tmpBytes).toBeLessThan(32 * MiB);
    console.log(`bomb: ${(readFileSync(bomb).length / MiB).toFixed(2)} MiB compressed, refused in ${r.seconds.toFixed(1)} s at ${r.rssMiB.toFixed(0)} MiB max RSS, ${r.tmpBytes} bytes in TMPDIR (tsx cache)`);
  }, 120_000);

  it('a bomb of short lines is stopped by the decompression ratio, in bounded memory', async () => {
    const bomb = await tarGzWith('newlines.tar.gz', { size: 256 * MiB, chunks: repeat(0x0a, 256 * MiB) });
    const r = await child(bomb, '--key', keyFile, '--json');
    expect(r.code, r.err).toBe(3);
    expect(r.err).toMatch(/ERR_BUNDLE_LIMIT.*times its compressed size/);
    expect(JSON.parse(r.out)).toMatchObject({ ok: false, error: { code: 'ERR_BUNDLE_LIMIT' } });
    expect(r.rssMiB).toBeLessThan(256);
    expect(r.tmpFiles).toEqual([]);
    expect(r.tmpBytes).toBeLessThan(32 * MiB);
  }, 120_000);

  it('caps total decompressed bytes, files, small files and lines (limits are the caller\'s to lower)', async () => {
    const tgz = await tarGzWith('plain.tar.gz', { size: 4 * MiB, chunks: repeat(0x0a, 4 * MiB) });
    await expect(openBundle(tgz, { maxTotal: 2 * MiB })).rejects.toMatchObject({ code: 'ERR_BUNDLE_LIMIT', message: expect.stringContaining('decompresses to more than') });
    await expect(openBundle(tgz, { maxFiles: 3 })).rejects.toMatchObject({ code: 'ERR_BUNDLE_LIMIT' });
    await expect(openBundle(bundle, { maxFiles: 3 })).rejects.toMatchObject({ code: 'ERR_BUNDLE_LIMIT', message: expect.stringContaining('more than 3 files') });
    await expect(openBundle(bundle, { maxSmallFile: 100 })).rejects.toMatchObject({ code: 'ERR_BUNDLE_LIMIT', message: expect.stringContaining('larger than 100 bytes') });
    await expect(openBundle(bundle, { maxLine: 100 })).rejects.toMatchObject({ code: 'ERR_BUNDLE_LIMIT', message: expect.stringContaining('line longer than 100') });
  });
});

describe('a bundle directory that is not only regular files', () => {
  it('entries.jsonl as a symlink to /dev/zero is refused at once (exit 3), not read forever', async () => {
    const dir = copyBundle('zero');
    rmSync(join(dir, 'entries.jsonl'));
    symlinkSync('/dev/zero', join(dir, 'entries.jsonl'));
    const r = await child(dir, '--key', keyFile);
    expect(r.code, r.err).toBe(3);
    expect(r.err).toMatch(/ERR_BUNDLE_FILE.*entries\.jsonl.*symbolic link/);
    expect(r.seconds).toBeLessThan(30);
  }, 60_000);

  it('a symlink to a genuine file elsewhere, a linked chains/ directory and a fifo are refused too', async () => {
    const elsewhere = copyBundle('elsewhere');
    const a = copyBundle('link-real');
    rmSync(join(a, 'checkpoint'));
    symlinkSync(join(elsewhere, 'checkpoint'), join(a, 'checkpoint'));
    expect(await vouch('verify', a, '--key', keyFile)).toMatchObject({ code: 3, err: expect.stringMatching(/ERR_BUNDLE_FILE.*checkpoint.*symbolic link/) });
    const b = copyBundle('link-dir');
    rmSync(join(b, 'chains'), { recursive: true });
    symlinkSync(join(elsewhere, 'chains'), join(b, 'chains'));
    expect(await vouch('verify', b, '--key', keyFile)).toMatchObject({ code: 3, err: expect.stringMatching(/ERR_BUNDLE_FILE.*chains.*symbolic link/) });
    const c = copyBundle('fifo');
    rmSync(join(c, 'payloads.jsonl'));
    execFileSync('mkfifo', [join(c, 'payloads.jsonl')]);
    expect(await vouch('verify', c, '--key', keyFile)).toMatchObject({ code: 3, err: expect.stringMatching(/ERR_BUNDLE_FILE.*payloads\.jsonl.*fifo/) });
  });

  it('a .tar.gz that is really /dev/zero or a fifo is refused, not read', async () => {
    const dev = join(work, 'zero.tar.gz');
    symlinkSync('/dev/zero', dev);
    expect(await vouch('verify', dev, '--key', keyFile)).toMatchObject({ code: 3, err: expect.stringMatching(/ERR_BUNDLE_FILE.*character device/) });
    const fifo = join(work, 'fifo.tar.gz');
    execFileSync('mkfifo', [fifo]);
    expect(await vouch('verify', fifo, '--key', keyFile)).toMatchObject({ code: 3, err: expect.stringMatching(/ERR_BUNDLE_FILE.*fifo/) });
  });

  it('a sparse 1 GiB entries.jsonl (a directory\'s gzip bomb: lines every 8 MiB, few blocks on disk) is refused (exit 3)', async () => {
    const dir = copyBundle('sparse');
    const f = join(dir, 'entries.jsonl');
    truncateSync(f, 1 << 30);
    const fd = openSync(f, 'r+');
    for (let at = 8 * MiB; at < 1 << 30; at += 8 * MiB) writeSync(fd, '\n', at);
    closeSync(fd);
    const r = await vouch('verify', dir, '--key', keyFile);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/ERR_BUNDLE_LIMIT.*entries\.jsonl is sparse/);
  });

  it('a 20 MiB line in a directory bundle is refused before verification (exit 3)', async () => {
    const dir = copyBundle('long-line');
    writeFileSync(join(dir, 'entries.jsonl'), Buffer.alloc(20 * MiB, 0x41));
    const r = await vouch('verify', dir, '--key', keyFile);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/ERR_BUNDLE_LIMIT.*entries\.jsonl has a line longer than 16777216 bytes/);
  });
});

describe('a .tar.gz holding links, devices, duplicates or paths outside the bundle', () => {
  it('refuses a symlink, a hard link and a device by their tar entry types (exit 3)', async () => {
    const cases: [string, RegExp][] = [['symlink', /symbolic link/], ['hardlink', /hard link/], ['device', /character device/]];
    for (const [kind, message] of cases) {
      const dir = copyBundle(`tar-${kind}`);
      rmSync(join(dir, 'entries.jsonl'));
      if (kind === 'symlink') symlinkSync('/dev/zero', join(dir, 'entries.jsonl'));
      const file = join(work, `${kind}.tar.gz`);
      if (kind === 'hardlink') {
        // entries.jsonl hard-linked to the checkpoint: tar stores the second as a link entry.
        execFileSync('ln', [join(dir, 'checkpoint'), join(dir, 'entries.jsonl')]);
        execFileSync('tar', ['czf', file, '-C', dir, '.']);
      } else if (kind === 'device') {
        execFileSync('tar', ['czf', file, '-C', dir, '.', '-C', '/', 'dev/null', '--transform', 's,^dev/null$,entries.jsonl,']);
      } else execFileSync('tar', ['czf', file, '-C', dir, '.']);
      const r = await vouch('verify', file, '--key', keyFile);
      expect(r.code, `${kind}: ${r.out} ${r.err}`).toBe(3);
      expect(r.err, kind).toMatch(new RegExp(`ERR_BUNDLE_FILE.*${message.source}`));
    }
  });

  it('refuses a second entries.jsonl (which copy counts would depend on the tool) and a path with ..', async () => {
    const genuine = readFileSync(join(bundle, 'entries.jsonl'));
    const twice = await tarGzWith('twice.tar.gz', { size: genuine.length, chunks: [genuine] }, { 'entries.jsonl': '{"seq":0,"entry":""}\n' });
    const r = await vouch('verify', twice, '--key', keyFile);
    expect(r.code, r.out + r.err).toBe(3);
    expect(r.err).toMatch(/ERR_BUNDLE_FILE.*entries\.jsonl.*twice/);
    const up = await tarGzWith('dotdot.tar.gz', { size: genuine.length, chunks: [genuine] }, { '../evil': 'x' });
    expect(await vouch('verify', up, '--key', keyFile)).toMatchObject({ code: 3, err: expect.stringMatching(/ERR_BUNDLE_FILE.*outside the bundle/) });
  });
});

describe('files the format does not have', () => {
  it('are reported in text and JSON, in a directory and in a .tar.gz', async () => {
    const dir = copyBundle('extra');
    writeFileSync(join(dir, 'VERIFIED-BY-AUDITOR.txt'), 'all good, trust me\n');
    writeFileSync(join(dir, 'chains', 'notes.json'), '{}');
    mkdirSync(join(dir, 'more'));
    writeFileSync(join(dir, 'more', 'entries.jsonl'), 'x');
    const text = await vouch('verify', dir, '--key', keyFile);
    expect(text.code).toBe(1);
    expect(text.out).toContain('[files] VERIFIED-BY-AUDITOR.txt is not part of the bundle format');
    expect(text.out).toContain('[files] chains/notes.json');
    expect(text.out).toContain('[files] more/');
    const json = JSON.parse((await vouch('verify', dir, '--key', keyFile, '--json')).out);
    expect(json.ok).toBe(false);
    expect(json.findings.filter((f: { check: string }) => f.check === 'files').map((f: { message: string }) => f.message.split(' ')[0])).toEqual(['VERIFIED-BY-AUDITOR.txt', 'chains/notes.json', 'more/']);
    const file = join(work, 'extra.tar.gz');
    execFileSync('tar', ['czf', file, '-C', dir, '.']);
    const t = JSON.parse((await vouch('verify', file, '--key', keyFile, '--json')).out);
    expect(t.findings.filter((f: { check: string }) => f.check === 'files').map((f: { message: string }) => f.message.split(' ')[0])).toEqual(['VERIFIED-BY-AUDITOR.txt', 'chains/notes.json', 'more/', 'more/entries.jsonl'].sort());
    // Everything else about the bundle still verifies.
    expect(t.findings.every((f: { check: string }) => f.check === 'files')).toBe(true);
  });
});

describe('a bundle re-packed with GNU tar', () => {
  it('verifies like the exported directory: ./ prefixes, a wrapping directory, gnu, pax and ustar formats', async () => {
    const parent = join(work, 'repack');
    mkdirSync(parent);
    cpSync(bundle, join(parent, 'audit-2026-03'), { recursive: true });
    const packs: [string, string[]][] = [
      ['dot.tar.gz', ['czf', '-', '-C', bundle, '.']],
      ['wrapped.tar.gz', ['czf', '-', '-C', parent, 'audit-2026-03']],
      ['pax.tar.gz', ['--format=pax', '-czf', '-', '-C', bundle, '.']],
      ['ustar.tgz', ['--format=ustar', '-czf', '-', '-C', bundle, '.']],
      ['sorted.tar.gz', ['--sort=name', '-czf', '-', '-C', bundle, '.']],
    ];
    const want = JSON.parse((await vouch('verify', bundle, '--key', keyFile, '--json')).out);
    for (const [name, args] of packs) {
      const file = join(work, name);
      writeFileSync(file, execFileSync('tar', args, { maxBuffer: 1 << 30 }));
      const r = await vouch('verify', file, '--key', keyFile, '--json');
      expect(r.code, `${name}: ${r.out}${r.err}`).toBe(0);
      const got = JSON.parse(r.out);
      expect(got.findings, name).toEqual([]);
      expect(got.entries, name).toBe(want.entries);
      expect(got.replay, name).toEqual(want.replay);
    }
  });

  it('a re-pack that changed a byte is still a finding, and a bare .tar (not gzip) gets its own message', async () => {
    const dir = copyBundle('repack-changed');
    const cp = readFileSync(join(dir, 'range.json'), 'utf8');
    writeFileSync(join(dir, 'range.json'), cp.replace(/"prevLeaf": "0/, '"prevLeaf": "1'));
    const file = join(work, 'changed.tar.gz');
    execFileSync('tar', ['czf', file, '-C', dir, '.']);
    const r = await vouch('verify', file, '--key', keyFile);
    expect(r.code).toBe(1);
    expect(r.out).toContain('[range]');
    const bare = join(work, 'bare.tar.gz');
    execFileSync('tar', ['cf', bare, '-C', bundle, '.']);
    const b = await vouch('verify', bare, '--key', keyFile);
    expect(b.code).toBe(1);
    expect(b.out).toMatch(/does not decompress/);
  });
});
