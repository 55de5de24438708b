// Bearer JWTs, tenants and roles through the HTTP API of a real server.
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenVerifier, parseAuthConfig } from '../../src/http/auth.js';
import { startServer } from '../../src/http/node-server.js';
import { get, post, testIssuer, testServer } from './_server.js';

let s: Awaited<ReturnType<typeof testServer>>;
let issuer: Awaited<ReturnType<typeof testIssuer>>;
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const decide = (t: string, text = 'hello') => post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text } } }, bearer(t));

beforeAll(async () => {
  issuer = await testIssuer();
  s = await testServer({ auth: issuer.auth });
});
afterAll(async () => {
  await s?.close();
});

describe('auth', () => {
  it('requires a token', async () => {
    const r = await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: {} });
    expect(r.status).toBe(401);
    expect(r.json.error.code).toBe('ERR_UNAUTHENTICATED');
    const m = await post(`${s.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'interceptors/list' });
    expect(m.status).toBe(401);
  });

  it('rejects expired, wrongly signed, wrong-audience and wrong-issuer tokens', async () => {
    const claims = { sub: 'alice', tenant: 'acme', roles: ['enforce'] };
    const expired = await issuer.token(claims, { exp: Math.floor(Date.now() / 1000) - 3600 });
    const other = await testIssuer();
    const forged = await other.token(claims);
    const wrongAud = await issuer.token(claims, { aud: 'someone-else' });
    const wrongIss = await issuer.token(claims, { iss: 'https://evil.test' });
    for (const t of [expired, forged, wrongAud, wrongIss, 'not.a.jwt']) {
      const r = await decide(t);
      expect(r.status).toBe(401);
      expect(r.json.error.code).toBe('ERR_UNAUTHENTICATED');
      expect(JSON.stringify(r.json)).not.toContain(t); // the token is never echoed
    }
  });

  it('says what the fix is when the token is refused for a claim: the audience expected, the issuer, the age limit, expiry (issue 37)', async () => {
    const claims = { sub: 'alice', tenant: 'acme', roles: ['enforce'] };
    const now = Math.floor(Date.now() / 1000);
    const cases: [Promise<string>, RegExp][] = [
      [issuer.token(claims, { aud: 'someone-else' }), /token rejected: ERR_JWT_CLAIM_VALIDATION_FAILED \(aud\): the token's audience must be "vouch"/],
      [issuer.token(claims, { iss: 'https://evil.test' }), /token rejected: ERR_JWT_CLAIM_VALIDATION_FAILED \(iss\): the token's issuer must be "https:\/\/issuer\.test"/],
      [issuer.token(claims, { iat: now - 2 * 86400, exp: now + 300 }), /token rejected: ERR_JWT_EXPIRED \(iat\): issued more than 86400 seconds ago \(maxTokenAgeSeconds\): get a fresh token/],
      [issuer.token(claims, { exp: now - 3600 }), /token rejected: ERR_JWT_EXPIRED \(exp\): expired: get a fresh token/],
    ];
    for (const [token, re] of cases) {
      const t = await token;
      const r = await decide(t);
      expect(r.status).toBe(401);
      expect(r.json.error.message).toMatch(re);
      expect(JSON.stringify(r.json)).not.toContain(t);
      expect(JSON.stringify(r.json)).not.toMatch(/someone-else|evil\.test/); // the token's own claims are not echoed
    }
  });

  it('keeps tenants apart: each writes and reads only its own log', async () => {
    const a = await issuer.token({ sub: 'alice', tenant: 'acme', roles: ['enforce', 'audit'] });
    const b = await issuer.token({ sub: 'bob', tenant: 'globex', roles: ['enforce', 'audit'] });
    const ra = await decide(a, 'acme secret plan');
    expect(ra.status).toBe(200);
    const rb = await decide(b);
    expect(rb.status).toBe(200);
    const seqA = ra.json.seq;
    const asA = await get(`${s.url}/v1/entries/${seqA}`, bearer(a));
    expect(asA.json.entry.log).toMatch(/\/acme$/);
    expect(asA.json.entry.principal).toBe('alice');
    // The same seq asked by B is B's own entry (or nothing), never A's.
    const asB = await get(`${s.url}/v1/entries/${seqA}`, bearer(b));
    expect(JSON.stringify(asB.json)).not.toContain('alice');
    expect(JSON.stringify(asB.json)).not.toContain('/acme');
    const cpA = await get(`${s.url}/v1/checkpoint`, bearer(a));
    const cpB = await get(`${s.url}/v1/checkpoint`, bearer(b));
    expect(cpA.json.origin).not.toBe(cpB.json.origin);
    const proofB = await get(`${s.url}/v1/proofs/inclusion?seq=${seqA}&size=${cpA.json.size}`, bearer(b));
    expect(proofB.json.checkpoint ?? '').not.toContain('/acme');
  });

  it("keeps exports apart: tenant B's bundle holds none of tenant A's entries", async () => {
    const a = await issuer.token({ sub: 'alice', tenant: 'acme', roles: ['enforce', 'audit'] });
    const b = await issuer.token({ sub: 'bob', tenant: 'globex', roles: ['enforce', 'audit'] });
    expect((await decide(a, 'acme only')).status).toBe(200);
    const res = await fetch(`${s.url}/v1/export?payloads=1`, { headers: bearer(b) });
    expect(res.status).toBe(200);
    const tar = gunzipSync(Buffer.from(await res.arrayBuffer())).toString('latin1');
    expect(tar).toContain('manifest.json');
    expect(tar).toContain('/globex');
    // entries.jsonl lines carry base64 entry bytes: decode every one and check whose log it is.
    const entries = [...tar.matchAll(/\{"seq":\d+,"entry":"([A-Za-z0-9+/=]+)"\}/g)].map((m) => JSON.parse(Buffer.from(m[1], 'base64').toString('utf8')));
    expect(entries.length).toBeGreaterThan(0);
    for (const e of entries) {
      expect(e.log).toMatch(/\/globex$/);
      expect(e.principal ?? 'bob').not.toBe('alice');
    }
    expect(tar).not.toContain('/acme');
  });

  it('enforces roles: enforce cannot read audit data, audit cannot decide', async () => {
    const enforcer = await issuer.token({ sub: 'svc', tenant: 'acme', roles: ['enforce'] });
    const auditor = await issuer.token({ sub: 'aud', tenant: 'acme', roles: ['audit'] });
    for (const path of ['/v1/entries/0', '/v1/checkpoint', '/v1/proofs/consistency?from=1']) {
      const r = await get(`${s.url}${path}`, bearer(enforcer));
      expect(r.status).toBe(403);
      expect(r.json.error.code).toBe('ERR_FORBIDDEN');
    }
    expect((await decide(auditor)).status).toBe(403);
    expect((await get(`${s.url}/v1/checkpoint`, bearer(auditor))).status).toBe(200);
  });
});

describe('binding', () => {
  it('refuses a non-loopback host without auth', async () => {
    await expect(startServer({ data: `${s.dir}/other`, host: '0.0.0.0', port: 0 })).rejects.toMatchObject({ code: 'ERR_CONFIG' });
  });
});

describe('resource server config (RFC 8707 / 9728)', () => {
  const base = { jwks: { keys: [] }, issuer: 'https://as.example' };
  const issuesOf = (input: unknown, opts?: { resourceLater?: boolean }) => {
    try {
      parseAuthConfig(input, '/auth', opts);
      return [];
    } catch (e) {
      return (e as { issues: { path: string }[] }).issues.map((i) => i.path);
    }
  };

  it('needs an audience or a resource (a verifier without one would take any token)', () => {
    expect(issuesOf(base)).toEqual(['/auth/audience']);
    expect(issuesOf(base, { resourceLater: true })).toEqual([]);
    expect(() => createTokenVerifier(parseAuthConfig(base, '/auth', { resourceLater: true }), () => new Date())).toThrow(/audience/);
  });

  it('reports bad resource, authorizationServers, scopes and tenant by path', () => {
    expect(issuesOf({ ...base, resource: 'https://rs.example/mcp#frag' })).toContain('/auth/resource');
    expect(issuesOf({ ...base, resource: 'not a url' })).toContain('/auth/resource');
    expect(issuesOf({ ...base, audience: 'x', authorizationServers: [] })).toEqual(['/auth/authorizationServers']);
    expect(issuesOf({ ...base, audience: 'x', scopes: { 'bad scope': ['enforce'], 'mcp:x': 'enforce' } })).toEqual(['/auth/scopes/bad scope', '/auth/scopes/mcp:x']);
    expect(issuesOf({ ...base, audience: 'x', tenant: 'Not A Tenant' })).toEqual(['/auth/tenant']);
  });

  it('checks the audience against the resource; maps scopes to roles; a configured tenant fills in', async () => {
    const iss = await testIssuer();
    const cfg = parseAuthConfig({ ...iss.auth, audience: undefined, resource: 'https://rs.example/mcp', scopes: { 'mcp:enforce': ['enforce'], 'mcp:tools': ['tool-user'] }, tenant: 'acme' });
    const verify = createTokenVerifier({ ...cfg, issuer: iss.auth.issuer }, () => new Date());
    const ok = await iss.token({ sub: 'alice', scope: 'mcp:enforce mcp:tools admin', roles: ['audit'] }, { aud: 'https://rs.example/mcp' });
    const v = await verify(`Bearer ${ok}`);
    // `admin` as a scope is not in the map: it grants nothing. The roles claim still counts.
    // vouch's roles for its routes; every role (tool-user too) for policy (issue 37).
    expect(v.caller).toEqual({ principal: 'alice', tenant: 'acme', roles: ['audit', 'enforce'], policyRoles: ['audit', 'enforce', 'tool-user'] });
    expect(v.roles).toEqual(['audit', 'enforce', 'tool-user']);
    for (const aud of ['vouch', 'https://rs.example', 'https://rs.example/mcp/other']) {
      const t = await iss.token({ sub: 'alice' }, { aud });
      await expect(verify(`Bearer ${t}`)).rejects.toMatchObject({ code: 'ERR_UNAUTHENTICATED' });
    }
  });
});
