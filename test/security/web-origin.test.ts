// Issue 14 item 5: a web page cannot drive the local service (or the gateway's HTTP listener).
// The attacker is a page on another origin: simple cross-site POSTs (text/plain, forms), JSON with
// a foreign Origin; and requests with no Origin (curl, SDKs). A real Chromium visiting the page:
// test/web/web-origin-browser.test.ts (test/web holds every test that drives Chromium).
import { spawnSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenGateway } from '../../src/mcp/gateway-http.js';
import { openGateway } from '../../src/mcp/gateway-node.js';
import { BIN } from '../reliability/_service.js';
import { makeWorkspace, everythingCmd, closeReplayed } from '../mcp/_gateway.js';
import { get, post, testIssuer, testServer } from '../http/_server.js';

const PERMIT_ALL = `version: 1\npolicies: { inline: { policies: 'permit(principal, action, resource);' } }\ninterceptors: [{ name: authz, use: cedar-policy }]\n`;
const DANGEROUS = { event: 'tools/call', phase: 'request', payload: { name: 'dangerous_tool', arguments: {} } };
const EVIL = 'http://evil.example';

/** A raw request: any content type, any Origin (fetch sets neither on its own here). */
async function raw(url: string, method: string, body: string | undefined, headers: Record<string, string>) {
  const res = await fetch(url, { method, headers: { accept: 'application/json, text/event-stream', ...headers }, body });
  const text = await res.text();
  let json: any = text;
  try {
    json = JSON.parse(text);
  } catch {
    /* text */
  }
  return { status: res.status, json, headers: res.headers };
}

