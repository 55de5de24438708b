// Issue 35, against a real server with bearer tokens: tenant b's admin (and auditor) playing
// against tenant a, and a hostile admin. Whole-data-directory key rotation needs the operator
// role and records who; revocation touches the caller's log only; /metrics shows a tenant token
// its own tenant only; remote interceptor URLs on POST /v1/policy (and in a pinned policy at
// start) come from the operator's allow-list, refused before any connection is attempted.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startServer, type RunningServer } from '../../src/http/node-server.js';
import { captureIo } from '../audit/_generate.js';
import { get, post, testIssuer } from './_server.js';

const A = 'tenant-a';
const B = 'tenant-b';
const PERMIT = 'permit(principal, action, resource);';

/** An HTTP server that counts every TCP connection made to it (and answers 404). */
async function countingServer(): Promise<{ url: string; port: number; connections: () => number; close: () => Promise<void> }> {
  let n = 0;
  const srv: Server = createServer((_req, res) => res.writeHead(404).end());
  srv.on('connection', () => n++);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, port, connections: () => n, close: () => new Promise((r) => { srv.closeAllConnections(); srv.close(() => r()); }) };
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const c = await countingServer();
  await c.close();
  return c.port;
}

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const root = mkdtempSync(join(tmpdir(), 'vouch-tenant-admin-'));
function configFile(name: string, extra: Record<string, unknown> = {}): string {
  const p = join(root, name);
  writeFileSync(p, JSON.stringify({ version: 1, policies: { inline: { policies: PERMIT } }, interceptors: [{ name: 'authz', use: 'cedar-policy' }], ...extra }));
  return p;
}
const remoteDoc = (url: string, extra: Record<string, unknown> = {}) => ({
  document: { version: 1, policies: { inline: { policies: PERMIT } }, interceptors: [{ name: 'authz', use: 'cedar-policy' }, { name: 'guard', remote: { url } }], ...extra },
});

let s: RunningServer;
let issuer: Awaited<ReturnType<typeof testIssuer>>;
let allowed: Awaited<ReturnType<typeof countingServer>>;
let blocked: Awaited<ReturnType<typeof countingServer>>;
const who: Record<string, Record<string, string>> = {};

async function decide(as: Record<string, string>, text: string) {
  const r = await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text } } }, as);
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json as { seq: number };
}
const sizeOf = (tenant: string) => s.dataDir.log(tenant).store.size();
const entry = async (as: Record<string, string>, seq: number) => (await get(`${s.url}/v1/entries/${seq}`, as)).json.entry;

beforeAll(async () => {
  [allowed, blocked] = await Promise.all([countingServer(), countingServer()]);
  issuer = await testIssuer();
  const tok = (sub: string, tenant: string, roles: string[]) => issuer.token({ sub, tenant, roles }).then(bearer);
  who.aUser = await tok('alice', A, ['enforce', 'audit']);
  who.aAdmin = await tok('a-admin', A, ['admin', 'audit']);
  who.bAdmin = await tok('b-admin', B, ['admin', 'audit', 'enforce']);
  who.bAdminOnly = await tok('b-admin2', B, ['admin']);
  who.bAudit = await tok('b-auditor', B, ['audit']);
  who.bEnforce = await tok('b-app', B, ['enforce']);
  who.operator = await tok('ops', 'ops', ['operator']);
  const config = configFile('vouch.json', { remoteInterceptors: { allow: [`${allowed.url}/mcp`] } });
  s = await startServer({ data: join(root, 'data'), port: 0, config, auth: issuer.auth, idleCheckpointMs: 0 });
  await decide(who.aUser, 'a one');
  await decide(who.aUser, 'a two');
  await decide(who.bAdmin, 'b one');
}, 60_000);

afterAll(async () => {
  await s?.close();
  await allowed?.close();
  await blocked?.close();
});

