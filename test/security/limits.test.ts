// Issue 14 item 6: limits hold before memory is spent. The attacker streams a huge chunked body
// (no Content-Length), presents tokens with no expiry or from long ago, scrapes /metrics without
// a token, and reads the log files as another local user.
import { statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAuthConfig, type AuthConfig } from '../../src/http/auth.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { get, post, testIssuer, testServer as startTestServer, writeConfig } from '../http/_server.js';

const MiB = 1024 * 1024;

/** A permit-all Cedar chain of its own: these limits hold before any policy is asked. */
const CONFIG = writeConfig(mkdtempSync(join(tmpdir(), 'vouch-sec-limits-')), { version: 1, policies: { inline: { policies: 'permit(principal, action, resource);' } }, interceptors: [{ name: 'authz', use: 'cedar-policy' }] });
const testServer: typeof startTestServer = (opts = {}) => startTestServer({ config: CONFIG, ...opts });

/**
 * Stream up to `total` bytes as one chunked POST (no Content-Length), as fast as the server takes
 * them; stop as soon as it answers. Returns the status, the bytes sent, the time taken and the
 * highest RSS of this process (which is the server's too) seen meanwhile.
 */
function streamBody(url: string, total: number): Promise<{ status: number; sent: number; ms: number; peakRss: number; code?: string }> {
  const chunk = Buffer.alloc(64 * 1024, 0x20); // spaces: valid JSON whitespace, never a parse error first
  const t0 = performance.now();
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 20);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'transfer-encoding': 'chunked' } });
    const finish = (status: number, code?: string) => {
      clearInterval(sampler);
      resolve({ status, sent, ms: performance.now() - t0, peakRss: Math.max(peakRss, process.memoryUsage.rss()), code });
    };
    req.on('response', (res) => {
      answered = true;
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        let code: string | undefined;
        try {
          const j = JSON.parse(text);
          code = j.error?.data?.code ?? j.error?.code;
        } catch {
          /* not JSON */
        }
        req.destroy();
        finish(res.statusCode ?? 0, code);
      });
    });
    req.on('error', (e) => {
      if (!answered) {
        clearInterval(sampler);
        reject(e);
      }
    });
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

