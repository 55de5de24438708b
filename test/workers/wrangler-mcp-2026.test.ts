// MCP 2026-07-28 on the Worker as deployed code (issue 36): `wrangler dev --local` (real workerd,
// the bundle wrangler builds, the SQLite Durable Object) running the example config, with real
// peers of both eras side by side from Node: the SDK v2 client pinned to 2026-07-28 and in `auto`
// mode, and the v1 SDK client on 2025-11-25. Then the wire byte by byte: server/discover, the
// private cacheable list, the `_meta` envelope's client recorded, a header mismatch refused and
// recorded, an unsupported version answered with the served list, the SDK's own 2026 entry; and
// every way a request can be spelled on either era answered by the Worker as Node answers it.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromBase64, utf8 } from '../../src/canonical/index.js';
import { formatKeyText } from '../../src/crypto/index.js';
import { generateSeed } from '../../src/crypto/node.js';
import { INTERCEPTORS_EXTENSION, RECEIPT_META } from '../../src/http/mcp-server.js';
import { startServer, type RunningServer } from '../../src/http/node-server.js';
import { loadConfigFile } from '../../src/policy/load-config.js';
import { SERVED_PROTOCOL_VERSIONS } from '../../src/protocol/index.js';
import { parseTrust, verifiersFor, verifyReceipt } from '../../src/receipt/index.js';
import { WORKER_CONFIG_SOURCE } from '../../scripts/build-worker-config.js';
import { startDev, type DevServer } from './_wrangler.js';

type Any = Record<string, any>;
const V26 = '2026-07-28';
const META = { version: 'io.modelcontextprotocol/protocolVersion', caps: 'io.modelcontextprotocol/clientCapabilities', info: 'io.modelcontextprotocol/clientInfo', server: 'io.modelcontextprotocol/serverInfo' };
const ENVELOPE = { [META.version]: V26, [META.caps]: {}, [META.info]: { name: 'raw-client', version: '0.0.1' } };
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
// The same media type, spelled so that the endpoint leaves the request to the SDK's own 2026 entry (createMcpHandler).
const SDK_WAY = { 'content-type': 'application/json; charset=utf-8', accept: 'application/json, text/event-stream' };
const anyResult = z.looseObject({});

const modern = (id: number | string, method: string, params: Any = {}, meta: Any = {}) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...ENVELOPE, ...meta } } });
const legacy = (id: number | string, method: string, params?: Any) => ({ jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) });
const h26 = (method: string, more: Record<string, string> = {}) => ({ 'mcp-protocol-version': V26, 'mcp-method': method, ...more });
const chain = (name: string, text = 'hi') => ({ event: 'tools/call', phase: 'request', payload: { name, arguments: { text } }, context: { sessionId: 's-worker-2026' } });
const entryOf = (receipt: Any): Any => JSON.parse(utf8.decode(fromBase64(receipt.entry)));

const dir = mkdtempSync(join(tmpdir(), 'vouch-wrangler-2026-'));
let dev: DevServer;
let mcpUrl: string;

