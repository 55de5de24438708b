// vouch's 2026-07-28 wire against the SDK v2 packages' own (issue 36, "keep a test that the SDK's
// types and vouch's wire agree"): versions, envelope keys and error codes are the SDK's; the
// envelope is lifted as the SDK lifts it; every header disagreement the SDK's entry refuses, vouch
// refuses too (vouch refuses more: Mcp-Name on any method, and on 2025 requests); a request vouch
// keeps on the 2025 path is one the SDK's classifier calls 2025 traffic; and what vouch answers
// parses with the SDK's schemas.
import { SUPPORTED_PROTOCOL_VERSIONS as V1_SUPPORTED } from '@modelcontextprotocol/sdk/types.js';
import { DiscoverResultSchema, ImplementationSchema, JSONRPCErrorResponseSchema, JSONRPCResultResponseSchema } from '@modelcontextprotocol/core';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  createMcpHandler,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  SERVER_INFO_META_KEY,
  Server,
} from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { mayBeModern } from '../../src/http/mcp-endpoint.js';
import { ENVELOPE_META, JSONRPC, LEGACY_PROTOCOL_VERSIONS, liftEnvelope, mcpHeaderMismatch, MODERN_PROTOCOL_VERSIONS, SERVER_INFO_META } from '../../src/protocol/index.js';
import { testServer } from './_server.js';

type Any = Record<string, any>;
const V26 = '2026-07-28';
const ENVELOPE = { [PROTOCOL_VERSION_META_KEY]: V26, [CLIENT_CAPABILITIES_META_KEY]: {}, [CLIENT_INFO_META_KEY]: { name: 'c', version: '1' } };

/** The SDK's own 2026 entry with one handler that echoes what it was given. */
function sdkEcho() {
  const handler = createMcpHandler(
    () => {
      const s = new Server({ name: 'echo', version: '1' }, { capabilities: { tools: {} } });
      for (const m of ['x/echo', 'tools/call', 'interceptor/invoke']) s.setRequestHandler(m, { params: z.looseObject({}) }, async (params, ctx) => ({ params, envelope: (ctx as Any).mcpReq?.envelope ?? null }));
      return s;
    },
    { legacy: 'reject', onerror: () => undefined },
  );
  return async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await handler.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) }), { parsedBody: body });
    return { status: res.status, json: (await res.json().catch(() => null)) as Any };
  };
}

