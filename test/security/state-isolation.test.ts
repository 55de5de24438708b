// Issue 36 "State without sessions" and issue 38 "schema-guard state is shared across tenants",
// against a real server with bearer tokens, over POST /mcp on MCP 2026-07-28 (no Mcp-Session-Id).
// The attackers: mallory, a second principal of alice's tenant, who wants to plant taint in
// alice's conversation, learn what alice read (a deny is an oracle), spend alice's rate budget,
// loosen or tighten the schema alice's calls are checked against, or read alice's authorized
// arguments through an authorization seq (a handle); and a second tenant whose calls must not be
// checked against the first tenant's listing. Every live state of the chain is keyed by tenant
// and principal (and the session where the caller names one), never a shared default.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64, utf8 } from '../../src/canonical/index.js';
import { replayLog } from '../../src/audit/index.js';
import { storeReplaySource } from '../../src/audit/node-bundle.js';
import { GITHUB_PAT, STRIPE } from '../interceptors/builtin/_secrets.js';
import { post, testIssuer, testServer, writeConfig } from '../http/_server.js';

type Any = Record<string, any>;
const V26 = '2026-07-28';
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': V26, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'agent', version: '1.0.0' } };
const H26 = { 'mcp-protocol-version': V26, 'mcp-method': 'interceptor/executeChain' };

const CONFIG = {
  version: 1,
  policies: { inline: { policies: 'permit(principal, action, resource);' } },
  interceptors: [
    { name: 'authz', use: 'cedar-policy' },
    { name: 'exfiltration', use: 'cross-boundary-guard' },
    { name: 'schemas', use: 'schema-guard', config: { unknownTool: 'allow' } },
    { name: 'discovery', use: 'discovery-filter' },
    // One call per tool per conversation: a `session` part that is the same for every caller
    // without a session would let one principal spend another's budget.
    { name: 'rate', use: 'rate-limit', config: { limit: 1, windowMs: 3_600_000, key: ['tool', 'session'] } },
  ],
  uncovered: [{ events: ['tools/call', 'tools/list'], phase: 'response' }],
};

let s: Awaited<ReturnType<typeof testServer>>;
const as: Record<string, Record<string, string>> = {};
let rpc = 0;

/** One 2026 executeChain as `who`: no session unless the context names one. */
async function decide(who: string, event: string, phase: 'request' | 'response', payload: unknown, context: Any = {}, meta: Any = {}) {
  const r = await post(`${s.url}/mcp`, { jsonrpc: '2.0', id: ++rpc, method: 'interceptor/executeChain', params: { event, phase, payload, context, _meta: { ...ENVELOPE, ...meta } } }, { ...as[who], ...H26 });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  expect(r.json.result, JSON.stringify(r.json)).toBeDefined();
  const result = r.json.result as Any;
  const entry = JSON.parse(utf8.decode(fromBase64(result._meta['io.vouch/receipt'].entry))) as Any;
  return { status: result.status as string, result, entry, seq: result._meta['io.vouch/seq'] as number };
}
const call = (name: string, args: Any) => ({ name, arguments: args });
const messages = (r: { result: Any }) => JSON.stringify(r.result.results.flatMap((x: Any) => x.messages ?? []));

/** `who` reads a file from the filesystem server: the response carries `secret`. */
async function readSecret(who: string, secret: string, context: Any = {}, tool = 'read_file') {
  const req = await decide(who, 'tools/call', 'request', call(tool, { path: '/srv/.env' }), { server: 'filesystem', ...context });
  expect(req.status, messages(req)).toBe('success');
  const res = await decide(who, 'tools/call', 'response', { content: [{ type: 'text', text: `TOKEN=${secret}` }] }, { server: 'filesystem', ...context });
  expect(res.status).toBe('success');
}

beforeAll(async () => {
  const issuer = await testIssuer();
  const tok = async (sub: string, tenant: string) => ({ authorization: `Bearer ${await issuer.token({ sub, tenant, roles: ['enforce'] })}` });
  as.alice = await tok('alice', 'acme');
  as.mallory = await tok('mallory', 'acme');
  as.gina = await tok('gina', 'globex');
  const dir = mkdtempSync(join(tmpdir(), 'vouch-state-isolation-'));
  s = await testServer({ config: writeConfig(dir, CONFIG), auth: issuer.auth, idleCheckpointMs: 0 });
}, 60_000);
afterAll(() => s?.close());

