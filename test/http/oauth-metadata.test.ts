// vouch serve as an OAuth resource server (MCP authorization): the RFC 9728 metadata document and
// the WWW-Authenticate challenge on every 401, on a real server; and the header's construction.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAuthConfig } from '../../src/http/auth.js';
import { protectedResourceOf, wwwAuthenticate } from '../../src/http/oauth-metadata.js';
import { get, post, testIssuer, testServer } from './_server.js';

const RESOURCE = 'https://vouch.example/mcp';
let s: Awaited<ReturnType<typeof testServer>>;
let issuer: Awaited<ReturnType<typeof testIssuer>>;

beforeAll(async () => {
  issuer = await testIssuer();
  const auth = parseAuthConfig({ ...issuer.auth, audience: undefined, resource: RESOURCE, scopes: { 'mcp:enforce': ['enforce'], 'mcp:audit': ['audit'] } });
  s = await testServer({ auth });
});
afterAll(async () => {
  await s?.close();
});

const challenge = (h: string | null) => Object.fromEntries([...(h ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));

describe('protected resource metadata (RFC 9728)', () => {
  it('is served at the bare and at the resource-suffixed well-known path, token-free', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const r = await fetch(`${s.url}${path}`, { headers: { origin: 'https://any.example' } });
      expect(r.status).toBe(200);
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(await r.json()).toEqual({
        resource: RESOURCE,
        authorization_servers: ['https://issuer.test'],
        scopes_supported: ['mcp:enforce', 'mcp:audit'],
        bearer_methods_supported: ['header'],
      });
    }
  });

  it('every 401 names the metadata; a refused token adds error="invalid_token"', async () => {
    const none = await fetch(`${s.url}/v1/authorize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(none.status).toBe(401);
    const h = none.headers.get('www-authenticate')!;
    expect(h).toMatch(/^Bearer /);
    expect(challenge(h)).toEqual({ resource_metadata: 'https://vouch.example/.well-known/oauth-protected-resource/mcp' });

    // A token for another resource (RFC 8707: the audience must be this resource), on the MCP endpoint.
    const other = await issuer.token({ sub: 'alice', tenant: 'acme', roles: ['enforce'] }, { aud: 'https://other.example/mcp' });
    const m = await fetch(`${s.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${other}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'interceptors/list' }) });
    expect(m.status).toBe(401);
    const c = challenge(m.headers.get('www-authenticate'));
    expect(c.error).toBe('invalid_token');
    expect(c.resource_metadata).toBe('https://vouch.example/.well-known/oauth-protected-resource/mcp');
    expect(m.headers.get('www-authenticate')).not.toContain(other);

    for (const path of ['/metrics', '/v1/checkpoint']) {
      const r = await fetch(`${s.url}${path}`, { headers: { authorization: 'Bearer not.a.jwt' } });
      expect(r.status).toBe(401);
      expect(challenge(r.headers.get('www-authenticate')).error).toBe('invalid_token');
    }
  });

  it('a token for this resource passes; its scope claim grants roles through the config map', async () => {
    const t = await issuer.token({ sub: 'alice', tenant: 'acme', scope: 'mcp:enforce unknown:scope' }, { aud: RESOURCE });
    const r = await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'hi' } } }, { authorization: `Bearer ${t}` });
    expect(r.status).toBe(200);
    // mcp:enforce grants enforce only: reading the log needs audit.
    const a = await fetch(`${s.url}/v1/checkpoint`, { headers: { authorization: `Bearer ${t}` } });
    expect(a.status).toBe(403);
    // Step-up (MCP authorization): the 403 names the scope that would grant the role.
    expect(challenge(a.headers.get('www-authenticate'))).toEqual({ resource_metadata: 'https://vouch.example/.well-known/oauth-protected-resource/mcp', error: 'insufficient_scope', scope: 'mcp:audit' });
    const u = await issuer.token({ sub: 'alice', tenant: 'acme', scope: 'mcp:audit' }, { aud: RESOURCE });
    expect((await get(`${s.url}/v1/checkpoint`, { authorization: `Bearer ${u}` })).status).toBe(200);
    const m = await fetch(`${s.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${u}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'interceptors/list' }) });
    expect(m.status).toBe(403);
    expect(challenge(m.headers.get('www-authenticate'))).toMatchObject({ error: 'insufficient_scope', scope: 'mcp:enforce' });
  });

  it('without a resource configured there is no metadata, and the challenge is plain Bearer', async () => {
    const plain = await testServer({ auth: issuer.auth });
    try {
      expect((await fetch(`${plain.url}/.well-known/oauth-protected-resource`)).status).toBe(404);
      const r = await fetch(`${plain.url}/v1/checkpoint`);
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer');
    } finally {
      await plain.close();
    }
  });
});

describe('wwwAuthenticate', () => {
  const p = protectedResourceOf(parseAuthConfig({ jwks: { keys: [] }, issuer: 'https://as.example', resource: 'https://rs.example' }))!;
  it('a pathless resource has its metadata at the bare well-known path', () => {
    expect(p.metadataUrl).toBe('https://rs.example/.well-known/oauth-protected-resource');
    expect(p.paths).toEqual(['/.well-known/oauth-protected-resource']);
  });
  it('keeps quotes and control characters out of parameter values', () => {
    const h = wwwAuthenticate(p, { error: 'invalid_token', description: 'bad "x"\r\nSet-Cookie: a=b\\' });
    expect(h).toBe('Bearer resource_metadata="https://rs.example/.well-known/oauth-protected-resource", error="invalid_token", error_description="bad xSet-Cookie: a=b"');
  });
});