const send = async (body: unknown, headers: Record<string, string> = {}, base = JSON_HEADERS) => {
  const res = await fetch(mcpUrl, { method: 'POST', headers: { ...base, ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  let json: Any | undefined;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, type: res.headers.get('content-type'), text, json: json as Any };
};
const get = async (path: string) => ((await (await fetch(`${dev.url}${path}`)).json()) as Any);
const logSize = async () => (await get('/v1/entries?limit=1')).size as number;

/** The receipt verifies offline with the Worker's published keys; the entry it carries. */
async function verified(receipt: Any): Promise<Any> {
  const trust = parseTrust(JSON.stringify(await get('/.well-known/vouch/keys')));
  const report = verifyReceipt(receipt, { verifiers: verifiersFor(trust, receipt.checkpoint) });
  expect(report.checks.filter((c) => !c.ok)).toEqual([]);
  return entryOf(receipt);
}

interface Peer {
  label: string;
  era: string;
  clientInfo?: { name: string; version: string };
  capabilities(): Any | undefined;
  call(method: string, params: Any): Promise<Any>;
  close(): Promise<void>;
}

async function v2Peer(mode: 'auto' | { pin: string }, name: string): Promise<Peer> {
  const client = new ClientV2({ name, version: '2.4.0-worker' }, { versionNegotiation: { mode } });
  await client.connect(new TransportV2(new URL(mcpUrl)));
  return {
    label: `SDK v2 client (${JSON.stringify(mode)})`,
    era: client.getNegotiatedProtocolVersion()!,
    clientInfo: { name, version: '2.4.0-worker' },
    capabilities: () => client.getServerCapabilities() as Any | undefined,
    call: (method, params) => client.request({ method, params }, anyResult) as Promise<Any>,
    close: () => client.close(),
  };
}

async function v1Peer(): Promise<Peer> {
  const client = new ClientV1({ name: 'v1-client', version: '1.32.2-worker' });
  const transport = new TransportV1(new URL(mcpUrl));
  await client.connect(transport);
  return {
    label: 'SDK v1 client (2025-11-25)',
    era: transport.protocolVersion!,
    capabilities: () => client.getServerCapabilities() as Any | undefined,
    call: (method, params) => client.request({ method, params }, anyResult) as Promise<Any>,
    close: () => client.close(),
  };
}

beforeAll(async () => {
  // The example config Node runs (not whatever a team last generated into config.generated.json).
  const document = (await loadConfigFile(WORKER_CONFIG_SOURCE)).resolved;
  writeFileSync(join(dir, '.dev.vars'), `VOUCH_SIGNING_KEY='${formatKeyText('ML-DSA-65', generateSeed()).trim()}'\n`, { mode: 0o600 });
  dev = await startDev({ persist: join(dir, 'state'), envFile: join(dir, '.dev.vars'), config: document, entryDir: dir });
  mcpUrl = `${dev.url}/mcp`;
}, 180_000);

afterAll(async () => {
  await dev?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('wrangler dev: 2026-07-28 and 2025-11-25 clients side by side on the Worker', () => {
  let peers: Peer[];
  beforeAll(async () => {
    peers = [await v2Peer({ pin: V26 }, 'v2-pinned'), await v2Peer('auto', 'v2-auto'), await v1Peer()];
  }, 60_000);
  afterAll(async () => {
    for (const p of peers ?? []) await p.close().catch(() => undefined);
  });

  it('the v2 client negotiates 2026-07-28 through server/discover (pinned and auto), the v1 client 2025-11-25; both see the interceptors extension', async () => {
    expect(peers.map((p) => p.era), dev.output()).toEqual([V26, V26, '2025-11-25']);
    const viaInitialize = peers[2].capabilities()?.extensions as Any;
    expect(viaInitialize[INTERCEPTORS_EXTENSION].supportedEvents).toContain('tools/call');
    for (const p of peers.slice(0, 2)) expect(p.capabilities()?.extensions, p.label).toEqual(viaInitialize);
  });

  it('executeChain allows, redacts and denies alike on every era, concurrently; each entry records its era and (2026) the claimed client', async () => {
    const answers = await Promise.all(peers.flatMap((p) => [p.call('interceptor/executeChain', chain('echo', `from ${p.label} at 415 555 0199`)), p.call('interceptor/executeChain', chain('dangerous_tool'))]));
    for (const [i, p] of peers.entries()) {
      const [allow, deny] = [answers[2 * i], answers[2 * i + 1]];
      expect(allow.status, p.label).toBe('success');
      expect(allow.finalPayload.arguments.text, p.label).toBe(`from ${p.label} at [PHONE_REDACTED]`);
      expect(deny.status, p.label).not.toBe('success');
      for (const [a, effect] of [[allow, 'allow'], [deny, 'deny']] as const) {
        const e = await verified(a._meta[RECEIPT_META]);
        expect(e).toMatchObject({ type: 'decision', log: 'vouch.local/default', principal: 'local-operator', decision: { effect }, protocolVersion: p.era });
        if (p.era === V26) expect(e.clientInfo, p.label).toEqual(p.clientInfo);
        else expect(e.clientInfo, p.label).toBeUndefined();
      }
    }
  });

  it('interceptors/list and interceptor/invoke answer every era alike', async () => {
    const lists = await Promise.all(peers.map((p) => p.call('interceptors/list', { event: 'tools/call' })));
    const strip = ({ _meta: _m, ttlMs: _t, cacheScope: _c, ...rest }: Any) => rest;
    for (const l of lists) expect(strip(l)).toEqual(strip(lists[2]));
    expect(lists[2].interceptors.map((i: Any) => i.name)).toContain('pii');
    const invoke = { name: 'pii', event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'call 415 555 0199' } } };
    const invoked = await Promise.all(peers.map((p) => p.call('interceptor/invoke', invoke)));
    const stable = ({ _meta: _m, durationMs: _d, ...rest }: Any) => rest;
    for (const r of invoked) expect(stable(r)).toEqual(stable(invoked[2]));
    expect(JSON.stringify(invoked[0])).toContain('[PHONE_REDACTED]');
  });
});

describe('wrangler dev: the Worker answers both eras as Node does', () => {
  let node: RunningServer;
  beforeAll(async () => {
    node = await startServer({ data: join(dir, 'node-data'), port: 0, logLine: () => {} });
  });
  afterAll(() => node?.close());

  // What differs by nature between two logs: timings, receipts, seqs, the rate limit's counters.
  const VOLATILE = new Set(['durationMs', 'totalDurationMs', RECEIPT_META, 'io.vouch/seq', 'count', 'windowStart']);
  const stable = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(stable) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, VOLATILE.has(k) ? 0 : stable(x)])) : v;
  const tp = '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01';
  const invoke = (name: string) => ({ name, event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'mail a@example.com' } } });
  const twentyFive = { 'mcp-protocol-version': '2025-11-25' };
  // Not here: wait "durable". The Worker's log (a Durable Object) has no commit-only append, so it
  // answers that with the signed receipt, on either era (decide.ts: no appendDurable).
  const cases: [string, 'GET' | 'POST' | 'DELETE', unknown, Record<string, string>][] = [
    ['discover', 'POST', modern(1, 'server/discover'), h26('server/discover')],
    ['list', 'POST', modern(2, 'interceptors/list', { event: 'tools/call' }), h26('interceptors/list')],
    ['list, bad params', 'POST', modern(3, 'interceptors/list', { event: 5 }), h26('interceptors/list')],
    ['invoke, Mcp-Name', 'POST', modern(4, 'interceptor/invoke', invoke('pii')), h26('interceptor/invoke', { 'mcp-name': 'pii' })],
    ['invoke, base64 Mcp-Name', 'POST', modern(5, 'interceptor/invoke', invoke('pii')), h26('interceptor/invoke', { 'mcp-name': '=?base64?cGlp?=' })],
    ['invoke, unknown interceptor', 'POST', modern(6, 'interceptor/invoke', invoke('nope')), h26('interceptor/invoke')],
    ['executeChain, mutated', 'POST', modern(7, 'interceptor/executeChain', chain('echo', 'call 415 555 0199')), h26('interceptor/executeChain')],
    ['executeChain, denied', 'POST', modern(8, 'interceptor/executeChain', chain('dangerous_tool')), h26('interceptor/executeChain')],
    ['executeChain, _meta traceparent', 'POST', modern(9, 'interceptor/executeChain', chain('echo'), { traceparent: tp }), h26('interceptor/executeChain')],
    ['executeChain, HTTP traceparent', 'POST', modern(10, 'interceptor/executeChain', chain('echo')), h26('interceptor/executeChain', { traceparent: tp })],
    ['executeChain, task asked', 'POST', modern(11, 'interceptor/executeChain', { ...chain('echo'), task: { ttl: 1000 } }), h26('interceptor/executeChain')],
    ['executeChain, retry fields', 'POST', modern(12, 'interceptor/executeChain', { ...chain('echo'), inputResponses: {}, requestState: 'x' }), h26('interceptor/executeChain')],
    ['executeChain, bad phase', 'POST', modern(13, 'interceptor/executeChain', { ...chain('echo'), phase: 'sideways' }), h26('interceptor/executeChain')],
    ['executeChain, Mcp-Method mismatch (a recorded refusal)', 'POST', modern(14, 'interceptor/executeChain', chain('echo')), h26('interceptors/list')],
    ['invoke, Mcp-Name mismatch', 'POST', modern(15, 'interceptor/invoke', invoke('pii')), h26('interceptor/invoke', { 'mcp-name': 'secrets' })],
    ['no Mcp-Method', 'POST', modern(16, 'interceptors/list'), { 'mcp-protocol-version': V26 }],
    ['unsupported version', 'POST', modern(17, 'interceptors/list', {}, { [META.version]: '2099-01-01' }), h26('interceptors/list', { 'mcp-protocol-version': '2099-01-01' })],
    ['a 2025 version in the envelope', 'POST', modern(18, 'interceptors/list', {}, { [META.version]: '2025-11-25' }), h26('interceptors/list', twentyFive)],
    ['a 2026 header without an envelope', 'POST', legacy(19, 'interceptors/list', {}), h26('interceptors/list')],
    ['an envelope without clientCapabilities', 'POST', { jsonrpc: '2.0', id: 20, method: 'interceptors/list', params: { _meta: { [META.version]: V26 } } }, h26('interceptors/list')],
    ['a 2026 batch', 'POST', [modern(21, 'interceptors/list'), modern(22, 'server/discover')], { 'mcp-protocol-version': V26 }],
    ['a 2026 notification', 'POST', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: ENVELOPE } }, h26('notifications/cancelled')],
    ['another method', 'POST', modern(23, 'tools/list'), h26('tools/list')],
    ['initialize with an envelope', 'POST', modern(24, 'initialize', { protocolVersion: V26, capabilities: {}, clientInfo: { name: 'x', version: '1' } }), h26('initialize')],
    ['subscriptions/listen', 'POST', modern(25, 'subscriptions/listen'), h26('subscriptions/listen')],
    ['GET with a 2026 header', 'GET', undefined, { accept: 'text/event-stream', 'mcp-protocol-version': V26 }],
    ['DELETE with a 2026 header', 'DELETE', undefined, { 'mcp-protocol-version': V26 }],
    ['2025: initialize', 'POST', legacy(30, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } }), {}],
    ['2025: list', 'POST', legacy(31, 'interceptors/list', { event: 'tools/call' }), twentyFive],
    ['2025: executeChain', 'POST', legacy(32, 'interceptor/executeChain', chain('echo', 'call 415 555 0199')), twentyFive],
    ['2025: executeChain, no version header', 'POST', legacy(33, 'interceptor/executeChain', chain('dangerous_tool')), {}],
    ['2025: Mcp-Method mismatch (a recorded refusal)', 'POST', legacy(34, 'interceptor/executeChain', chain('echo')), { ...twentyFive, 'mcp-method': 'interceptor/invoke' }],
    ['2025: batch', 'POST', [legacy(35, 'interceptors/list'), legacy(36, 'interceptors/list', { event: 'tools/call' })], twentyFive],
  ];

  it('every case: the same status, media type and body, receipts, seqs and timings apart (the lean way and the SDK entry)', async () => {
    const answer = async (base: string, method: string, body: unknown, headers: Record<string, string>) => {
      const res = await fetch(`${base}/mcp`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
      const text = await res.text();
      return { status: res.status, type: res.headers.get('content-type'), body: text === '' ? '' : stable(JSON.parse(text)) };
    };
    for (const [what, method, body, headers] of cases) {
      for (const base of method === 'POST' ? [JSON_HEADERS, SDK_WAY] : [{} as Record<string, string>]) {
        const [fromNode, fromWorker] = [await answer(node.url, method, body, { ...base, ...headers }), await answer(dev.url, method, body, { ...base, ...headers })];
        expect(fromWorker, `${what} (${base['content-type'] ?? method})`).toEqual(fromNode);
      }
    }
  });
});

