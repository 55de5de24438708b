// Issue 14 item 5, in a real browser: a page on another origin, in headless Chromium, cannot
// activate a policy or make a decision on the local service, by simple request or by CORS. The
// requests without a browser are in test/security/web-origin.test.ts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, testServer } from '../http/_server.js';
import { launchBrowser } from './_browser.js';

const PERMIT_ALL = `version: 1\npolicies: { inline: { policies: 'permit(principal, action, resource);' } }\ninterceptors: [{ name: authz, use: cedar-policy }]\n`;
const DANGEROUS = { event: 'tools/call', phase: 'request', payload: { name: 'dangerous_tool', arguments: {} } };

let dev: Awaited<ReturnType<typeof testServer>>;
beforeAll(async () => {
  dev = await testServer();
});
afterAll(async () => {
  await dev?.close();
});

const stillDenied = async (url: string) => {
  const r = await post(`${url}/v1/authorize`, DANGEROUS);
  expect(r.status).toBe(200);
  expect(r.json.effect).toBe('deny');
};

describe('a real browser on another origin (Chromium)', () => {
  let page: Server;
  let pageUrl: string;
  beforeAll(async () => {
    // The attacker's page: served from another port, so another origin than the service's.
    page = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>cat pictures</title>'));
    await new Promise<void>((r) => page.listen(0, '127.0.0.1', () => r()));
    pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => page.close(() => r()));
  });

  it('cannot activate a policy or make a decision, by simple request or by CORS', async () => {
    const size = async () => (await get(`${dev.url}/v1/checkpoint`)).json.size as number;
    const before = await size();
    const browser = await launchBrowser();
    try {
      const tab = await browser.newPage();
      await tab.goto(pageUrl);
      const outcome = await tab.evaluate(
        async ({ service, config, decision }) => {
          const out: string[] = [];
          // The reproduction: a "simple" request, no preflight; the page cannot read the answer.
          await fetch(`${service}/v1/policy`, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ config }) }).then(() => out.push('sent'), (e) => out.push(`error ${e}`));
          await fetch(`${service}/v1/authorize`, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: JSON.stringify(decision) }).then(() => out.push('sent'), (e) => out.push(`error ${e}`));
          // With CORS: the preflight is refused, so the POST never goes out.
          await fetch(`${service}/v1/policy`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ config }) }).then((r) => out.push(`read ${r.status}`), () => out.push('blocked'));
          return out;
        },
        { service: dev.url, config: PERMIT_ALL, decision: DANGEROUS },
      );
      expect(outcome[2]).toBe('blocked');
    } finally {
      await browser.close();
    }
    expect(await size()).toBe(before); // neither the policy nor the decision was recorded
    await stillDenied(dev.url);
  }, 60_000);
});

