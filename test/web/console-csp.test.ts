// Issue 35 item 4. Attacker: a hostile web page in the operator's browser, and markup that finds
// its way into the console (the page builds its DOM from text nodes; this is the second layer).
// Every answer of a console route carries a Content-Security-Policy with no inline script or style
// and frame-ancestors 'none', X-Frame-Options DENY and nosniff; the built console still works under
// it in real Chromium (rows, an opened decision, styles applied, no violation), an injected inline
// script, event handler or style does not run, and another site cannot frame the console.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/http/node-server.js';
import { FIXTURE_CONFIG, requestOf } from '../audit/_generate.js';
import { post } from '../http/_server.js';
import { buildConsole, launchBrowser } from './_browser.js';

let s: RunningServer;
let browser: Browser;
let framer: Server;
let framerUrl: string;

beforeAll(async () => {
  await buildConsole();
  s = await startServer({ data: join(mkdtempSync(join(tmpdir(), 'vouch-csp-')), 'data'), port: 0, config: FIXTURE_CONFIG });
  for (const i of [0, 1, 2]) {
    const req = requestOf(i);
    expect((await post(`${s.url}/v1/authorize`, { event: req.event, phase: req.phase, payload: req.payload, context: { sessionId: req.context.sessionId } })).status).toBe(200);
  }
  // Another origin (another port) whose page frames the console.
  framer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><title>evil</title><iframe id="f" src="${s.url}/audit/"></iframe>`);
  });
  await new Promise<void>((r) => framer.listen(0, '127.0.0.1', () => r()));
  framerUrl = `http://127.0.0.1:${(framer.address() as AddressInfo).port}/`;
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await s?.close();
  await new Promise<void>((r) => (framer ? framer.close(() => r()) : r()));
});

const ROUTES = ['/audit', '/audit/', '/audit/index.html', '/audit/assets/console.js', '/audit/assets/style.css', '/audit/assets/nothing.js', '/audit/assets/x.exe', '/audit/.env', '/v1/entries', '/v1/entries?limit=x'];

describe('console response headers', () => {
  it.each(ROUTES)('%s carries the CSP, frame and sniffing headers', async (path) => {
    const r = await fetch(`${s.url}${path}`, { redirect: 'manual' });
    await r.arrayBuffer();
    const csp = r.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(r.headers.get('x-frame-options')).toBe('DENY');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('the built page has no inline script or style to allow', async () => {
    const html = await (await fetch(`${s.url}/audit/`)).text();
    expect(html).not.toMatch(/<style|<script(?![^>]*\bsrc=)|\sstyle=|\son[a-z]+=/i);
  });
});

describe('the console under its CSP in Chromium', () => {
  let page: Page;
  const violations: string[] = [];

  beforeAll(async () => {
    page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    await page.exposeFunction('__violation', (v: string) => void violations.push(v));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => (window as unknown as { __violation(v: string): void }).__violation(`${e.violatedDirective} ${e.blockedURI}`));
    });
    await page.goto(`${s.url}/audit/`);
  });

  it('works: rows load, a decision opens, the stylesheet applies, nothing is refused', async () => {
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForSelector('#rows tr.row');
    expect(await page.locator('#rows tr.row').count()).toBe(3);
    const seq = await page.locator('#rows tr.row').first().getAttribute('data-seq');
    await page.click(`#rows tr[data-seq="${seq}"]`);
    await page.waitForSelector(`#decision-view[data-seq="${seq}"]`);
    // From assets/style.css: body { margin: 0 }, header sticky.
    expect(await page.evaluate(() => getComputedStyle(document.body).margin)).toBe('0px');
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('header')!).position)).toBe('sticky');
    expect(violations).toEqual([]);
  });

  it('injected markup does not run: an inline script, an event handler, a javascript: URL, an inline style, an HTML sink', async () => {
    const ran = await page.evaluate(async () => {
      const w = window as unknown as Record<string, unknown>;
      // Each attempt either throws (Trusted Types refuses the sink) or is blocked when it would run.
      const attempt = (f: () => void): string => {
        try {
          f();
          return 'set';
        } catch {
          return 'refused';
        }
      };
      const script = attempt(() => {
        const s = document.createElement('script');
        s.textContent = 'window.__inline = 1';
        document.body.append(s);
      });
      const handler = attempt(() => {
        const img = document.createElement('img');
        img.setAttribute('onerror', 'window.__handler = 1');
        img.src = 'data:,x';
        document.body.append(img);
      });
      const url = attempt(() => {
        const a = document.createElement('a');
        a.href = 'javascript:window.__url = 1';
        document.body.append(a);
        a.click();
      });
      const d = document.createElement('div');
      d.setAttribute('style', 'position: absolute');
      document.body.append(d);
      const sink = attempt(() => void (d.innerHTML = '<img src=x onerror="window.__sink = 1">'));
      await new Promise((r) => setTimeout(r, 300));
      return { script, handler, url, sink, ran: [w.__inline, w.__handler, w.__url, w.__sink].filter((x) => x !== undefined).length, style: getComputedStyle(d).position };
    });
    // None of it ran; the HTML sinks are refused outright.
    expect(ran).toMatchObject({ script: 'refused', sink: 'refused', ran: 0, style: 'static' });
    expect(violations.length).toBeGreaterThanOrEqual(3);
  });

  it('another site cannot frame the console', async () => {
    const evil = await browser.newPage();
    try {
      await evil.goto(framerUrl);
      await evil.waitForTimeout(1000);
      const frame = evil.frames().find((f) => f !== evil.mainFrame());
      expect(frame).toBeDefined();
      // Blocked: Chromium shows its own error page in the frame, never the console.
      const hasConsole = await frame!.evaluate(() => document.querySelector('#rows') !== null).catch(() => false);
      expect(hasConsole).toBe(false);
    } finally {
      await evil.close();
    }
  });
});
