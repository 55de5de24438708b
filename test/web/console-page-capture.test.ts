// The console tests assert "no dialog, no CSP violation" (the attacker's markup ran nothing) with
// openConsolePage's records (_browser.ts): here a page that does raise both shows they are recorded,
// so an empty record means nothing happened, not that nothing was listening. Real Chromium.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConsolePage, type ConsolePage } from './_browser.js';

let server: Server;
let url: string;
let c: ConsolePage;

beforeAll(async () => {
  // A script from 'self' that alerts and reads the session token; an image from elsewhere the CSP refuses (never fetched).
  server = createServer((req, res) => {
    if (req.url === '/a.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end("document.title = sessionStorage.getItem('vouch.audit.token'); alert('ran');");
    res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': "default-src 'self'" }).end('<!doctype html><script src="/a.js"></script><img src="http://elsewhere.invalid/x.png">');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  c = await openConsolePage('the-audit-token');
}, 60_000);

afterAll(async () => {
  await c?.browser.close();
  await new Promise((r) => server?.close(r));
});

describe('openConsolePage', () => {
  it('logs in with the token and records every dialog and CSP violation the page raises', async () => {
    await c.page.goto(url);
    await expect.poll(() => c.violations.length).toBeGreaterThan(0);
    expect(await c.page.title()).toBe('the-audit-token');
    expect(c.dialogs).toEqual(['ran']);
    expect(c.violations[0]).toMatch(/^img-src http:\/\/elsewhere\.invalid\/x\.png$/);
  });
});
