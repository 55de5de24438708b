// The console's witness verdicts in a real browser (headless Chromium) against real processes:
// `vouch serve` as the log and two `vouch witness` processes on loopback. With the witnesses'
// vkeys pasted and K set, the page's receipt check and its bundle check name each witness that
// cosigned and the latest cosignature time, pass with K cosignatures and fail with K+1, and
// agree with `vouch verify --witness VKEY --min-witnesses K` on the same receipt and bundle. The
// newest checkpoint's panel lists each witness's cosignature lines and times.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCosignerVkeys, verifyWitnesses } from '../../src/witness/index.js';
import { BIN, ROOT, startServe, type ServeChild } from '../cli/_serve.js';
import { checkpointOf, decide, startLog, startWitness, until, type WitnessChild } from '../witness/_procs.js';
import { buildConsole, launchBrowser, OUTPUT } from './_browser.js';

const dir = mkdtempSync(join(tmpdir(), 'vouch-witness-console-'));
const logData = join(dir, 'log');
let log: ServeChild;
let w1: WitnessChild;
let w2: WitnessChild;
let browser: Browser;
let page: Page;
let seq: number;
let vkeyFile: string;
const witnessVkeys = () => [...w1.vkeys, ...w2.vkeys].join('\n');

/** The CLI as a child process, awaited (the event loop stays free for the browser and fetch). */
function vouch(args: string[]): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    c.stdout.on('data', (d) => (stdout += d));
    c.on('close', (status) => resolve({ status, stdout }));
  });
}

beforeAll(async () => {
  await buildConsole();
  const first = await startServe(['--port', '0', '--data', logData, '--checkpoint-idle', '0'], { timeoutMs: 120_000 });
  vkeyFile = join(dir, 'log.vkeys');
  writeFileSync(vkeyFile, await (await fetch(`${first.url}/.well-known/vouch/vkeys`)).text());
  await decide(first.url);
  const { origin } = await checkpointOf(first.url);
  await first.stop();
  [w1, w2] = await Promise.all([
    startWitness(join(dir, 'w1'), ['--name', 'w1.example/witness', '--log', `${origin}=${vkeyFile}`]),
    startWitness(join(dir, 'w2'), ['--name', 'w2.example/witness', '--log', `${origin}=${vkeyFile}`]),
  ]);
  log = await startLog(logData, [w1, w2]);
  seq = (await decide(log.url, 'witnessed')).seq;
  const keys = [...w1.vkeys, ...w2.vkeys].flatMap(parseCosignerVkeys);
  await until('both witnesses cosign', () => checkpointOf(log.url), (c) => c.size > seq && verifyWitnesses(c.checkpoint, keys, 2).ok);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.setDefaultTimeout(15_000);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await log?.stop();
  await Promise.all([w1?.stop(), w2?.stop()]);
});

/** Set the receipt panel's witness policy, press Verify, and read the verdict. */
async function receiptVerdict(vkeys: string, k: number): Promise<{ ok: string | null; verdict: string | null; witnesses: { cls: string | null; text: string | null } }> {
  await page.fill('#witness-vkeys', vkeys);
  await page.fill('#min-witnesses', String(k));
  await page.evaluate(() => document.querySelector('#verify-result')!.replaceChildren());
  await page.click('#verify-receipt');
  await page.waitForSelector('#verify-result .report');
  return {
    ok: await page.getAttribute('#verify-result .report', 'data-ok'),
    verdict: await page.textContent('#verify-result .verdict'),
    // The witnesses line, if the page made one (none without witness keys).
    witnesses: await page.$$eval('#verify-result li[data-check="witnesses"]', (ls) => ({ cls: ls[0]?.className ?? null, text: ls[0]?.textContent ?? null })),
  };
}

