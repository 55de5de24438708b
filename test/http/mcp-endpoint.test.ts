// POST /mcp takes two ways into the SDK's interceptor server (http/mcp-endpoint.ts): plain
// interceptor requests go to one shared Server, everything else through the SDK's Streamable
// HTTP transport with a Server per request. Both must give the same bytes; the gate must send
// every request the SDK transport would treat specially its way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plainInterceptorRequest } from '../../src/http/mcp-endpoint.js';
import { stripVolatile } from '../../src/interceptors/chain.js';
import { testServer } from './_server.js';

const SHARED = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
// The same media type, spelled so that the gate leaves it to the SDK transport.
const SDK = { 'content-type': 'application/json; charset=utf-8', accept: 'application/json, text/event-stream' };

const call = (id: number | string, method: string, params?: unknown) => ({ jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) });
const chain = (payload: unknown, context: Record<string, unknown> = { sessionId: 's1' }) => ({ event: 'tools/call', phase: 'request', payload, context });

describe('plainInterceptorRequest (the gate)', () => {
  const req = (headers: Record<string, string> = SHARED) => new Request('http://127.0.0.1/mcp', { method: 'POST', headers });
  const body = call(1, 'interceptor/executeChain', chain({ name: 'echo', arguments: {} }));

  it('takes a plain request for an interceptor method, as the SDK would parse it', () => {
    expect(plainInterceptorRequest(req(), body)).toEqual(body);
    for (const m of ['interceptors/list', 'interceptor/invoke']) expect(plainInterceptorRequest(req(), call('x', m, {}))).toMatchObject({ method: m });
    expect(plainInterceptorRequest(req({ ...SHARED, 'mcp-protocol-version': '2025-06-18' }), body)).toBeDefined();
  });

  it('leaves everything the SDK transport answers itself, or routes elsewhere, to the SDK', () => {
    const sdkWay: [string, Request, unknown][] = [
      ['a batch', req(), [body]],
      ['initialize', req(), call(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } })],
      ['ping', req(), call(1, 'ping')],
      ['an unknown method', req(), call(1, 'tools/call', {})],
      ['a notification', req(), { jsonrpc: '2.0', method: 'interceptor/executeChain', params: {} }],
      ['a wrong jsonrpc', req(), { ...body, jsonrpc: '1.0' }],
      ['a fractional id', req(), { ...body, id: 1.5 }],
      ['an extra top-level key', req(), { ...body, extra: 1 }],
      ['no Accept', req({ 'content-type': 'application/json' }), body],
      ['Accept without SSE', req({ ...SHARED, accept: 'application/json' }), body],
      ['another media type', req({ ...SHARED, 'content-type': 'text/plain' }), body],
      ['an unsupported protocol version', req({ ...SHARED, 'mcp-protocol-version': '1999-01-01' }), body],
      ['a string body', req(), 'interceptor/executeChain'],
      ['null', req(), null],
    ];
    for (const [what, r, b] of sdkWay) expect(plainInterceptorRequest(r, b), what).toBeUndefined();
  });
});

