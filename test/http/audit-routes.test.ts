// The audit REST routes on a real server with bearer tokens: replay and what-if (audit role), a
// streamed .tar.gz export that verifies offline, erasure and policy activation without a restart
// (admin role), and the pinned policy surviving a restart.
import { createWriteStream, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyBundle } from '../../src/audit/index.js';
import { openBundle } from '../../src/audit/node-bundle.js';
import { main } from '../../src/cli/main.js';
import { startServer, type RunningServer } from '../../src/http/node-server.js';
import { loadConfigFile } from '../../src/policy/load-config.js';
import { parseTrust } from '../../src/receipt/index.js';
import { captureIo, FIXTURE_CONFIG, requestOf } from '../audit/_generate.js';
import { get, post, testIssuer } from './_server.js';

let s: RunningServer;
let data: string;
let issuer: Awaited<ReturnType<typeof testIssuer>>;
const auth: Record<'enforce' | 'audit' | 'admin', Record<string, string>> = { enforce: {}, audit: {}, admin: {} };
let document: Record<string, any>;

const call = (method: 'GET' | 'POST' | 'DELETE', path: string, who: keyof typeof auth, body?: unknown) =>
  method === 'POST' ? post(`${s.url}${path}`, body ?? {}, auth[who]) : fetch(`${s.url}${path}`, { method, headers: auth[who] }).then(async (r) => ({ status: r.status, json: await r.json().catch(() => null) as any }));

async function authorize(i: number) {
  const req = requestOf(i);
  const r = await post(`${s.url}/v1/authorize`, { event: req.event, phase: req.phase, payload: req.payload, context: { sessionId: req.context.sessionId, server: req.context.server } }, auth.enforce);
  expect(r.status).toBe(200);
  return r.json as { effect: string; seq: number };
}

const chainOf = async (seq: number) => (await get(`${s.url}/v1/entries/${seq}`, auth.audit)).json.entry.policy.chain as string;

beforeAll(async () => {
  issuer = await testIssuer();
  for (const role of ['enforce', 'audit', 'admin'] as const) auth[role] = { authorization: `Bearer ${await issuer.token({ sub: `${role}-user`, tenant: 'acme', roles: [role] })}` };
  data = join(mkdtempSync(join(tmpdir(), 'vouch-http-audit-')), 'data');
  s = await startServer({ data, port: 0, config: FIXTURE_CONFIG, auth: issuer.auth });
  for (let i = 0; i < 36; i += 12) await Promise.all(Array.from({ length: 12 }, (_, j) => authorize(i + j)));
  document = (await loadConfigFile(FIXTURE_CONFIG)).resolved as Record<string, any>;
}, 60_000);

afterAll(async () => {
  await s?.close();
});

describe('POST /v1/replay', () => {
  it('replays the tenant log to match (audit role only)', async () => {
    const r = await call('POST', '/v1/replay', 'audit', {});
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ ok: true, decisions: 36, match: 36, mismatch: 0, unreplayable: 0 });
    expect((await call('POST', '/v1/replay', 'enforce', {})).status).toBe(403);
    expect((await call('POST', '/v1/replay', 'audit', { from: -1, all: 'yes' })).json.error).toMatchObject({ code: 'ERR_INPUT', issues: [{ path: '/from' }, { path: '/all' }] });
  });

  it('runs a what-if against a candidate document', async () => {
    const candidate = structuredClone(document);
    candidate.interceptors.find((i: any) => i.name === 'authz').mode = 'audit';
    // An audit-mode authz covers nothing: the candidate must also let uncovered traffic through.
    candidate.uncovered = [{ events: ['*'], phase: 'both' }];
    const r = await call('POST', '/v1/replay', 'audit', { policy: { document: candidate } });
    expect(r.status).toBe(200);
    expect(r.json.denyToAllow).toBeGreaterThan(0);
    expect(r.json.allowToDeny).toBe(0);
    expect(r.json.flips.every((f: any) => f.to === 'allow')).toBe(true);
    // Each flip says why: what decided before (from the entry) and what lets it through now.
    expect(r.json.changed).toBe(true);
    expect(r.json.flips.every((f: any) => f.before.length > 0 && f.after.some((d: any) => d.interceptor === '(vouch)' && /uncovered/.test(d.message)))).toBe(true);
  });
});