describe('witness verdicts in the audit console', () => {
  it("verifies a receipt's cosignatures in the browser: names both witnesses and the latest time with K=2, fails K=3, as vouch verify does", async () => {
    await page.goto(`${log.url}/audit`);
    await page.waitForSelector('body[data-ready="true"]');
    // The status bar says how far the newest witness cosignature is behind the newest checkpoint (issue 35).
    const bar = await page.textContent('#witnessed');
    expect(bar).toMatch(/^newest witness cosignature covers size \d+ \(\d+ entr(y|ies) behind the checkpoint.*\) at \d{4}-\d\d-\d\dT/);
    const served = (await (await fetch(`${log.url}/v1/checkpoint`)).json()) as { witnessed: { size: number } };
    expect(Number(/covers size (\d+)/.exec(bar!)![1])).toBeLessThanOrEqual(served.witnessed.size);
    // The newest checkpoint's panel (issue 37): each witness's cosignature lines with their times, beside the log's own signatures.
    await page.waitForSelector('#checkpoint-panel #cp-lines tr[data-kind="witness"]', { timeout: 25_000 });
    const cosigners = await page.$$eval('#cp-lines tr[data-kind="witness"]', (rs) => rs.map((r) => [r.children[0].textContent, r.children[2].textContent, /at (\S+)/.exec(r.children[3].textContent ?? '')?.[1]]));
    expect([...new Set(cosigners.map((c) => c[0]))].sort()).toEqual(['w1.example/witness', 'w2.example/witness']);
    expect(cosigners.map((c) => c[1]).sort()).toEqual(['Ed25519', 'Ed25519', 'ML-DSA-44', 'ML-DSA-44']);
    for (const c of cosigners) expect(c[2]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    expect(await page.getAttribute('#cp-signed', 'data-ok')).toBe('true');
    const witnessLine = await page.textContent('#cp-witness');
    expect(witnessLine).toMatch(/newest witness cosignature covers size \d+/);
    for (const w of ['w1.example/witness', 'w2.example/witness']) expect(witnessLine).toContain(w);
    await page.locator('#checkpoint-panel').screenshot({ path: join(OUTPUT, 'console-checkpoint-witnessed.png') });
    await page.click(`#rows tr[data-seq="${seq}"]`);
    await page.waitForSelector(`#decision-view[data-seq="${seq}"]`);
    const receipt = JSON.parse(await page.inputValue('#receipt-json'));
    const rf = join(dir, 'receipt.json');
    writeFileSync(rf, JSON.stringify(receipt));
    const w2file = join(dir, 'w2.vkeys');
    writeFileSync(w2file, w2.vkeys.join('\n') + '\n');
    const cliArgs = ['verify', rf, '--key', vkeyFile, ...w1.vkeys.flatMap((v) => ['--witness', v]), '--witness', w2file];

    const two = await receiptVerdict(witnessVkeys(), 2);
    expect(two.ok).toBe('true');
    expect(two.verdict).toMatch(/; newest witness cosignature covers size \d+ \(0 entries behind the checkpoint\) at \d{4}-/);
    expect(two.witnesses.cls).toBe('good');
    const algs = '\\((?:Ed25519, ML-DSA-44|ML-DSA-44, Ed25519)\\)'; // both of each witness's cosignatures, in line order
    expect(two.witnesses.text).toMatch(new RegExp(`cosigned by 2 witness\\(es\\) \\(at least 2 required\\): w1\\.example/witness ${algs}, w2\\.example/witness ${algs}; latest cosignature \\d{4}-\\d\\d-\\d\\dT`));
    const cli2 = await vouch([...cliArgs, '--min-witnesses', '2']);
    expect(cli2.status).toBe(0);
    // The page's witness line is the CLI's.
    expect(cli2.stdout).toContain(two.witnesses.text!.replace(/^✓ witnesses /, ''));
    await page.locator('#decision-view').screenshot({ path: join(OUTPUT, 'console-receipt-witnessed.png') });

    const three = await receiptVerdict(witnessVkeys(), 3);
    expect(three.ok).toBe('false');
    expect(three.verdict).toMatch(/FAILED: witnesses/);
    expect(three.witnesses.cls).toBe('bad');
    expect(three.witnesses.text).toMatch(/2 of the trusted witnesses cosigned this checkpoint, 3 required/);
    expect((await vouch([...cliArgs, '--min-witnesses', '3'])).status).toBe(1);

    // Only w1's keys trusted: one witness, K=2 fails in both.
    const one = await receiptVerdict(w1.vkeys.join('\n'), 2);
    expect(one.ok).toBe('false');
    expect(one.witnesses.text).toMatch(/1 of the trusted witnesses cosigned this checkpoint, 2 required; cosigned by w1\.example\/witness/);
    // No witness keys: no witness check at all (as vouch verify without --witness).
    const none = await receiptVerdict('', 1);
    expect(none.ok).toBe('true');
    expect(none.witnesses.cls).toBeNull();
  }, 90_000);

  it('checks a bundle with the same witness policy: passes with K=2 (naming both), fails with K=3', async () => {
    const res = await fetch(`${log.url}/v1/export`);
    expect(res.status).toBe(200);
    const file = join(dir, 'bundle.tar.gz');
    writeFileSync(file, new Uint8Array(await res.arrayBuffer()));
    for (const [k, ok] of [[2, true], [3, false]] as const) {
      await page.fill('#bundle-witness-vkeys', witnessVkeys());
      await page.fill('#bundle-min-witnesses', String(k));
      await page.evaluate(() => document.querySelector('#bundle-result')?.remove());
      await page.setInputFiles('#bundle-file', []);
      await page.setInputFiles('#bundle-file', file);
      await page.waitForSelector('#bundle-result', { timeout: 25_000 });
      expect(await page.getAttribute('#bundle-result', 'data-ok')).toBe(String(ok));
      const line = await page.textContent('#bundle-result .witnesses');
      if (ok) {
        expect(await page.getAttribute('#bundle-result', 'data-verdict')).toBe('clean');
        expect(line).toMatch(/^✓ witnesses: cosigned by 2 witness\(es\) \(at least 2 required\): w1\.example\/witness .*w2\.example\/witness .*latest cosignature \d{4}-/);
        await page.locator('#bundle-panel').screenshot({ path: join(OUTPUT, 'console-bundle-witnessed.png') });
      } else {
        expect(await page.textContent('#bundle-result .verdict')).toMatch(/FAILED: witnesses/);
        expect(line).toMatch(/^✗ witnesses: 2 of the trusted witnesses cosigned this checkpoint, 3 required/);
      }
      const cli = await vouch(['verify', file, '--key', vkeyFile, '--witness', join(dir, 'w2.vkeys'), ...w1.vkeys.flatMap((v) => ['--witness', v]), '--min-witnesses', String(k), '--no-replay']);
      expect(cli.status).toBe(ok ? 0 : 1);
    }
  }, 120_000);
});