describe('wrangler dev: the 2026-07-28 wire on the Worker', () => {
  it('server/discover: the 2026 versions, the interceptors extension as initialize advertises it, resultType, cacheable but private', async () => {
    const r = await send(modern(1, 'server/discover'), h26('server/discover'));
    expect(r.status, r.text).toBe(200);
    expect(r.json.result).toMatchObject({ supportedVersions: [V26], resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: { [META.server]: { name: 'vouch' } } });
    const init = await send(legacy(2, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } }));
    expect(init.status).toBe(200);
    expect(r.json.result.capabilities.extensions).toEqual(init.json.result.capabilities.extensions);
    expect(r.json.result.capabilities.extensions[INTERCEPTORS_EXTENSION]).toBeDefined();
  });

  it('interceptors/list on 2026 has ttlMs and cacheScope "private" and the same bytes every time; the 2025 list carries neither', async () => {
    const [a, b] = [await send(modern(3, 'interceptors/list'), h26('interceptors/list')), await send(modern(3, 'interceptors/list'), h26('interceptors/list'))];
    expect(a.status).toBe(200);
    expect(a.text).toBe(b.text);
    expect(a.json.result).toMatchObject({ ttlMs: 0, cacheScope: 'private', resultType: 'complete' });
    const old = await send(legacy(4, 'interceptors/list'), { 'mcp-protocol-version': '2025-11-25' });
    expect(old.status).toBe(200);
    expect(old.json.result.interceptors).toEqual(a.json.result.interceptors);
    for (const k of ['ttlMs', 'cacheScope', 'resultType', 'serverInfo']) expect(old.text).not.toContain(k);
  });

  it('executeChain with the _meta envelope records the envelope version and clientInfo; the same request on 2025 records 2025-11-25 and no client', async () => {
    const r = await send(modern(5, 'interceptor/executeChain', chain('echo')), h26('interceptor/executeChain'));
    expect(r.status, r.text).toBe(200);
    expect(r.json.result).toMatchObject({ status: 'success', resultType: 'complete', _meta: { [META.server]: { name: 'vouch' } } });
    expect(await verified(r.json.result._meta[RECEIPT_META])).toMatchObject({ protocolVersion: V26, clientInfo: { name: 'raw-client', version: '0.0.1' }, decision: { effect: 'allow' } });
    const old = await send(legacy(6, 'interceptor/executeChain', chain('echo')), { 'mcp-protocol-version': '2025-11-25' });
    expect(old.status).toBe(200);
    expect(old.text).not.toContain('resultType');
    const e = await verified(old.json.result._meta[RECEIPT_META]);
    expect(e.protocolVersion).toBe('2025-11-25');
    expect(e.clientInfo).toBeUndefined();
  });

  it('an Mcp-Method header that disagrees with the body: HTTP 400 -32020 before any interceptor ran, recorded as a signed deny on either era', async () => {
    for (const [body, headers, era] of [
      [modern('m1', 'interceptor/executeChain', chain('echo')), h26('interceptors/list'), V26],
      [legacy('m2', 'interceptor/executeChain', chain('echo')), { 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'interceptor/invoke' }, '2025-11-25'],
    ] as const) {
      const before = await logSize();
      const r = await send(body, headers);
      expect(r.status, r.text).toBe(400);
      expect(r.json).toMatchObject({ jsonrpc: '2.0', id: body.id, error: { code: -32020, data: { code: 'ERR_HEADER_MISMATCH', header: 'Mcp-Method', value: headers['mcp-method'], body: 'interceptor/executeChain' } } });
      expect(await logSize()).toBe(before + 1);
      const e = await verified(r.json.error.data['io.vouch/receipt']);
      expect(e).toMatchObject({ seq: before, event: 'tools/call', decision: { effect: 'deny' }, ran: [], protocolVersion: era });
      expect(e.state['(vouch)']['mcp-headers']).toMatchObject({ header: 'Mcp-Method', value: headers['mcp-method'], body: 'interceptor/executeChain' });
      if (era === V26) expect(e.clientInfo).toEqual({ name: 'raw-client', version: '0.0.1' });
      else expect(e.clientInfo).toBeUndefined();
    }
    // No decision asked, nothing written: a list whose header names another method is only refused.
    const before = await logSize();
    expect((await send(modern(7, 'interceptors/list'), h26('interceptor/executeChain'))).json.error.code).toBe(-32020);
    expect(await logSize()).toBe(before);
  });

  it('a version it does not serve: HTTP 400 -32022 listing every version it serves (2026 first), nothing decided or written', async () => {
    const before = await logSize();
    for (const requested of ['2099-01-01', '2026-07-29']) {
      const r = await send(modern(8, 'interceptor/executeChain', chain('echo'), { [META.version]: requested }), h26('interceptor/executeChain', { 'mcp-protocol-version': requested }));
      expect(r.status, r.text).toBe(400);
      expect(r.json).toMatchObject({ id: 8, error: { code: -32022, data: { requested, code: 'ERR_UNSUPPORTED_PROTOCOL_VERSION', supported: [...SERVED_PROTOCOL_VERSIONS] } } });
      expect(r.json.error.data.supported.slice(0, 2)).toEqual([V26, '2025-11-25']);
    }
    expect(await logSize()).toBe(before);
  });

  it("the SDK's own 2026 entry (createMcpHandler) runs in workerd and answers as the lean way does", async () => {
    const stable = (t: string) => t.replace(/"durationMs":\d+(\.\d+)?/g, '"durationMs":0');
    for (const [m, b] of [
      ['server/discover', modern(9, 'server/discover')],
      ['interceptors/list', modern(10, 'interceptors/list', { event: 'tools/call' })],
      ['interceptor/invoke', modern(11, 'interceptor/invoke', { name: 'pii', event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'call 415 555 0199' } } })],
      ['interceptor/executeChain', modern(12, 'interceptor/executeChain', chain('echo', 'x'), { 'io.vouch/wait': 'soon' })],
    ] as const) {
      const [lean, sdk] = [await send(b, h26(m)), await send(b, h26(m), SDK_WAY)];
      expect(sdk.status, sdk.text).toBe(200);
      expect({ ...sdk, text: stable(sdk.text), json: undefined }, m).toEqual({ ...lean, text: stable(lean.text), json: undefined });
    }
    const r = await send(modern(13, 'interceptor/executeChain', chain('dangerous_tool')), h26('interceptor/executeChain'), SDK_WAY);
    expect(await verified(r.json.result._meta[RECEIPT_META])).toMatchObject({ decision: { effect: 'deny' }, protocolVersion: V26, clientInfo: { name: 'raw-client' } });
    // Only that entry answers these: another method, and a notification.
    expect((await send(modern(14, 'tools/list'), h26('tools/list'))).json.error.code).toBe(-32601);
    expect((await send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: ENVELOPE } }, h26('notifications/cancelled'))).status).toBe(202);
  });

  it('POST /v1/replay on the Worker replays every decision made here, 2026 ones and refusals included, to match', async () => {
    const res = await fetch(`${dev.url}/v1/replay`, { method: 'POST', headers: JSON_HEADERS, body: '{}' });
    const report = (await res.json()) as Any;
    expect(res.status, JSON.stringify(report)).toBe(200);
    expect(report.mismatch).toBe(0);
    expect(report.findings).toEqual([]);
    expect(report.match).toBeGreaterThan(10);
  });
});
