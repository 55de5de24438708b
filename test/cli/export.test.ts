// vouch export and vouch verify BUNDLE through the CLI entry: directory and .tar.gz bundles,
// trusted keys, tamper evidence and exit codes (0 clean, 1 findings, 2 usage).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { loadKeys } from '../../src/store/node.js';
import { captureIo, generateLog } from '../audit/_generate.js';

let data: string;
let work: string;
let keyFile: string;
/** The origin of the `default` log of a fresh data directory, and the key name its checkpoints carry. */
const ORIGIN = 'vouch.local/default';

beforeAll(async () => {
  const g = await generateLog(150, { concurrency: 50 });
  await g.close();
  data = g.dir;
  work = mkdtempSync(join(tmpdir(), 'vouch-cli-export-'));
  keyFile = join(work, 'trusted.vkey');
  // The log's keys under the name its checkpoints are signed with: its origin.
  writeFileSync(keyFile, loadKeys(data, ORIGIN).keys.map((k) => k.vkey).join('\n') + '\n');
}, 120_000);

async function vouch(...argv: string[]) {
  const c = captureIo();
  const code = await main(argv, c.io);
  return { code, out: c.text(), err: c.errText() };
}

describe('vouch export', () => {
  it('writes a directory bundle that vouch verify finds clean, with a trusted key', async () => {
    const out = join(work, 'dir-bundle');
    const e = await vouch('export', '--data', data, '--payloads', '-o', out);
    expect(e.code).toBe(0);
    expect(e.out).toMatch(/exported vouch\.local\/default entries \[0, 151\) .*150 payloads \(0 erased\)/);
    const v = await vouch('verify-bundle', out, '--key', keyFile);
    expect(v.code).toBe(0);
    expect(v.out).toContain('replay: 150 decisions, 150 match');
    expect(v.out).toContain('verify bundle: clean');
    expect(v.out).not.toContain('came inside the bundle itself');
    // `vouch verify` hands a directory to the same command.
    const viaVerify = await vouch('verify', out, '--key', keyFile, '--json');
    expect(viaVerify.code).toBe(0);
    expect(JSON.parse(viaVerify.out)).toMatchObject({ ok: true, keysFrom: 'trusted key', entries: 151 });
  });

  it('writes a .tar.gz that GNU tar reads and vouch verify checks', async () => {
    const out = join(work, 'b.tar.gz');
    expect((await vouch('export', '--data', data, '--payloads', '--from', '20', '-o', out)).code).toBe(0);
    const listed = execFileSync('tar', ['-tzf', out], { encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(listed).toEqual(expect.arrayContaining(['manifest.json', 'README.md', 'keys.json', 'checkpoint', 'range.json', 'entries.jsonl', 'payloads.jsonl', 'chains/', 'policies/']));
    const unpinned = await vouch('verify', out, '--json');
    expect(unpinned.code).toBe(1); // keys not pinned: not a pass without --key or --trust-bundle-keys
    expect(JSON.parse(unpinned.out)).toMatchObject({ ok: false, verdict: 'self-consistent, keys not pinned', findings: [] });
    const v = await vouch('verify', out, '--trust-bundle-keys', '--json');
    expect(v.code).toBe(0);
    const r = JSON.parse(v.out);
    expect(r).toMatchObject({ ok: true, keysFrom: 'bundle', range: { from: 20, to: 151 }, replay: { match: 131 } });
    expect(r.notes.join(' ')).toContain('keys that came inside the bundle itself');
  });

  it('finds a flipped byte in a .tar.gz, and a bundle signed by another key', async () => {
    const out = join(work, 'flip.tar.gz');
    expect((await vouch('export', '--data', data, '-o', out)).code).toBe(0);
    const bytes = readFileSync(out);
    bytes[bytes.length >> 1] ^= 0x10;
    writeFileSync(out, bytes);
    const v = await vouch('verify', out);
    expect(v.code).toBe(1);
    expect(v.out).toContain('FAIL');
    const other = await generateLog(2, { concurrency: 2 });
    await other.close();
    const otherKey = join(work, 'other.vkey');
    writeFileSync(otherKey, loadKeys(other.dir, ORIGIN).keys[0].vkey + '\n'); // the same name, another key
    const w = await vouch('verify-bundle', join(work, 'dir-bundle'), '--key', otherKey, '--no-replay');
    expect(w.code).toBe(1);
    expect(w.out).toContain('[trusted-key]');
  });

  it('says when the bundle had to extend to the next signed checkpoint', async () => {
    const out = join(work, 'partial');
    const e = await vouch('export', '--data', data, '--from', '3', '--to', '7', '-o', out, '--json');
    expect(e.code).toBe(0);
    const { manifest } = JSON.parse(e.out);
    expect(manifest.range.from).toBe(3);
    expect(manifest.range.to).toBeGreaterThan(7);
    expect(manifest.requested).toEqual({ from: 3, to: 7 });
    expect(manifest.notes[0]).toContain('no checkpoint was signed at size 7');
  });

  it('refuses usage errors with exit 2 and bad ranges with exit 3', async () => {
    mkdirSync(join(work, 'full'));
    writeFileSync(join(work, 'full', 'x'), 'x');
    expect((await vouch('export', '--data', data, '-o', join(work, 'full'))).code).toBe(2);
    expect((await vouch('export', '--data', data)).code).toBe(2);
    expect((await vouch('export', '--data', data, '--tenant', 'nobody', '-o', join(work, 'n'))).code).toBe(2);
    expect((await vouch('export', '--data', data, '--from', '90', '--to', '10', '-o', join(work, 'r'))).code).toBe(3);
    expect(existsSync(join(work, 'r'))).toBe(false);
    expect((await vouch('verify-bundle', join(work, 'missing'))).code).toBe(2);
    expect((await vouch('verify-bundle')).code).toBe(2);
  });
});