describe('cross-boundary taint: two principals of one tenant on 2026 /mcp, no session', () => {
  it("mallory cannot learn what alice read: sending alice's secret elsewhere is not denied for mallory", async () => {
    await readSecret('alice', STRIPE);
    const probe = await decide('mallory', 'tools/call', 'request', call('post_note', { text: `is it ${STRIPE}?` }), { server: 'everything' });
    expect(probe.status, messages(probe)).toBe('success');
    expect(JSON.stringify(probe.entry.state)).not.toContain('"matches":[{');
    // Alice's own taint holds without a session: the principal is the conversation.
    const relay = await decide('alice', 'tools/call', 'request', call('send_note', { text: STRIPE }), { server: 'everything' });
    expect(relay.status).toBe('validation_failed');
    expect(messages(relay)).toContain("returned by 'filesystem' may not be sent to 'everything'");
  });

  it("mallory cannot plant taint in alice's conversation: a value mallory's response carried does not deny alice", async () => {
    await readSecret('mallory', GITHUB_PAT);
    const own = await decide('alice', 'tools/call', 'request', call('push', { token: GITHUB_PAT }), { server: 'github' });
    expect(own.status, messages(own)).toBe('success');
  });

  it("interceptor/invoke is no oracle either: the guard invoked by mallory sees mallory's taint only", async () => {
    const secret = STRIPE.replace('4eC7', '3kW5');
    await readSecret('alice', secret, {}, 'cat_file'); // another tool: alice's read_file budget (one) is spent
    const invoke = async (who: string) => {
      const r = await post(`${s.url}/mcp`, { jsonrpc: '2.0', id: ++rpc, method: 'interceptor/invoke', params: { name: 'exfiltration', event: 'tools/call', phase: 'request', payload: call('post_note', { text: secret }), _meta: ENVELOPE } }, { ...as[who], ...H26, 'mcp-method': 'interceptor/invoke' });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      return r.json.result as Any;
    };
    expect((await invoke('mallory')).valid).toBe(true);
    expect((await invoke('alice')).valid).toBe(false); // the same question by alice: her own taint answers
  });

  it("naming alice's session id does not reach alice's taint (a session is scoped under its principal)", async () => {
    const secret = STRIPE.replace('4eC7', '9zQ1');
    await readSecret('alice', secret, { sessionId: 'team-session' });
    const probe = await decide('mallory', 'tools/call', 'request', call('post_memo', { text: secret }), { server: 'everything', sessionId: 'team-session' });
    expect(probe.status, messages(probe)).toBe('success');
    const relay = await decide('alice', 'tools/call', 'request', call('send_memo', { text: secret }), { server: 'everything', sessionId: 'team-session' });
    expect(relay.status).toBe('validation_failed');
  });
});

describe('rate-limit: a session-keyed limit without sessions is per principal', () => {
  it("mallory's calls do not spend alice's budget, and alice's second call is still limited", async () => {
    const a1 = await decide('alice', 'tools/call', 'request', call('ping', {}), { server: 'everything' });
    expect(a1.status).toBe('success');
    const m1 = await decide('mallory', 'tools/call', 'request', call('ping', {}), { server: 'everything' });
    expect(m1.status, messages(m1)).toBe('success');
    expect(m1.result.results.find((x: Any) => x.interceptor === 'rate').info.count).toBe(1);
    const a2 = await decide('alice', 'tools/call', 'request', call('ping', {}), { server: 'everything' });
    expect(a2.status).toBe('validation_failed');
    expect(messages(a2)).toContain('rate limit exceeded: 2/1');
    // Naming alice's session does not spend it either.
    const as1 = await decide('alice', 'tools/call', 'request', call('pong', {}), { server: 'everything', sessionId: 'shared' });
    const ms1 = await decide('mallory', 'tools/call', 'request', call('pong', {}), { server: 'everything', sessionId: 'shared' });
    expect([as1.status, ms1.status]).toEqual(['success', 'success']);
  });
});