describe("tenant b's admin against tenant a's keys", () => {
  it('POST /v1/keys/rotate with a tenant admin token is 403 ERR_FORBIDDEN: no log gets a key entry', async () => {
    const before = { a: sizeOf(A), b: sizeOf(B) };
    for (const as of [who.bAdmin, who.aAdmin]) {
      const r = await post(`${s.url}/v1/keys/rotate`, '', as);
      expect(r.status, JSON.stringify(r.json)).toBe(403);
      expect(r.json.error.code).toBe('ERR_FORBIDDEN');
      expect(r.json.error.message).toMatch(/operator/);
      expect(JSON.stringify(r.json)).not.toContain(A);
    }
    expect({ a: sizeOf(A), b: sizeOf(B) }).toEqual(before);
    expect(s.dataDir.keyHistory(A)!.keys).toHaveLength(3); // never rotated: ML-DSA-65, Ed25519, ML-DSA-44
  });

  it('the operator rotates every log, and each key entry records who (by)', async () => {
    const before = { a: sizeOf(A), b: sizeOf(B) };
    const r = await post(`${s.url}/v1/keys/rotate`, '', who.operator);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.logs.map((l: { tenant: string }) => l.tenant)).toEqual([A, B]);
    const seqA = r.json.logs[0].seq;
    const seqB = r.json.logs[1].seq;
    expect(seqA).toBe(before.a);
    expect(seqB).toBe(before.b);
    expect(await entry(who.aUser, seqA)).toMatchObject({ type: 'key', action: 'rotate', by: 'ops' });
    expect(await entry(who.bAudit, seqB)).toMatchObject({ type: 'key', action: 'rotate', by: 'ops' });
    // The logs still decide and verify across the rotation.
    await decide(who.aUser, 'a after the rotation');
    const v = captureIo();
    await s.close();
    expect(await main(['log', 'verify', '--data', join(root, 'data'), '--tenant', A, '--json'], v.io), v.text() + v.errText()).toBe(0);
    s = await startServer({ data: join(root, 'data'), port: 0, config: join(root, 'vouch.json'), auth: issuer.auth, idleCheckpointMs: 0 });
  }, 60_000);

  it("POST /v1/keys/revoke by tenant b's admin appends to b's log only, recording who", async () => {
    const keys = (await get(`${s.url}/v1/keys`, who.bAdmin)).json.keys as { keyId: string; alg: string; to?: number; name: string }[];
    expect(keys.every((k) => k.name === `vouch.local/${B}`)).toBe(true);
    const old = keys.find((k) => k.to !== undefined && k.alg === 'ML-DSA-65')!;
    const before = { a: sizeOf(A), b: sizeOf(B) };
    const r = await post(`${s.url}/v1/keys/revoke`, { keyId: old.keyId, after: 1 }, who.bAdmin);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect({ a: sizeOf(A), b: sizeOf(B) }).toEqual({ a: before.a, b: before.b + 1 });
    expect(await entry(who.bAudit, r.json.seq)).toMatchObject({ type: 'key', action: 'revoke', by: 'b-admin' });
    // Tenant a's history is untouched: nothing of a's is revoked.
    expect(s.dataDir.keyHistory(A)!.keys.some((k) => k.window.revokedAfter !== undefined)).toBe(false);
  });
});

describe("/metrics: a tenant token sees its own tenant's counters only", () => {
  const total = (text: string, name: string) => [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)$`, 'gm'))].reduce((n, m) => n + Number(m[1]), 0);

  it("tenant b's auditor and admin: nothing of tenant a, decisions and errors of b alone", async () => {
    // Tenant a makes errors of its own; b must not see them.
    for (let i = 0; i < 3; i++) expect((await post(`${s.url}/v1/authorize`, { event: 'tools/call' }, who.aUser)).status).toBe(400);
    // Counters start with the process (the server restarted above): one decision each from here.
    const bDecisions = 1;
    await decide(who.aUser, 'a three');
    await decide(who.bAdmin, 'b two');
    for (const as of [who.bAudit, who.bAdminOnly]) {
      const r = await fetch(`${s.url}/metrics`, { headers: as });
      expect(r.status).toBe(200);
      const text = await r.text();
      expect(text).not.toContain(A);
      expect(text).toMatch(new RegExp(`^vouch_log_entries\\{tenant="${B}"\\} \\d+$`, 'm'));
      expect(total(text, 'vouch_decisions_total')).toBe(bDecisions);
      expect(total(text, 'vouch_decision_duration_seconds_count')).toBe(bDecisions);
      expect(text).not.toMatch(/vouch_errors_total\{code="ERR_INPUT"\}/);
    }
    // The operator reads both tenants: both decisions, and a's three errors.
    const op = await (await fetch(`${s.url}/metrics`, { headers: who.operator })).text();
    expect(op).toMatch(new RegExp(`^vouch_log_entries\\{tenant="${A}"\\} \\d+$`, 'm'));
    expect(op).toMatch(new RegExp(`^vouch_log_entries\\{tenant="${B}"\\} \\d+$`, 'm'));
    expect(total(op, 'vouch_decisions_total')).toBe(2);
    expect(op).toMatch(/^vouch_errors_total\{code="ERR_INPUT"\} 3$/m);
  });

  it('a token with neither audit, admin nor operator is 403', async () => {
    const r = await fetch(`${s.url}/metrics`, { headers: who.bEnforce });
    expect(r.status).toBe(403);
  });
});

describe('remote interceptor URLs on POST /v1/policy come from the operator allow-list', () => {
  it('a URL off the list is 403 ERR_REMOTE_NOT_ALLOWED before any connection, with the same text reachable or not', async () => {
    const dead = await closedPort();
    const answers = [];
    for (const url of [`${blocked.url}/mcp`, `http://127.0.0.1:${dead}/mcp`, 'http://10.255.255.1:81/mcp', 'http://localhost:1/']) {
      const r = await post(`${s.url}/v1/policy`, remoteDoc(url), who.bAdmin);
      expect(r.status, url).toBe(403);
      expect(r.json.error.code).toBe('ERR_REMOTE_NOT_ALLOWED');
      expect(r.json.error.issues).toEqual([{ path: '/interceptors/1/remote/url', message: expect.any(String) }]);
      answers.push(JSON.stringify(r.json));
    }
    expect(new Set(answers).size).toBe(1); // no port-probe oracle: one answer whatever is there
    expect(blocked.connections()).toBe(0);
  });

  it('prefix look-alikes of an allowed URL are refused too, with no connection to either server', async () => {
    const host = allowed.url.slice('http://'.length);
    for (const url of [
      `${allowed.url}/mcpx`,
      `${allowed.url}/mcp/../admin`,
      `${allowed.url}/mcp/%2e%2e/admin`,
      `http://${host}@127.0.0.1:${blocked.port}/mcp`,
      `http://127.0.0.1:${blocked.port}/${host}/mcp`,
      `https://${host}/mcp`,
      `${allowed.url}.evil.example/mcp`,
    ]) {
      const r = await post(`${s.url}/v1/policy`, remoteDoc(url), who.bAdmin);
      expect(r.status, url).toBe(403);
      expect(r.json.error.code, url).toBe('ERR_REMOTE_NOT_ALLOWED');
    }
    expect(allowed.connections()).toBe(0);
    expect(blocked.connections()).toBe(0);
  });

  it('a posted policy cannot widen the list itself', async () => {
    const r = await post(`${s.url}/v1/policy`, remoteDoc(`${blocked.url}/mcp`, { remoteInterceptors: { allow: [blocked.url] } }), who.bAdmin);
    expect(r.status).toBe(403);
    expect(r.json.error.code).toBe('ERR_REMOTE_NOT_ALLOWED');
    expect(r.json.error.issues).toContainEqual({ path: '/remoteInterceptors', message: expect.any(String) });
    expect(blocked.connections()).toBe(0);
  });

  it('an allowed URL is connected to (the list is not a refuse-all)', async () => {
    const r = await post(`${s.url}/v1/policy`, remoteDoc(`${allowed.url}/mcp/guard`), who.bAdmin);
    expect(r.json.error?.code).not.toBe('ERR_REMOTE_NOT_ALLOWED');
    expect(allowed.connections()).toBeGreaterThan(0); // it is no MCP server: activation then fails, coded
    expect(r.status).toBe(400);
    expect(blocked.connections()).toBe(0);
  });
});

