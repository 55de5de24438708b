// Issue 39 in the console, in real Chromium against a real server with bearer tokens: each enricher
// result of a decision is shown beside its step with the enricher's name, kind, score and claim
// counts from the signed entry, and the addition itself (the note the model read and the record)
// fetched from the payload store and checked against its digest; erased, it says so with the erasure
// entry's seq. Attackers: a hostile upstream whose tool result carries markup, quoted by a hostile
// remote enricher whose note and record carry their own (`<img onerror>`, `</script><script>`):
// shown as text, no element made of them, nothing run, no CSP violation.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/http/node-server.js';
import { ENRICHMENT_META } from '../../src/interceptors/_enrich-contract.js';
import type { Interceptor, Json } from '../../src/interceptors/types.js';
import { parseDeclaration } from '../../src/protocol/index.js';
import { startLegacyRemote, type RunningRemote } from '../interceptors/_remote-servers.js';
import { get, post, writeConfig } from '../http/_server.js';
import { OUTPUT, openConsolePage, startConsoleServer } from './_browser.js';

const UPSTREAM_TEXT = 'Quarterly numbers <img src=u onerror=alert(1)></script><script>alert(2)</script>';
const HOSTILE_NOTE = `checked <img src=x onerror=alert(3)></script><script>alert(4)</script>; the tool said: ${UPSTREAM_TEXT}`;
const HOSTILE_RECORD = { kind: 'claims', score: 0.25, counts: { claims: 4, supported: 1, contradicted: 3, unverified: 0 }, quote: '</script><svg onload=alert(5)>', checker: '<b>bold</b>' };

// The hostile enricher: it keeps to the contract (so its addition reaches the model) and writes markup into both parts.
const hostile: Interceptor = {
  descriptor: parseDeclaration({ name: 'check/hostile', type: 'mutation', events: ['tools/call'], phase: 'response', _meta: { 'io.vouch/role': 'enricher' } }),
  run(payload) {
    const r = payload as { content: Json[]; _meta?: Record<string, Json> };
    const quoted = (r.content[0] as { text: string }).text;
    return { modified: true, payload: { ...r, content: [...r.content, { type: 'text', text: `checked <img src=x onerror=alert(3)></script><script>alert(4)</script>; the tool said: ${quoted}`, annotations: { audience: ['assistant'] } }], _meta: { ...r._meta, [ENRICHMENT_META]: HOSTILE_RECORD } } };
  },
};

let remote: RunningRemote;
let s: RunningServer;
let browser: Browser;
let page: Page;
const tokens: Record<string, string> = {};
const H = (who: string) => ({ authorization: `Bearer ${tokens[who]}` });
let dialogs: string[];
let violations: string[];
let seq: number;
let digests: Record<string, string>;