describe('GET /v1/export', () => {
  it('streams a .tar.gz bundle that verifies and replays offline', async () => {
    const res = await fetch(`${s.url}/v1/export?payloads=1`, { headers: auth.audit });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    const file = join(mkdtempSync(join(tmpdir(), 'vouch-http-export-')), 'b.tar.gz');
    await pipeline(Readable.fromWeb(res.body as never), createWriteStream(file));
    const b = await openBundle(file);
    try {
      const trust = parseTrust(JSON.stringify((await get(`${s.url}/.well-known/vouch/keys`)).json));
      const r = await verifyBundle(b.reader, { trusted: trust });
      expect(r.findings).toEqual([]);
      expect(r).toMatchObject({ ok: true, keysFrom: 'trusted key', replay: { decisions: 36, match: 36 } });
    } finally {
      b.close();
    }
  });

  it('answers bad ranges with a JSON error before any byte is streamed', async () => {
    const r = await call('GET', '/v1/export?from=30&to=2', 'audit');
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('ERR_INPUT');
    expect((await call('GET', '/v1/export?from=x', 'audit')).status).toBe(400);
    expect((await call('GET', '/v1/export', 'enforce')).status).toBe(403);
  });
});

describe('GET /v1/entries: what the console lists', () => {
  const rows = async (q: string) => (await get(`${s.url}/v1/entries?${q}`, auth.audit)).json as { total: number; rows: Record<string, any>[] };
  const execute = (authorization: number | null, executed: unknown) => post(`${s.url}/v1/executions`, { authorization, executed, event: 'tools/call' }, auth.enforce);

  it('a decision shows the worst drift of all its executions (not the last), flags repeated; the drift filter finds it', async () => {
    const a = await authorize(11); // get-sum on everything: allow
    expect(a.effect).toBe('allow');
    const intent = requestOf(11).payload as { name: string; arguments: Record<string, unknown> };
    const bad = await execute(a.seq, { ...intent, arguments: { ...intent.arguments, amount: 1e6 } });
    expect(bad.json.flags).toEqual(['drift-critical']);
    // What changed, with both values: the amount was added.
    expect(bad.json.drift.items).toEqual([{ path: '/arguments/amount', op: 'add', severity: 'critical', executed: 1e6 }]);
    const clean = await execute(a.seq, intent);
    expect(clean.json.flags).toEqual(['repeated']);
    const row = (await rows(`from=${a.seq}&limit=1`)).rows[0];
    expect(row).toMatchObject({ seq: a.seq, phase: 'request', target: 'get-sum', drift: 'critical', link: clean.json.seq, executions: [bad.json.seq, clean.json.seq] });
    expect(row.flags).toEqual(expect.arrayContaining(['drift-critical', 'repeated']));
    const critical = await rows('drift=critical');
    expect(critical.rows.map((r) => r.seq)).toContain(a.seq);
    expect((await rows('drift=none')).rows.map((r) => r.seq)).not.toContain(a.seq);
    // The execution rows name the target too, and their own flags.
    const ex = await rows(`type=execution&from=${bad.json.seq}&limit=2`);
    expect(ex.rows.map((r) => [r.target, r.drift, r.flags])).toEqual([['get-sum', 'critical', ['drift-critical']], ['get-sum', 'none', ['repeated']]]);
  });

  it('every decision row has its phase and a target that is never a server name; unauthorized executions are flagged', async () => {
    const all = await rows('limit=500');
    for (const r of all.rows) {
      expect(['request', 'response']).toContain(r.phase);
      expect(['everything', 'files']).not.toContain(r.target);
    }
    expect(all.rows.find((r) => r.event === 'prompts/get')?.target).toBe('admin_prompt');
    expect(all.rows.find((r) => r.target === 'dangerous_tool')?.effect).toBe('deny');
    const u = await execute(999_999, { name: 'x' });
    expect(u.json.flags).toEqual(['unauthorized']);
    const ur = (await rows(`type=execution&from=${u.json.seq}&limit=1`)).rows[0];
    expect(ur).toMatchObject({ type: 'execution', flags: ['unauthorized'], link: null });
  });

  it('lists policy activations (type=policy) with their digests', async () => {
    const p = await rows('type=policy');
    expect(p.total).toBeGreaterThanOrEqual(1);
    expect(p.rows[0]).toMatchObject({ type: 'policy', policy: { action: 'activate', chain: expect.stringMatching(/^sha256:/), policySet: expect.stringMatching(/^sha256:/) } });
  });
});