describe('a chunked body with no Content-Length', () => {
  let s: Awaited<ReturnType<typeof testServer>>;
  beforeAll(async () => {
    s = await testServer();
  });
  afterAll(async () => {
    await s?.close();
  });

  for (const path of ['/v1/authorize', '/mcp', '/v1/policy']) {
    it(`${path}: 512 MiB offered, 413 after about the limit, memory bounded`, async () => {
      const before = process.memoryUsage.rss();
      const r = await streamBody(`${s.url}${path}`, 512 * MiB);
      expect(r.status).toBe(413);
      expect(r.code).toBe('ERR_TOO_LARGE');
      // Old code read all 512 MiB (1.6 GB RSS) before answering. Now the answer comes after the
      // 1 MiB limit, plus what sockets buffer and the server drains (at most 64 MiB) on its way out.
      expect(r.sent).toBeLessThan(96 * MiB);
      expect(r.peakRss - before).toBeLessThan(128 * MiB);
      expect(r.ms).toBeLessThan(10_000);
      expect((await get(`${s.url}/healthz`)).status).toBe(200);
    }, 60_000);
  }

  it('a chunked body just under the limit is still read whole and decided', async () => {
    const body = JSON.stringify({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'x'.repeat(MiB - 200) } } });
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${s.url}/v1/authorize`, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      for (let i = 0; i < body.length; i += 4096) req.write(body.slice(i, i + 4096));
      req.end();
    });
    expect(status).toBe(200);
  });
});

describe('token lifetime', () => {
  let s: Awaited<ReturnType<typeof testServer>>;
  let auth: AuthConfig;
  let key: CryptoKey;
  const now = () => Math.floor(Date.now() / 1000);
  const claims = { sub: 'alice', tenant: 'acme', roles: ['enforce', 'audit'] };
  /** A token with exactly the time claims given (testIssuer always sets both). */
  const tokenWith = (times: { iat?: number; exp?: number }) =>
    new SignJWT({ ...claims, ...times }).setProtectedHeader({ alg: 'ES256', kid: 'test-key' }).setIssuer(auth.issuer).setAudience(auth.audience!).sign(key);
  const decide = (t: string) => post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'hi' } } }, { authorization: `Bearer ${t}` });

  beforeAll(async () => {
    const { generateKeyPair, exportJWK } = await import('jose');
    const pair = await generateKeyPair('ES256');
    key = pair.privateKey as CryptoKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'test-key', alg: 'ES256' };
    auth = { jwks: { keys: [jwk] }, issuer: 'https://issuer.test', audience: 'vouch' };
    s = await testServer({ auth: { ...auth, maxTokenAgeSeconds: 3600 } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a token without exp is refused (it would be good forever)', async () => {
    const r = await decide(await tokenWith({ iat: now() }));
    expect(r.status).toBe(401);
    expect(r.json.error.code).toBe('ERR_UNAUTHENTICATED');
    expect(r.json.error.message).toContain('exp');
  });

  it('a token without iat is refused: its age cannot be checked', async () => {
    const r = await decide(await tokenWith({ exp: now() + 300 }));
    expect(r.status).toBe(401);
    expect(r.json.error.message).toContain('iat');
  });

  it('a token older than maxTokenAgeSeconds is refused even if exp is far ahead', async () => {
    const r = await decide(await tokenWith({ iat: now() - 7200, exp: now() + 10 * 365 * 86400 }));
    expect(r.status).toBe(401);
    expect(r.json.error.code).toBe('ERR_UNAUTHENTICATED');
    const future = await decide(await tokenWith({ iat: now() + 7200, exp: now() + 9000 }));
    expect(future.status).toBe(401);
  });

  it('a fresh token with exp and iat is accepted', async () => {
    expect((await decide(await tokenWith({ iat: now() - 60, exp: now() + 300 }))).status).toBe(200);
  });

  it('maxTokenAgeSeconds is checked in the config', () => {
    const base = { jwks: { keys: [] }, issuer: 'i', audience: 'a' };
    for (const bad of [0, -1, 1.5, '60', 10 ** 9]) expect(() => parseAuthConfig({ ...base, maxTokenAgeSeconds: bad })).toThrow(expect.objectContaining({ code: 'ERR_CONFIG' }));
    expect(parseAuthConfig({ ...base, maxTokenAgeSeconds: 600 }).maxTokenAgeSeconds).toBe(600);
  });
});

describe('/metrics in auth mode', () => {
  let s: Awaited<ReturnType<typeof testServer>>;
  let issuer: Awaited<ReturnType<typeof testIssuer>>;
  beforeAll(async () => {
    issuer = await testIssuer();
    s = await testServer({ auth: issuer.auth });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('needs a token with the audit or admin role', async () => {
    const as = async (roles: string[]) => get(`${s.url}/metrics`, { authorization: `Bearer ${await issuer.token({ sub: 'x', tenant: 'acme', roles })}` });
    const none = await get(`${s.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.json.error.code).toBe('ERR_UNAUTHENTICATED');
    const enforcer = await as(['enforce']);
    expect(enforcer.status).toBe(403);
    expect(enforcer.json.error.code).toBe('ERR_FORBIDDEN');
    for (const roles of [['audit'], ['admin']]) {
      const r = await as(roles);
      expect(r.status).toBe(200);
      expect(r.json).toContain('vouch_decisions_total');
    }
    expect((await get(`${s.url}/healthz`)).status).toBe(200); // health stays public
  });
});

describe('file modes', () => {
  it('the data dir, keys/ and logs/ are 0700; log databases and their -wal/-shm are 0600, whatever the umask', async () => {
    const old = process.umask(0);
    let s: Awaited<ReturnType<typeof testServer>> | undefined;
    try {
      s = await testServer();
      expect((await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'hi' } } })).status).toBe(200);
      const data = join(s.dir, 'data');
      const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);
      for (const d of [data, join(data, 'keys'), join(data, 'logs')]) expect(mode(d), d).toBe('700');
      const db = join(data, 'logs', 'default.db');
      for (const f of [db, `${db}-wal`, `${db}-shm`]) expect(mode(f), f).toBe('600');
    } finally {
      process.umask(old);
      await s?.close();
    }
  });
});