describe('a pinned policy naming a remote off the list, at start', () => {
  it('every one of many calls at once is the same 403, never a 503 from a log still closing after the refusal', async () => {
    // A refused open closes the log again; a call that opened it meanwhile must wait for that close,
    // not be handed the closing log (ERR_STORE_CLOSED / a closed database, 503).
    const target = await countingServer();
    const data = join(root, 'pinned-burst');
    try {
      const pinned = configFile('pinned-burst.json', { interceptors: [{ name: 'authz', use: 'cedar-policy' }, { name: 'guard', remote: { url: `${target.url}/mcp` } }] });
      const c = captureIo();
      expect(await main(['init', '--data', data], c.io)).toBe(0);
      expect(await main(['policy', 'activate', pinned, '--data', data, '--tenant', A], c.io), c.errText()).toBe(0);
      for (let round = 0; round < 3; round++) {
        const t = await startServer({ data, port: 0, config: configFile('plain.json'), auth: issuer.auth, idleCheckpointMs: 0 });
        try {
          const answers = await Promise.all(Array.from({ length: 24 }, () => post(`${t.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: {} } }, who.aUser)));
          for (const r of answers) expect([r.status, r.json.error?.code]).toEqual([403, 'ERR_REMOTE_NOT_ALLOWED']);
        } finally {
          await t.close();
        }
      }
      expect(target.connections()).toBe(0);
    } finally {
      await target.close();
    }
  }, 60_000);

  it("refuses the tenant's log with ERR_REMOTE_NOT_ALLOWED and connects to nothing", async () => {
    const target = await countingServer();
    const data = join(root, 'pinned-data');
    try {
      const pinned = configFile('pinned.json', { interceptors: [{ name: 'authz', use: 'cedar-policy' }, { name: 'guard', remote: { url: `${target.url}/mcp` } }] });
      const c = captureIo();
      expect(await main(['init', '--data', data], c.io)).toBe(0);
      expect(await main(['policy', 'activate', pinned, '--data', data, '--tenant', A], c.io), c.errText()).toBe(0);
      const t = await startServer({ data, port: 0, config: configFile('plain.json'), auth: issuer.auth, idleCheckpointMs: 0 });
      try {
        const r = await post(`${t.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: {} } }, who.aUser);
        expect(r.status, JSON.stringify(r.json)).toBe(403);
        expect(r.json.error.code).toBe('ERR_REMOTE_NOT_ALLOWED');
        // /healthz is public: not ready, saying why, naming no tenant.
        const h = await get(`${t.url}/healthz`);
        expect(h.status).toBe(503);
        expect(h.json.error.code).toBe('ERR_REMOTE_NOT_ALLOWED');
        expect(JSON.stringify(h.json)).not.toContain(A);
        // Another tenant of the same service is not affected.
        expect((await post(`${t.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: {} } }, who.bAdmin)).status).toBe(200);
      } finally {
        await t.close();
      }
      expect(target.connections()).toBe(0);
    } finally {
      await target.close();
    }
  }, 60_000);
});
