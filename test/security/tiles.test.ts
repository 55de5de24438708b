// Attackers at the tlog-tiles routes: another tenant's token, no token, a token without the audit
// role, and a reader probing past the signed tree or with crafted paths. None gets a byte.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, testIssuer, testServer } from '../http/_server.js';

let s: Awaited<ReturnType<typeof testServer>>;
let acmeAudit: string;
let acmeEnforce: string;
let otherAudit: string;

beforeAll(async () => {
  const issuer = await testIssuer();
  s = await testServer({ auth: issuer.auth });
  acmeAudit = await issuer.token({ sub: 'auditor', tenant: 'acme', roles: ['enforce', 'audit'] });
  acmeEnforce = await issuer.token({ sub: 'app', tenant: 'acme', roles: ['enforce'] });
  otherAudit = await issuer.token({ sub: 'mallory', tenant: 'other', roles: ['enforce', 'audit', 'admin'] });
  const body = { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'acme secret' } } };
  for (let i = 0; i < 3; i++) expect((await post(`${s.url}/v1/authorize`, body, { authorization: `Bearer ${acmeEnforce}` })).status).toBe(200);
  expect((await post(`${s.url}/v1/authorize`, body, { authorization: `Bearer ${otherAudit}` })).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await s?.close();
});

const as = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

describe('tlog-tiles access', () => {
  it('serves a tenant its own log', async () => {
    const r = await fetch(`${s.url}/tlog/acme/checkpoint`, { headers: as(acmeAudit) });
    expect(r.status).toBe(200);
    expect((await r.text()).split('\n')[0]).toMatch(/\/acme$/);
    expect((await fetch(`${s.url}/tlog/acme/tile/entries/000.p/3`, { headers: as(acmeAudit) })).status).toBe(200);
  });

  it("refuses another tenant's token, even an admin's: 403, no bytes", async () => {
    for (const p of ['checkpoint', 'tile/0/000.p/3', 'tile/entries/000.p/3']) {
      const r = await get(`${s.url}/tlog/acme/${p}`, as(otherAudit));
      expect([p, r.status, r.json.error?.code]).toEqual([p, 403, 'ERR_FORBIDDEN']);
      expect(JSON.stringify(r.json)).not.toContain('acme secret');
    }
  });

  it('refuses no token (401 with a challenge) and a token without the audit role (403)', async () => {
    const anon = await fetch(`${s.url}/tlog/acme/tile/entries/000.p/3`);
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const app = await get(`${s.url}/tlog/acme/tile/entries/000.p/3`, as(acmeEnforce));
    expect([app.status, app.json.error.code]).toEqual([403, 'ERR_FORBIDDEN']);
  });

  it('gives nothing past the signed tree, for huge indexes and levels, or for crafted paths', async () => {
    const size = Number((await (await fetch(`${s.url}/tlog/acme/checkpoint`, { headers: as(acmeAudit) })).text()).split('\n')[1]);
    const notFound = [`tile/entries/000.p/${size + 1}`, `tile/0/000.p/${size + 1}`, 'tile/0/000', 'tile/63/000.p/1', 'tile/0/x999/x999/x999/x999/999.p/1'];
    for (const p of notFound) {
      const r = await get(`${s.url}/tlog/acme/${p}`, as(acmeAudit));
      expect([p, r.status]).toEqual([p, 404]);
    }
    const bad = ['tile/0/%2e%2e/000', 'tile/0/%30%30%30', 'tile/0/000%2Ep/1', 'tile/0/000.p/0', 'tile/64/000.p/1', 'tile/0/x000/000.p/1', 'tile/entries/000.p/1/', 'tile/0/999999999999999999', 'tile/0/x999/x999/x999/x999/x999/x999/999'];
    for (const p of bad) {
      const r = await get(`${s.url}/tlog/acme/${p}`, as(acmeAudit));
      expect([p, r.status, r.json.error?.code]).toEqual([p, 400, 'ERR_INPUT']);
    }
  });
});
