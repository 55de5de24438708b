// ATTACK (branch `attack`, issue 35 item 3 variant), HELD: the allow-list is checked on the URL a
// posted policy names; could a 3xx from a server under an allowed prefix take the service off the
// list? No: the MCP SDK transport refuses cross-origin redirects (redirectPolicy 'same-origin').
// This test passes and guards that (a transport change to plain fetch would follow redirects).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/http/node-server.js';
import { post } from '../http/_server.js';

async function server(handler: (path: string) => { status: number; headers?: Record<string, string> }) {
  let hits = 0;
  const srv: Server = createServer((req, res) => {
    hits++;
    const r = handler(req.url ?? '/');
    res.writeHead(r.status, r.headers).end();
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  return { url, hits: () => hits, close: () => new Promise<void>((r) => { srv.closeAllConnections(); srv.close(() => r()); }) };
}

let s: RunningServer;
let target: Awaited<ReturnType<typeof server>>;
let allowed: Awaited<ReturnType<typeof server>>;
const PERMIT = 'permit(principal, action, resource);';

beforeAll(async () => {
  target = await server(() => ({ status: 404 })); // off the list: must never be contacted
  allowed = await server(() => ({ status: 307, headers: { location: `${target.url}/internal-admin` } }));
  const dir = mkdtempSync(join(tmpdir(), 'vouch-attack-redirect-'));
  const config = join(dir, 'vouch.json');
  writeFileSync(config, JSON.stringify({ version: 1, policies: { inline: { policies: PERMIT } }, interceptors: [{ name: 'authz', use: 'cedar-policy' }], remoteInterceptors: { allow: [`${allowed.url}/mcp`] } }));
  s = await startServer({ data: join(dir, 'data'), port: 0, config, idleCheckpointMs: 0 });
}, 60_000);

afterAll(async () => {
  await s?.close();
  await allowed?.close();
  await target?.close();
});

it('a posted policy naming an allowed URL that redirects does not reach a server off the list', async () => {
  const r = await post(`${s.url}/v1/policy`, { document: { version: 1, policies: { inline: { policies: PERMIT } }, interceptors: [{ name: 'authz', use: 'cedar-policy' }, { name: 'guard', remote: { url: `${allowed.url}/mcp/tenant-b` } }] } });
  console.log('status', r.status, JSON.stringify(r.json).slice(0, 300), 'allowed hits', allowed.hits(), 'target hits', target.hits());
  expect(allowed.hits()).toBeGreaterThan(0);
  expect(target.hits()).toBe(0);
}, 60_000);
