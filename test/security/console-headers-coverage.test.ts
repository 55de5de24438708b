// Attack on issue 35 item 4 (console CSP and framing headers). The console page reads
// /v1/entries/:seq, /v1/payloads/:digest (caller-chosen payload bytes, `<script>` and all),
// /v1/checkpoint and /v1/replay, but consoleHeaders() is mounted on `/v1/entries`, `/audit` and
// `/audit/*` only (src/http/routes-console.ts): those answers carry no nosniff, no
// frame-ancestors / X-Frame-Options, no CSP. Low: they are application/json, but the fix claims
// every console route; a payload route serving hostile text should at least be nosniff + CSP none.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fromBase64, utf8 } from '../../src/canonical/index.js';
import { post, testServer, writeConfig } from '../http/_server.js';

let s: Awaited<ReturnType<typeof testServer>>;
let seq = 0;
let digest = '';
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-atk-csp-'));
  s = await testServer({ config: writeConfig(dir, { version: 1, uncovered: [{ events: ['*'], phase: 'both' }], interceptors: [] }) });
  const r = await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { html: '<html><script>alert(document.domain)</script></html>' } } });
  seq = r.json.seq ?? JSON.parse(utf8.decode(fromBase64(r.json.receipt.entry))).seq;
  digest = JSON.parse(utf8.decode(fromBase64(r.json.receipt.entry))).input.digest;
}, 60_000);
afterAll(async () => {
  await s?.close();
});

it.each([
  ['/v1/entries/:seq', () => `/v1/entries/${seq}`],
  ['/v1/payloads/:digest', () => `/v1/payloads/${digest}`],
  ['/v1/checkpoint', () => '/v1/checkpoint'],
])('%s (read by the console page) carries the console headers', async (_n, path) => {
  const r = await fetch(`${s.url}${path()}`);
  expect(r.status).toBe(200);
  expect(r.headers.get('x-content-type-options')).toBe('nosniff');
  expect(r.headers.get('content-security-policy') ?? '').toContain("frame-ancestors 'none'");
});
