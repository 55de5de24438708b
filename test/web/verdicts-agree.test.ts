// Issue 15, "done when": `vouch log verify` (the data directory), `vouch verify BUNDLE` (a bundle
// exported from it, keys pinned) and the audit console in Chromium (the same bundle dropped into
// the page of a server holding those keys) give the same verdict on each of the file-level
// attacker's cases: untouched, an entry rewritten and relinked, the ML-DSA-65 lines stripped from
// every stored checkpoint, the newest entries cut with their checkpoints. A cut is invisible to all
// three on their own, and each says so (the bundle and the page: truncation not checked).
import { cpSync, createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTarGzSink } from '../../src/audit/node-bundle.js';
import { main } from '../../src/cli/main.js';
import { startServer, type RunningServer } from '../../src/http/node-server.js';
import { logPath } from '../../src/store/node.js';
import { captureIo } from '../audit/_generate.js';
import { get, post } from '../http/_server.js';
import { forgeEntry, openAsAttacker } from '../security/_file-attacker.js';
import { stripPostQuantum } from '../security/_forge.js';
import { buildConsole, launchBrowser } from './_browser.js';

let dir: string;
let honest: string;
let s: RunningServer;
let browser: Browser;
let page: Page;
let jwks: string;

const decide = (url: string, name: string) => post(`${url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name, arguments: { text: 'hi' } } });

async function vouch(...argv: string[]) {
  const c = captureIo();
  const code = await main(argv, c.io);
  return { code, out: c.text() };
}

/** The file attacker's cases, each a copy of the honest data directory. */
const CASES: Record<string, (db: string) => void> = {
  untouched: () => undefined,
  rewritten: (db) => void forgeEntry(db, 2, (e) => (e.decision.effect = 'allow')),
  stripped: (db) => {
    const h = openAsAttacker(db);
    const rows = h.prepare('SELECT size, note FROM checkpoints').all() as { size: number; note: string }[];
    for (const r of rows) h.prepare('UPDATE checkpoints SET note = ? WHERE size = ?').run(stripPostQuantum(r.note), r.size);
    h.close();
  },
  cut: (db) => {
    const h = openAsAttacker(db);
    const size = (h.prepare('SELECT MAX(seq) + 1 AS n FROM entries').get() as { n: number }).n;
    const keep = size - 2;
    h.prepare('DELETE FROM entries WHERE seq >= ?').run(keep);
    h.prepare('DELETE FROM checkpoints WHERE size > ?').run(keep);
    // Nodes of the cut leaves and every subtree that covered them.
    for (let level = 0; level < 64; level++) h.prepare('DELETE FROM nodes WHERE level = ? AND (idx + 1) * (1 << ?) > ?').run(level, level, keep);
    h.close();
    // The tile archive beside it (DATA/archive) holds the newer checkpoint, and `log verify` would
    // name the cut by it: this attacker edits every data file, so the archive goes too.
    rmSync(join(dirname(dirname(db)), 'archive'), { recursive: true, force: true });
  },
};

beforeAll(async () => {
  await buildConsole();
  dir = mkdtempSync(join(tmpdir(), 'vouch-agree-'));
  honest = join(dir, 'data');
  const first = await startServer({ data: honest, port: 0, idleCheckpointMs: 0 });
  await decide(first.url, 'echo'); // entry 0 is the policy entry, 1 this
  expect((await decide(first.url, 'dangerous_tool')).json.effect).toBe('deny'); // 2
  for (let i = 0; i < 4; i++) await decide(first.url, 'echo'); // 3..6
  await first.close();
  for (const [name, tamper] of Object.entries(CASES)) {
    cpSync(honest, join(dir, name), { recursive: true });
    tamper(logPath(join(dir, name), 'default'));
  }
  // The page of a server holding the same keys (it pins them), over the untouched directory.
  s = await startServer({ data: honest, port: 0, idleCheckpointMs: 0 });
  jwks = join(dir, 'jwks.json');
  writeFileSync(jwks, JSON.stringify((await get(`${s.url}/.well-known/vouch/keys`)).json));
  browser = await launchBrowser();
  page = await browser.newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(`${s.url}/audit`);
  await page.waitForSelector('#bundle-file');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await s?.close();
});

interface Verdicts {
  log: { ok: boolean; findings: string };
  bundle: { ok: boolean; verdict: string; truncation?: string; findings: string };
  page: { ok: boolean; verdict: string | null; truncation: string | null; text: string };
}

async function verdicts(name: string): Promise<Verdicts> {
  const data = join(dir, name);
  const lv = await vouch('log', 'verify', '--data', data, '--json');
  const lr = JSON.parse(lv.out);
  expect(lv.code).toBe(lr.ok ? 0 : 1);
  const file = join(dir, `${name}.tar.gz`);
  const ex = await vouch('export', '-o', file, '--data', data);
  expect(ex.code, ex.out).toBe(0);
  const bv = await vouch('verify', file, '--key', jwks, '--no-replay', '--json');
  const br = JSON.parse(bv.out);
  expect(bv.code).toBe(br.ok ? 0 : 1);
  await page.evaluate(() => document.querySelector('#bundle-result')?.remove());
  await page.setInputFiles('#bundle-file', file);
  await page.waitForSelector('#bundle-result', { timeout: 25_000 });
  return {
    log: { ok: lr.ok, findings: lr.logs.flatMap((l: { findings: { message: string }[] }) => l.findings.map((f) => f.message)).join('\n') },
    bundle: { ok: br.ok, verdict: br.verdict, truncation: br.truncation, findings: JSON.stringify(br.findings ?? br) },
    page: {
      ok: (await page.getAttribute('#bundle-result', 'data-ok')) === 'true',
      verdict: await page.getAttribute('#bundle-result', 'data-verdict'),
      truncation: await page.getAttribute('#bundle-result', 'data-truncation'),
      text: (await page.textContent('#bundle-result'))!,
    },
  };
}

describe('log verify, vouch verify BUNDLE and the console agree on the file attacker\'s cases', () => {
  it('untouched: all three clean; the bundle and the page say truncation: not checked', async () => {
    const v = await verdicts('untouched');
    expect([v.log.ok, v.bundle.ok, v.page.ok]).toEqual([true, true, true]);
    expect([v.bundle.verdict, v.page.verdict]).toEqual(['clean', 'clean']);
    expect([v.bundle.truncation, v.page.truncation]).toEqual(['not checked', 'not checked']);
  }, 60_000);

  it('an entry rewritten (deny to allow) and relinked, nodes rebuilt: all three fail on the root', async () => {
    const v = await verdicts('rewritten');
    expect([v.log.ok, v.bundle.ok, v.page.ok]).toEqual([false, false, false]);
    expect(v.log.findings).toMatch(/root/);
    expect(v.bundle.findings).toMatch(/root/);
    expect(v.page.text).toMatch(/root/);
  }, 60_000);

  it('the ML-DSA-65 line stripped from every checkpoint: all three fail on the signature', async () => {
    const v = await verdicts('stripped');
    expect([v.log.ok, v.bundle.ok, v.page.ok]).toEqual([false, false, false]);
    // The log's own fsck is strict (every key of the log signs every checkpoint); the bundle and the page need one ML-DSA-65 signature.
    expect(v.log.findings).toMatch(/no signature line by vouch\.local\/default\+[0-9a-f]{8} \(ML-DSA-65\)/);
    for (const text of [v.bundle.findings, v.page.text]) expect(text).toMatch(/no valid ML-DSA-65 signature/);
  }, 60_000);

  it('the newest entries cut with their checkpoints: none of the three can see it, and the bundle and the page say so', async () => {
    const v = await verdicts('cut');
    expect([v.log.ok, v.bundle.ok, v.page.ok]).toEqual([true, true, true]);
    expect([v.bundle.truncation, v.page.truncation]).toEqual(['not checked', 'not checked']);
    expect(v.page.text).toMatch(/truncation: not checked/);
  }, 60_000);

  it('a gzip bomb (1 GiB entries.jsonl without a newline in a ~1 MiB .tar.gz): the CLI and the page refuse it with ERR_BUNDLE_LIMIT, fast', async () => {
    const file = join(dir, 'bomb.tar.gz');
    const sink = createTarGzSink(createWriteStream(file));
    const x = join(dir, 'untouched-x');
    expect((await vouch('export', '-o', x, '--data', join(dir, 'untouched'))).code).toBe(0); // the honest bundle's small files
    for (const f of ['manifest.json', 'README.md', 'keys.json', 'checkpoint', 'range.json']) {
      const b = readFileSync(join(x, f));
      await sink.file(f, b.length, [b]);
    }
    const MiB = 1 << 20;
    const chunk = Buffer.alloc(MiB, 0x41);
    await sink.file('entries.jsonl', 1 << 30, (function* () {
      for (let i = 0; i < 1024; i++) yield chunk;
    })());
    await sink.finish();
    const cli = await vouch('verify', file, '--key', jwks, '--json');
    expect(cli.code).toBe(3);
    expect(cli.out + JSON.stringify(cli)).toMatch(/ERR_BUNDLE_LIMIT/);
    const t0 = Date.now();
    await page.evaluate(() => document.querySelector('#bundle-result')?.remove());
    await page.setInputFiles('#bundle-file', file);
    await page.waitForSelector('#bundle-result', { timeout: 25_000 });
    expect(await page.getAttribute('#bundle-result', 'data-ok')).toBe('false');
    expect(await page.getAttribute('#bundle-result', 'data-code')).toBe('ERR_BUNDLE_LIMIT');
    // The page keeps at most 192 MiB of an archive's files in memory (the CLI streams them).
    expect(await page.textContent('#bundle-result')).toMatch(/more than 201326592 bytes/);
    // Refused at the tar header, before its bytes are read.
    expect(Date.now() - t0).toBeLessThan(20_000);
  }, 120_000);
});