describe('the 2026-07-28 vocabulary is the SDK v2 packages\' own', () => {
  it('envelope keys, serverInfo key and the UnsupportedProtocolVersion code', () => {
    expect(ENVELOPE_META).toEqual({ protocolVersion: PROTOCOL_VERSION_META_KEY, clientInfo: CLIENT_INFO_META_KEY, clientCapabilities: CLIENT_CAPABILITIES_META_KEY, logLevel: LOG_LEVEL_META_KEY });
    expect(SERVER_INFO_META).toBe(SERVER_INFO_META_KEY);
    expect(JSONRPC.unsupportedProtocolVersion).toBe(ProtocolErrorCode.UnsupportedProtocolVersion);
  });

  it('versions: the 2025 list is what the 2025 path serves (SDK v1), the 2026 list what an SDK v2 server discovers', async () => {
    expect(LEGACY_PROTOCOL_VERSIONS).toEqual(V1_SUPPORTED);
    const send = sdkEcho();
    const discover = await send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: ENVELOPE } }, { 'mcp-protocol-version': V26, 'mcp-method': 'server/discover' });
    expect(discover.json.result.supportedVersions).toEqual(MODERN_PROTOCOL_VERSIONS);
  });

  it('HeaderMismatch is the code the SDK answers a disagreeing Mcp-Method with', async () => {
    const r = await sdkEcho()({ jsonrpc: '2.0', id: 1, method: 'x/echo', params: { _meta: ENVELOPE } }, { 'mcp-protocol-version': V26, 'mcp-method': 'x/other' });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(JSONRPC.headerMismatch);
  });

  it('the envelope and retry fields are lifted exactly as the SDK lifts them before its handlers', async () => {
    const send = sdkEcho();
    const cases: Any[] = [
      { a: 1 },
      { a: 1, _meta: { traceparent: 't', 'io.vouch/wait': 'durable' } },
      { a: 1, inputResponses: { k: {} }, requestState: 's' },
      { a: 1, _meta: { [LOG_LEVEL_META_KEY]: 'info' } },
    ];
    for (const params of cases) {
      const full = { ...params, _meta: { ...ENVELOPE, ...params._meta } };
      const r = await send({ jsonrpc: '2.0', id: 1, method: 'x/echo', params: full }, { 'mcp-protocol-version': V26, 'mcp-method': 'x/echo' });
      const mine = liftEnvelope(full);
      expect(mine.params, JSON.stringify(params)).toEqual(r.json.result.params);
      expect(mine.envelope, JSON.stringify(params)).toEqual(r.json.result.envelope);
    }
  });

  it('every Mcp-Method, Mcp-Name or version header the SDK refuses as a mismatch, vouch refuses too', async () => {
    const send = sdkEcho();
    const call = (method: string, params: Any = {}) => ({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: ENVELOPE } });
    const cases: [unknown, Record<string, string>][] = [];
    for (const [body, name] of [
      [call('tools/call', { name: 'echo' }), 'echo'],
      [call('tools/call', { name: 'héllo wörld' }), `=?base64?${Buffer.from('héllo wörld').toString('base64')}?=`],
      [call('interceptor/invoke', { name: 'pii' }), 'pii'],
      [call('x/echo'), undefined],
    ] as const) {
      const method = (body as Any).method;
      for (const headers of [
        { 'mcp-protocol-version': V26, 'mcp-method': method, ...(name && { 'mcp-name': name }) },
        { 'mcp-protocol-version': V26, 'mcp-method': method },
        { 'mcp-protocol-version': V26, 'mcp-method': `${method}x` },
        { 'mcp-protocol-version': '2025-11-25', 'mcp-method': method },
        { 'mcp-method': method },
        { 'mcp-protocol-version': V26 },
        { 'mcp-protocol-version': V26, 'mcp-method': method, 'mcp-name': 'other' },
        { 'mcp-protocol-version': V26, 'mcp-method': method, 'mcp-name': '=?base64?!!?=' },
      ]) cases.push([body, headers as Record<string, string>]);
    }
    let sdkRefusals = 0;
    for (const [body, headers] of cases) {
      const sdk = await send(body, headers);
      const h = { protocolVersion: headers['mcp-protocol-version'] ?? null, method: headers['mcp-method'] ?? null, name: headers['mcp-name'] ?? null };
      const mine = mcpHeaderMismatch(h, body, { version: V26 });
      if (sdk.json?.error?.code === JSONRPC.headerMismatch) {
        sdkRefusals++;
        expect(mine, `${JSON.stringify(headers)} ${JSON.stringify(body)}`).toBeDefined();
      }
      // Where the SDK serves the request, vouch refuses only an Mcp-Name the spec does not require.
      if (sdk.status === 200 && mine) expect(mine.header, JSON.stringify(headers)).toBe('Mcp-Name');
    }
    expect(sdkRefusals).toBeGreaterThan(10);
  });

  it('a request kept on the 2025 path is one the SDK classifier calls 2025 traffic', () => {
    const legacyBodies: unknown[] = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } },
      { jsonrpc: '2.0', id: 1, method: 'interceptor/executeChain', params: { event: 'tools/call', _meta: { traceparent: 't' } } },
      { jsonrpc: '2.0', id: 1, method: 'interceptors/list' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      [{ jsonrpc: '2.0', id: 1, method: 'interceptors/list' }],
      { jsonrpc: '2.0', id: 1, result: {} },
    ];
    for (const version of [undefined, '2025-11-25', '2025-06-18', '1999-01-01']) {
      for (const body of legacyBodies) {
        const req = new Request('http://127.0.0.1/mcp', { method: 'POST', headers: version ? { 'mcp-protocol-version': version } : {} });
        expect(mayBeModern(req, body)).toBe(false);
        expect(classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: version, body }).kind, JSON.stringify(body)).toBe('legacy');
      }
    }
    // And the other way: whatever the classifier would not call 2025 traffic goes to the 2026 module.
    const claim = { jsonrpc: '2.0', id: 1, method: 'interceptors/list', params: { _meta: { [PROTOCOL_VERSION_META_KEY]: '1900-01-01' } } };
    expect(mayBeModern(new Request('http://127.0.0.1/mcp', { method: 'POST' }), claim)).toBe(true);
    expect(mayBeModern(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { 'mcp-protocol-version': V26 } }), legacyBodies[2])).toBe(true);
    expect(mayBeModern(new Request('http://127.0.0.1/mcp', { method: 'POST' }), [legacyBodies[2], claim])).toBe(true);
  });
});

describe('what vouch answers on 2026 parses with the SDK\'s schemas', () => {
  let server: Awaited<ReturnType<typeof testServer>>;
  beforeAll(async () => {
    server = await testServer();
  });
  afterAll(() => server.close());
  const send = async (method: string, params: Any = {}, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': V26, 'mcp-method': method, ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: { ...ENVELOPE, ...params._meta } } }),
    });
    return (await res.json()) as Any;
  };

  it('results, discover and errors', async () => {
    const discover = await send('server/discover');
    expect(JSONRPCResultResponseSchema.safeParse(discover).success).toBe(true);
    expect(DiscoverResultSchema.safeParse(discover.result).success).toBe(true);
    expect(ImplementationSchema.safeParse(discover.result._meta[SERVER_INFO_META_KEY]).success).toBe(true);
    for (const [m, p] of [
      ['interceptors/list', {}],
      ['interceptor/invoke', { name: 'pii', event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: {} } }],
      ['interceptor/executeChain', { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: {} } }],
    ] as const) {
      const r = await send(m, p);
      expect(JSONRPCResultResponseSchema.safeParse(r).success, m).toBe(true);
      expect(r.result.resultType).toBe('complete');
    }
    for (const r of [await send('interceptors/list', {}, { 'mcp-method': 'x' }), await send('interceptors/list', { _meta: { [PROTOCOL_VERSION_META_KEY]: '1900-01-01' } }, { 'mcp-protocol-version': '1900-01-01' })]) {
      expect(JSONRPCErrorResponseSchema.safeParse(r).success, JSON.stringify(r)).toBe(true);
    }
  });
});