describe('DELETE /v1/payloads/:digest', () => {
  it('erases (admin only), records the erasure, and replay says erased', async () => {
    const deny = await authorize(1); // dangerous_tool: a deny, payload stored by digest
    const entry = (await get(`${s.url}/v1/entries/${deny.seq}`, auth.audit)).json.entry;
    const digest = entry.input.digest;
    expect((await call('DELETE', `/v1/payloads/${digest}`, 'audit')).status).toBe(403);
    const r = await call('DELETE', `/v1/payloads/${digest}?reason=test`, 'admin');
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ digest, erased: true, seq: deny.seq + 1 });
    expect((await get(`${s.url}/v1/payloads/${digest}`, auth.audit)).status).toBe(404);
    const erasure = (await get(`${s.url}/v1/entries/${r.json.seq}`, auth.audit)).json.entry;
    expect(erasure).toMatchObject({ type: 'erasure', digest, reason: 'test', by: 'admin-user' });
    const rep = (await call('POST', '/v1/replay', 'audit', {})).json;
    expect(rep.mismatch).toBe(0);
    expect(rep.byReason['payload erased']).toBeGreaterThanOrEqual(1);
    expect((await call('DELETE', `/v1/payloads/${digest}`, 'admin')).status).toBe(404);
    expect((await call('DELETE', '/v1/payloads/sha256:nothex', 'admin')).status).toBe(400);
  });

  it('a CLI writer cannot touch the log the server holds', async () => {
    const c = captureIo();
    expect(await main(['payload', 'erase', `sha256:${'1'.repeat(64)}`, '--data', data, '--tenant', 'acme'], c.io)).toBe(4);
    expect(c.errText()).toContain('in use');
  });
});

describe('POST /v1/policy', () => {
  let activated: { chain: string; policySet: string };

  it('refuses non-admins and bad configs, and the old policy stays in force', async () => {
    const before = await chainOf((await authorize(0)).seq);
    expect((await call('POST', '/v1/policy', 'audit', { document })).status).toBe(403);
    const bad = await call('POST', '/v1/policy', 'admin', { document: { ...document, interceptors: [{ name: 'x', use: 'no-such-builtin' }] } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('ERR_CONFIG');
    expect((await call('POST', '/v1/policy', 'admin', { config: 'version: 1\npolicies: { files: [p.cedar] }\ninterceptors: []\n' })).json.error.code).toBe('ERR_CONFIG');
    expect(await chainOf((await authorize(0)).seq)).toBe(before);
  });

  it('swaps the policy without a restart: the next decision runs under the new chain', async () => {
    const next = structuredClone(document);
    next.policies.inline.policies = next.policies.inline.policies.replace('Tool::"echo", ', '');
    const r = await call('POST', '/v1/policy', 'admin', { document: next });
    expect(r.status).toBe(200);
    activated = r.json;
    expect(r.json).toMatchObject({ activated: true, chain: expect.stringMatching(/^sha256:/), interceptors: 9 });
    const d = await authorize(0); // echo: allowed before, denied now
    expect(d.effect).toBe('deny');
    expect(await chainOf(d.seq)).toBe(r.json.chain);
    // Every decision, before and after the swap, still replays under its own documents.
    const rep = (await call('POST', '/v1/replay', 'audit', {})).json;
    expect(rep.mismatch).toBe(0);
    expect(rep.other.policy).toBe(2);
  });

  it('keeps the activated policy across a restart (pinned), YAML text accepted', async () => {
    await s.close();
    s = await startServer({ data, port: 0, config: FIXTURE_CONFIG, auth: issuer.auth });
    expect(await chainOf((await authorize(0)).seq)).toBe(activated.chain);
    const yaml = `version: 1\npolicies: { inline: { policies: 'permit(principal, action, resource);' } }\ninterceptors: [{ name: authz, use: cedar-policy }]\n`;
    const r = await call('POST', '/v1/policy', 'admin', { config: yaml });
    expect(r.status).toBe(200);
    expect((await authorize(1)).effect).toBe('allow'); // dangerous_tool, under permit-all
  });
});
