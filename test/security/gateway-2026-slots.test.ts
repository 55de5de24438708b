// Callers of `vouch gateway --listen` in the 2026-07-28 era hold an upstream connection each
// (issue 36), counted against the listener's session limit. A stateless caller never says it is
// done, so the attacker here is simply a caller that stops calling (or many): its connection must
// be given back once it is idle (no request, no parked call, no listen stream), or the listener
// refuses every later caller, 2025 sessions included, until restart. And an upstream that dies
// under one caller must not leave that caller answered "upstream gone" forever.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { listenGateway, type Listening } from '../../src/mcp/gateway-http.js';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import { closeReplayed, makeWorkspace } from '../mcp/_gateway.js';

const ASKING = fileURLToPath(new URL('../mcp/fixtures/asking-server-2025.mjs', import.meta.url));
const AUDIENCE = 'https://gateway.test/mcp';
const ISSUER = 'https://as.test/';
const POLICY = `
@id("asking-tools")
permit(principal, action == Action::"tools/call", resource) when { context.server == "asking" };
@id("asking-elicitation")
permit(principal, action == Action::"elicitation/create", resource == Elicitation::"asking");
`;
const IDLE_MS = 400;

let rt: GatewayRuntime;
let listening: Listening;
let mint: (sub: string) => Promise<string>;

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = { ...((await exportJWK(publicKey)) as JWK), kid: 'k1', alg: 'ES256', use: 'sig' };
  mint = (sub) => new SignJWT({ sub }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer(ISSUER).setAudience(AUDIENCE).setIssuedAt().setExpirationTime('10m').sign(privateKey);
  const ws = makeWorkspace('vouch-gw26-slots-');
  appendFileSync(join(ws.dir, 'gateway-policy.cedar'), POLICY);
  // Listen streams allowed (as uncovered traffic), so that a caller can hold one open and walk away.
  writeFileSync(ws.config, readFileSync(ws.config, 'utf8').replace('\ndrift:', '\n  - events: [subscriptions/listen]\n    phase: request\n\ndrift:'));
  rt = await openGateway({ data: ws.data, config: ws.config, upstream: { command: `node '${ASKING}'`, stderr: 'ignore' }, serverName: 'asking', thread: false, timeoutMs: 20_000 });
  listening = await listenGateway(rt, { port: 0, maxSessions: 2, callerIdleMs: IDLE_MS, auth: { jwks: { keys: [jwk] }, issuer: ISSUER, audience: AUDIENCE, resource: AUDIENCE, tenant: 'default' } });
});
afterAll(async () => {
  await listening?.close();
  await closeReplayed(rt);
});

type Answer = { status: number; result?: Record<string, unknown>; error?: { code: number; message: string; data?: Record<string, unknown> } };
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };
let nextId = 0;

async function call(token: string, params: Record<string, unknown>): Promise<Answer> {
  const r = await fetch(listening.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': String(params.name) },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method: 'tools/call', params: { ...params, _meta: ENVELOPE } }),
  });
  const text = await r.text();
  if (!text.startsWith('event:') && !text.startsWith('data:') && !text.startsWith('id:')) return { ...(JSON.parse(text) as object), status: r.status };
  const data = text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)) as Answer);
  return { ...data.find((d) => 'result' in d || 'error' in d)!, status: r.status };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const echo = (message: string) => ({ name: 'echo', arguments: { message } });

describe('gateway --listen: a 2026 caller\'s upstream connection is given back when it is idle', () => {
  it('callers that stopped calling do not keep the next ones out; a parked call keeps its own', async () => {
    const [a, b, c] = await Promise.all(['agent-a', 'agent-b', 'agent-c'].map(mint));
    // a parks a call (its handle must survive the idle time); b is served and goes quiet.
    const parked = await call(a!, { name: 'confirm', arguments: { what: 'x' } });
    expect(parked.result?.resultType).toBe('input_required');
    expect((await call(b!, echo('b'))).result).toMatchObject({ content: [{ text: 'Echo: b' }] });
    // Both slots are taken right now.
    const full = await call(c!, echo('c'));
    expect(full.status).toBe(503);
    // Once b has been idle, c gets its slot; a's parked call is still there for its retry.
    await sleep(IDLE_MS * 3);
    expect((await call(c!, echo('c'))).result).toMatchObject({ content: [{ text: 'Echo: c' }] });
    const key = Object.keys(parked.result!.inputRequests as object)[0]!;
    const next = await call(a!, { name: 'confirm', arguments: { what: 'x' }, requestState: parked.result!.requestState, inputResponses: { [key]: { action: 'accept', content: { confirm: true } } } });
    expect(next.result?.resultType).toBe('input_required');
  });

  it('a caller whose upstream died gets a fresh one on its next request', async () => {
    const d = await mint('agent-d');
    await sleep(IDLE_MS * 3); // the callers above have gone idle
    expect((await call(d, echo('first'))).result).toMatchObject({ content: [{ text: 'Echo: first' }] });
    const mine = rt.sessions().at(-1)!; // the gateway d's first request opened
    const pid = (mine.client.transport as StdioClientTransport).pid!;
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 100 && mine.isUpstreamOpen(); i++) await sleep(20);
    expect(mine.isUpstreamOpen()).toBe(false);
    expect((await call(d, echo('again'))).result).toMatchObject({ content: [{ text: 'Echo: again' }] });
  });

  it('a listen stream its client walked away from does not hold the connection', async () => {
    const e = await mint('agent-e');
    await sleep(IDLE_MS * 3);
    const before = await (await fetch(listening.url.replace('/mcp', '/healthz'))).json() as { callers2026: number };
    const walkAway = new AbortController();
    const stream = await fetch(listening.url, {
      method: 'POST',
      signal: walkAway.signal,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${e}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: ENVELOPE } }),
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const reader = stream.body!.getReader();
    await reader.read(); // the stream is open (its acknowledgement arrived)
    const open = await (await fetch(listening.url.replace('/mcp', '/healthz'))).json() as { callers2026: number };
    expect(open.callers2026).toBe(before.callers2026 + 1);
    walkAway.abort();
    await expect.poll(async () => ((await (await fetch(listening.url.replace('/mcp', '/healthz'))).json()) as { callers2026: number }).callers2026, { timeout: IDLE_MS * 10, interval: 100 }).toBe(before.callers2026);
  });
});