beforeAll(async () => {
  remote = await startLegacyRemote([hostile]);
  const dir = mkdtempSync(join(tmpdir(), 'vouch-console-enrich-'));
  const config = writeConfig(dir, {
    version: 1,
    policies: { inline: { policies: 'permit(principal, action, resource);' } },
    interceptors: [{ name: 'authz', use: 'cedar-policy' }, { name: 'provenance', use: 'provenance-enricher' }, { name: 'checker', remote: { url: remote.url } }],
    uncovered: [{ events: ['tools/call'], phase: 'response' }],
    remoteInterceptors: { allow: [remote.url] },
  });
  const started = await startConsoleServer(join(dir, 'data'), config);
  s = started.server;
  for (const [who, roles] of [['audit', ['audit']], ['admin', ['admin', 'audit']], ['app', ['enforce']]] as const) tokens[who] = await started.issuer.token({ sub: who, tenant: 'default', roles: [...roles] });
  const r = await post(`${s.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'interceptor/executeChain', params: { event: 'tools/call', phase: 'response', payload: { content: [{ type: 'text', text: UPSTREAM_TEXT }] } } }, H('app'));
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  seq = r.json.result._meta['io.vouch/seq'];
  digests = Object.fromEntries((r.json.result.results as { interceptor: string; info?: { enrichment?: string } }[]).filter((x) => x.info?.enrichment).map((x) => [x.interceptor, x.info!.enrichment!]));
  expect(Object.keys(digests).sort()).toEqual(['check/hostile', 'provenance']);
  ({ browser, page, dialogs, violations } = await openConsolePage(tokens.audit));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await s?.close();
  await remote?.stop();
});

async function openDecision(): Promise<void> {
  await page.goto(`${s.url}/audit/`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.click(`#rows tr[data-seq="${seq}"]`);
  await page.waitForSelector(`#decision-view[data-seq="${seq}"] #verify-result .report`);
}

const hostileBlock = () => page.locator('#steps .enrichment[data-enricher="check/hostile"]');

describe('GET /v1/payloads/:digest/erasure', () => {
  it('is for the audit role of the tenant', async () => {
    const path = `${s.url}/v1/payloads/${encodeURIComponent(digests.provenance)}/erasure`;
    expect((await get(path, H('app'))).status).toBe(403);
    expect((await get(path)).status).toBe(401);
    const r = await get(path, H('audit'));
    expect([r.status, r.json.error.code]).toEqual([404, 'ERR_NOT_FOUND']);
  });
});

describe('the console shows each enricher result beside its step, in Chromium', () => {
  it('shows name, kind, score and counts from the entry, and the note and record from the payload store, checked against the digest', async () => {
    await openDecision();
    const block = hostileBlock();
    expect(await block.count()).toBe(1);
    const head = (await block.locator('> div').first().textContent())!;
    expect(head).toBe('enrichment by check/hostile kind claims · score 0.25 · claims: 4 claims, 1 supported, 3 contradicted, 0 unverified');
    expect(await block.textContent()).toContain(`digest ${digests['check/hostile']}`);
    expect(await block.locator('[data-digest-ok]').getAttribute('data-digest-ok')).toBe('true');
    // The note exactly as the model read it, and the record as JSON: text, whatever they hold.
    expect(await block.locator('pre.enrichment-note').textContent()).toBe(HOSTILE_NOTE);
    expect(JSON.parse((await block.locator('pre.enrichment-record').textContent())!)).toEqual(HOSTILE_RECORD);
    const prov = page.locator('#steps .enrichment[data-enricher="provenance"]');
    expect(await prov.locator('pre.enrichment-note').textContent()).toMatch(/^\[vouch provenance\] server /);
    expect(JSON.parse((await prov.locator('pre.enrichment-record').textContent())!)).toMatchObject({ kind: 'provenance' });
    // Beside its own step: the enrichment sits in the step of the enricher that wrote it.
    expect(await page.locator('#steps > li', { has: page.locator('.enrichment[data-enricher="check/hostile"]') }).locator('> b').textContent()).toMatch(/\d+\. check\/hostile$/);
    await page.locator('#steps').screenshot({ path: join(OUTPUT, 'console-enrichment.png') });
  });

  it('renders the hostile note, record and quoted tool result inert: no element made of them, nothing ran, no CSP violation', async () => {
    const made = await page.evaluate(() => ({
      img: document.querySelectorAll('img').length,
      svg: document.querySelectorAll('svg[onload], [onerror], [onload]').length,
      scripts: Array.from(document.querySelectorAll('script'), (x) => x.getAttribute('src')),
      bold: document.querySelectorAll('#steps b').length === document.querySelectorAll('#steps > li > b, .enrichment b').length,
    }));
    expect(made).toEqual({ img: 0, svg: 0, scripts: ['./assets/console.js'], bold: true });
    expect(dialogs).toEqual([]);
    expect(violations).toEqual([]);
  });

  it('says "erased" with the erasure entry\'s seq once the addition is erased, never an error', async () => {
    const res = await fetch(`${s.url}/v1/payloads/${encodeURIComponent(digests['check/hostile'])}?reason=${encodeURIComponent('data subject request')}`, { method: 'DELETE', headers: H('admin') });
    expect(res.status).toBe(200);
    const erased = (await res.json()) as { seq: number };
    await openDecision();
    const block = hostileBlock();
    const gone = block.locator('[data-enrichment="erased"]');
    expect(await gone.getAttribute('data-erasure')).toBe(String(erased.seq));
    expect(await gone.textContent()).toMatch(new RegExp(`^erased by entry #${erased.seq} \\(.+; at the request of admin; reason: data subject request\\): only its digest remains$`));
    expect(await block.locator('.bad').count()).toBe(0);
    // What the entry records still shows: it is signed, and no erasure touches it.
    expect(await block.locator('> div').first().textContent()).toContain('score 0.25');
    // The other enricher's addition is still there.
    expect(await page.locator('#steps .enrichment[data-enricher="provenance"] [data-enrichment="shown"]').count()).toBe(1);
    expect(dialogs).toEqual([]);
    expect(violations).toEqual([]);
    await page.locator('#steps').screenshot({ path: join(OUTPUT, 'console-enrichment-erased.png') });
  });
});