/** A GET with exactly these headers (Node's fetch forces its own sec-fetch-mode). */
function getStatus(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

let dev: Awaited<ReturnType<typeof testServer>>;
beforeAll(async () => {
  dev = await testServer();
});
afterAll(async () => {
  await dev?.close();
});

const sizeOf = async (url: string) => (await get(`${url}/v1/checkpoint`)).json.size as number;

const stillDenied = async (url: string, headers: Record<string, string> = {}) => {
  const r = await post(`${url}/v1/authorize`, DANGEROUS, headers);
  expect(r.status).toBe(200);
  expect(r.json.effect).toBe('deny');
};

describe('development mode: the reproduction', () => {
  it('POST /v1/policy text/plain from a foreign Origin does not activate a permit-all policy', async () => {
    await stillDenied(dev.url);
    const before = await sizeOf(dev.url);
    const r = await raw(`${dev.url}/v1/policy`, 'POST', JSON.stringify({ config: PERMIT_ALL }), { 'content-type': 'text/plain;charset=UTF-8', origin: EVIL });
    expect(r.status).toBe(403);
    expect(r.json.error.code).toBe('ERR_FORBIDDEN');
    // Without an Origin (a non-browser client): still not JSON, so 415.
    const noOrigin = await raw(`${dev.url}/v1/policy`, 'POST', JSON.stringify({ config: PERMIT_ALL }), { 'content-type': 'text/plain' });
    expect(noOrigin.status).toBe(415);
    expect(noOrigin.json.error.code).toBe('ERR_UNSUPPORTED_MEDIA_TYPE');
    expect(await sizeOf(dev.url)).toBe(before); // no `policy` entry: nothing was activated
    await stillDenied(dev.url);
  });

  it('every JSON endpoint refuses bodies that are not application/json (415), nothing logged', async () => {
    const size = async () => (await get(`${dev.url}/v1/checkpoint`)).json.size as number;
    const before = await size();
    const bodies: [string, string, unknown][] = [
      ['POST', '/v1/authorize', DANGEROUS],
      ['POST', '/v1/executions', { authorization: null, executed: { name: 'echo' } }],
      ['POST', '/v1/policy', { config: PERMIT_ALL }],
      ['POST', '/v1/replay', {}],
      ['POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'interceptor/executeChain', params: DANGEROUS }],
      ['DELETE', `/v1/payloads/sha256:${'0'.repeat(64)}`, {}],
    ];
    const types = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain; x=application/json', 'application/jsonp', 'application/json; charset=iso-8859-1', undefined];
    for (const [method, path, body] of bodies)
      for (const ct of types) {
        const r = await raw(`${dev.url}${path}`, method, JSON.stringify(body), ct ? { 'content-type': ct } : {});
        expect(r.status, `${method} ${path} ${ct}`).toBe(415);
        if (path === '/mcp') expect(r.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32600, data: { code: 'ERR_UNSUPPORTED_MEDIA_TYPE' } } });
        else expect(r.json.error.code).toBe('ERR_UNSUPPORTED_MEDIA_TYPE');
      }
    expect(await size()).toBe(before);
    // application/json with parameters and in any case is JSON.
    for (const ct of ['application/json; charset=utf-8', 'Application/JSON'])
      expect((await raw(`${dev.url}/v1/authorize`, 'POST', JSON.stringify(DANGEROUS), { 'content-type': ct })).json.effect).toBe('deny');
  });

  it("a foreign Origin is refused on every route (403) even with JSON; the service's own and none are fine", async () => {
    const port = new URL(dev.url).port;
    const foreign = [EVIL, 'null', `http://localhost:${port}`, `http://127.0.0.1:${Number(port) + 1}`, `http://127.0.0.1:${port}.evil.example`, `http://127.0.0.1:${port}/`, `file://`, 'junk'];
    for (const origin of foreign) {
      for (const [method, path, body] of [['POST', '/v1/authorize', DANGEROUS], ['POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'interceptors/list' }], ['GET', '/v1/entries/0', undefined], ['OPTIONS', '/v1/policy', undefined]] as const) {
        const r = await raw(`${dev.url}${path}`, method, body && JSON.stringify(body), { 'content-type': 'application/json', origin });
        expect(r.status, `${origin} ${method} ${path}`).toBe(403);
        expect(r.headers.get('access-control-allow-origin')).toBeNull();
        if (path === '/mcp') expect(r.json.error.data.code).toBe('ERR_FORBIDDEN');
        else expect(r.json.error.code).toBe('ERR_FORBIDDEN');
      }
    }
    // No Origin, but Fetch Metadata says another site's page asked (<img>, <script>): refused;
    // following a link to the console is a navigation, and stays allowed.
    expect(await getStatus(`${dev.url}/v1/entries/0`, { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' })).toBe(403);
    expect(await getStatus(`${dev.url}/v1/checkpoint`, { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors' })).toBe(403);
    expect(await getStatus(`${dev.url}/audit/`, { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' })).not.toBe(403);
    expect(await getStatus(`${dev.url}/v1/checkpoint`, { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' })).toBe(200);
    const own = await raw(`${dev.url}/v1/authorize`, 'POST', JSON.stringify(DANGEROUS), { 'content-type': 'application/json', origin: `http://127.0.0.1:${port}` });
    expect(own.json.effect).toBe('deny');
    await stillDenied(dev.url); // no Origin at all
  });
});

describe('auth mode', () => {
  let s: Awaited<ReturnType<typeof testServer>>;
  let admin: Record<string, string>;
  beforeAll(async () => {
    const issuer = await testIssuer();
    s = await testServer({ auth: issuer.auth });
    admin = { authorization: `Bearer ${await issuer.token({ sub: 'root', tenant: 'acme', roles: ['enforce', 'audit', 'admin'] })}` };
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a valid admin token does not make a text/plain body or a foreign Origin acceptable', async () => {
    const text = await raw(`${s.url}/v1/policy`, 'POST', JSON.stringify({ config: PERMIT_ALL }), { ...admin, 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    const foreign = await raw(`${s.url}/v1/policy`, 'POST', JSON.stringify({ config: PERMIT_ALL }), { ...admin, 'content-type': 'application/json', origin: EVIL });
    expect(foreign.status).toBe(403);
    const mcp = await raw(`${s.url}/mcp`, 'POST', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'interceptor/executeChain', params: DANGEROUS }), { ...admin, 'content-type': 'text/plain' });
    expect(mcp.status).toBe(415);
    await stillDenied(s.url, admin);
  });
});

describe('configured origins (--allow-origin)', () => {
  const CONSOLE = 'https://console.example';
  let s: Awaited<ReturnType<typeof testServer>>;
  beforeAll(async () => {
    s = await testServer({ allowOrigins: [CONSOLE] });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a configured origin gets CORS answers; others are still refused; bodies still JSON only', async () => {
    const pre = await raw(`${s.url}/v1/authorize`, 'OPTIONS', undefined, { origin: CONSOLE, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    expect(pre.headers.get('access-control-allow-headers')).toContain('content-type');
    const r = await raw(`${s.url}/v1/authorize`, 'POST', JSON.stringify(DANGEROUS), { origin: CONSOLE, 'content-type': 'application/json' });
    expect(r.json.effect).toBe('deny');
    expect(r.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    expect((await raw(`${s.url}/v1/authorize`, 'POST', JSON.stringify(DANGEROUS), { origin: CONSOLE, 'content-type': 'text/plain' })).status).toBe(415);
    expect((await raw(`${s.url}/v1/authorize`, 'POST', JSON.stringify(DANGEROUS), { origin: 'https://other.example', 'content-type': 'application/json' })).status).toBe(403);
  });

  it('bad origins are a config error, from the API and from `vouch serve --allow-origin`', async () => {
    await expect(testServer({ allowOrigins: ['https://x.example/path'] })).rejects.toMatchObject({ code: 'ERR_CONFIG' });
    await expect(testServer({ allowOrigins: ['null'] })).rejects.toMatchObject({ code: 'ERR_CONFIG' });
    const cli = spawnSync(process.execPath, [BIN, 'serve', '--port', '0', '--data', `${s.dir}/cli`, '--allow-origin', '*'], { encoding: 'utf8', timeout: 30_000 });
    expect(cli.status).toBe(3);
    expect(cli.stderr).toContain('allowed origin');
  });
});

describe("the gateway's HTTP listener", () => {
  it('refuses foreign Origins (403) and bodies that are not JSON (415) before any session starts', async () => {
    const ws = makeWorkspace('vouch-gw-origin-');
    const rt = await openGateway({ data: ws.data, config: ws.config, upstream: { command: everythingCmd(), stderr: 'ignore' }, thread: false });
    const listening = await listenGateway(rt, { port: 0 });
    try {
      const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'page', version: '1' } } });
      const foreign = await raw(listening.url, 'POST', init, { 'content-type': 'application/json', origin: EVIL });
      expect(foreign.status).toBe(403);
      const text = await raw(listening.url, 'POST', init, { 'content-type': 'text/plain' });
      expect(text.status).toBe(415);
      const sneaky = await raw(listening.url, 'POST', init, { 'content-type': 'text/plain; x=application/json' });
      expect(sneaky.status).toBe(415);
      expect(rt.sessions().length).toBe(0);
      const own = await raw(listening.url, 'POST', init, { 'content-type': 'application/json', origin: `http://127.0.0.1:${listening.port}` });
      expect(own.status).toBe(200);
      expect(rt.sessions().length).toBe(1);
    } finally {
      await listening.close();
      await closeReplayed(rt);
    }
  }, 60_000);
});