describe('POST /mcp: the shared server and the SDK transport answer alike', () => {
  let server: Awaited<ReturnType<typeof testServer>>;
  beforeAll(async () => {
    server = await testServer();
  });
  afterAll(() => server.close());

  const send = async (headers: Record<string, string>, body: unknown) => {
    const res = await fetch(`${server.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };

  it('the same bytes for lists, invocations and errors', async () => {
    const bodies = [
      call(1, 'interceptors/list'),
      call(2, 'interceptors/list', { event: 'tools/call' }),
      call(3, 'interceptors/list', { event: 5 }),
      call('inv', 'interceptor/invoke', { name: 'pii', event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'call 415 555 0199' } } }),
      call(5, 'interceptor/invoke', { name: 'nope', event: 'tools/call', phase: 'request', payload: {} }),
      call(6, 'interceptor/executeChain', {}),
      call(7, 'interceptor/executeChain', { ...chain({ name: 'echo', arguments: {} }), interceptors: ['nope'] }),
      // executeChain's lean path (no shared Server): its errors are framed as the SDK frames them.
      call(8, 'interceptor/executeChain', { ...chain({ name: 'echo', arguments: {} }), event: 'no/such-event' }),
      call(9, 'interceptor/executeChain', { ...chain({ name: 'echo', arguments: {} }), _meta: { 'io.vouch/wait': 'soon' } }),
      call('t', 'interceptor/executeChain', { ...chain({ name: 'echo', arguments: {} }), phase: 'sideways' }),
      call(11, 'interceptor/executeChain'),
    ];
    for (const b of bodies) {
      const [shared, sdk] = [await send(SHARED, b), await send(SDK, b)];
      // Durations differ from run to run; nothing else may.
      const stable = (t: string) => t.replace(/"durationMs":\d+(\.\d+)?/g, '"durationMs":0');
      expect({ ...shared, text: stable(shared.text) }, JSON.stringify(b)).toEqual({ ...sdk, text: stable(sdk.text) });
      expect(shared.status).toBe(200);
    }
  });

  it('the same decisions for executeChain (allow, mutation, deny), receipts apart', async () => {
    for (const payload of [{ name: 'echo', arguments: { text: 'hi' } }, { name: 'echo', arguments: { text: 'call me at 415 555 0199' } }, { name: 'dangerous_tool', arguments: {} }]) {
      const b = call('c', 'interceptor/executeChain', chain(payload));
      const [shared, sdk] = [await send(SHARED, b), await send(SDK, b)];
      expect(shared.status).toBe(sdk.status);
      expect(shared.type).toBe(sdk.type);
      const [a, s] = [JSON.parse(shared.text), JSON.parse(sdk.text)];
      expect(Object.keys(a)).toEqual(Object.keys(s));
      for (const r of [a, s]) {
        expect(r.result._meta['io.vouch/receipt']).toMatchObject({ v: 1 });
        delete r.result._meta['io.vouch/receipt'];
        delete r.result._meta['io.vouch/seq'];
      }
      // The rate limiter counts both calls (state, not a difference between the two ways).
      const stable = (r: unknown) => JSON.stringify(stripVolatile(r, ['durationMs', 'totalDurationMs'])).replace(/"count":\d+/, '"count":0').replace(/"windowStart":"[^"]*"/, '"windowStart":""');
      expect(stable(a)).toBe(stable(s));
    }
  });

  it('the same answers for a durable executeChain, with a protocol version header, and one that asks for a task', async () => {
    const durable = call('d', 'interceptor/executeChain', { ...chain({ name: 'echo', arguments: { text: 'hi' } }), _meta: { 'io.vouch/wait': 'durable' } });
    const task = call('k', 'interceptor/executeChain', { ...chain({ name: 'echo', arguments: { text: 'hi' } }), task: { ttl: 1000 } });
    for (const [b, extra] of [[durable, {}], [durable, { 'mcp-protocol-version': '2025-06-18' }], [task, {}]] as const) {
      const [shared, sdk] = [await send({ ...SHARED, ...extra }, b), await send({ ...SDK, ...extra }, b)];
      expect(shared.status).toBe(sdk.status);
      const [a, s] = [JSON.parse(shared.text), JSON.parse(sdk.text)];
      expect(Object.keys(a)).toEqual(Object.keys(s));
      for (const r of [a, s]) {
        if (!r.result) continue;
        const meta = r.result._meta;
        expect(Object.keys(meta)).toEqual(Object.keys(s.result._meta));
        // Each way wrote its own entry: their bytes differ in seq, prev and time, and nothing else is compared here.
        for (const k of ['io.vouch/receipt', 'io.vouch/durable', 'io.vouch/seq']) delete meta[k];
      }
      const stable = (r: unknown) => JSON.stringify(stripVolatile(r, ['durationMs', 'totalDurationMs'])).replace(/"count":\d+/, '"count":0').replace(/"windowStart":"[^"]*"/, '"windowStart":""');
      expect(stable(a), JSON.stringify(b)).toBe(stable(s));
    }
  });

  it('concurrent requests with the same JSON-RPC id each get their own answer', async () => {
    const texts = Array.from({ length: 24 }, (_, i) => `hello ${i}`);
    const answers = await Promise.all(texts.map((text) => send(SHARED, call(1, 'interceptor/executeChain', chain({ name: 'echo', arguments: { text } })))));
    const seqs = new Set<number>();
    answers.forEach((r, i) => {
      const json = JSON.parse(r.text);
      expect(json.id).toBe(1);
      expect(json.result.finalPayload).toEqual({ name: 'echo', arguments: { text: texts[i] } });
      seqs.add(json.result._meta['io.vouch/seq']);
    });
    expect(seqs.size).toBe(texts.length);
  });
});