describe('schema-guard: the schema a call is checked against is the one its own principal and tenant listed', () => {
  const strict = { type: 'object', properties: { amount: { type: 'number', maximum: 10 } }, required: ['amount'], additionalProperties: false };
  const lax = { type: 'object' };
  const list = (who: string, schema: Any, server = 'bank') => decide(who, 'tools/list', 'response', { tools: [{ name: 'transfer', inputSchema: schema }] }, { server });

  it("acme's tools/list does not set the schema globex's calls are checked against", async () => {
    expect((await list('alice', strict)).status).toBe('success');
    const g = await decide('gina', 'tools/call', 'request', call('transfer', { amount: 500, memo: 'globex has its own server' }), { server: 'bank' });
    expect(g.status, messages(g)).toBe('success');
    expect(g.result.results.find((x: Any) => x.interceptor === 'schemas').info).toMatchObject({ schema: 'unknown' });
  });

  it("mallory's listing neither loosens nor replaces the schema alice's calls are checked against", async () => {
    await list('alice', strict, 'bank2');
    await list('mallory', lax, 'bank2');
    const a = await decide('alice', 'tools/call', 'request', call('transfer', { amount: 5000, to: 'mallory' }), { server: 'bank2' });
    expect(a.status).toBe('validation_failed');
    expect(messages(a)).toContain('/arguments/amount 5000 is greater than 10');
    // And mallory is checked against mallory's own listing.
    const m = await decide('mallory', 'tools/call', 'request', call('transfer', { amount: 5000 }), { server: 'bank2' });
    expect(m.status).toBe('success');
  });
});

describe("authorization links (handles): mallory cannot reach alice's authorized call", () => {
  const secretArgs = { to: 'ceo@acme.test', body: 'merger with initech, board vote friday' };

  it("POST /v1/executions naming alice's seq: unauthorized, and no value or path of alice's intent in the answer or entry", async () => {
    const auth = await decide('alice', 'tools/call', 'request', call('send_mail', secretArgs), { server: 'mail' });
    expect(auth.status).toBe('success');
    const x = await post(`${s.url}/v1/executions`, { authorization: auth.seq, executed: call('send_mail', { to: 'x' }) }, as.mallory);
    expect(x.status, JSON.stringify(x.json)).toBe(200);
    expect(x.json.flags).toContain('unauthorized');
    expect(x.json.drift).toBeNull();
    const text = JSON.stringify(x.json) + utf8.decode(fromBase64(x.json.receipt.entry));
    for (const leak of ['ceo@acme.test', 'merger', '/arguments/body', 'send_mail']) expect(text, leak).not.toContain(leak);
  });

  it("/mcp response phase naming alice's seq in _meta, or alice's session and trace: not linked to alice's decision", async () => {
    const auth = await decide('alice', 'tools/call', 'request', call('send_mail', secretArgs), { server: 'mail', sessionId: 's-mail', traceId: 't-mail' });
    const claimed = await decide('mallory', 'tools/call', 'response', { content: [{ type: 'text', text: 'sent' }] }, { server: 'mail' }, { 'io.vouch/authorization': auth.seq, 'io.vouch/executed': call('send_mail', { to: 'x' }) });
    const linked = claimed.entry.state['(vouch)'].execution;
    expect(linked.authorization).toBeNull();
    expect(JSON.stringify(claimed.entry)).not.toContain('/arguments/body');
    const fallback = await decide('mallory', 'tools/call', 'response', { content: [{ type: 'text', text: 'sent' }] }, { server: 'mail', sessionId: 's-mail', traceId: 't-mail' });
    expect(fallback.entry.state['(vouch)']?.execution?.authorization ?? null).toBeNull();
    // Alice's own response still links by session and trace.
    const own = await decide('alice', 'tools/call', 'response', { content: [{ type: 'text', text: 'sent' }] }, { server: 'mail', sessionId: 's-mail', traceId: 't-mail' });
    expect(own.entry.state['(vouch)'].execution).toMatchObject({ via: 'session-trace', authorization: auth.seq });
  });
});

describe('replay', () => {
  it("every decision of both tenants' logs replays to match from its recorded state", async () => {
    for (const tenant of ['acme', 'globex']) {
      const report = await replayLog(storeReplaySource(s.dataDir.log(tenant).store as never));
      expect(report.results.filter((r) => r.status !== 'match'), tenant).toEqual([]);
      expect(report.match).toBeGreaterThan(0);
    }
  });
});
