// Hostile input against the real HTTP entry points (fast-check): random and mutated JSON-RPC and
// REST bodies never crash the process, always get a coded answer, and never produce an allow
// where the chain denies.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isKnownEvent, MCP_EVENTS, SEP_EVENTS } from '../../src/protocol/index.js';
import { get, post, testServer, writeConfig } from './_server.js';

let s: Awaited<ReturnType<typeof testServer>>;

beforeAll(async () => {
  const dir = (await import('node:fs')).mkdtempSync((await import('node:path')).join((await import('node:os')).tmpdir(), 'vouch-fuzz-'));
  // A chain that denies everything: any allow would be a fail-open bug.
  // It is mandatory (not optional) and an authorization interceptor, so it covers every event.
  const config = writeConfig(dir, { version: 1, interceptors: [{ name: 'no', use: 'conformance/deny-all', authorizes: true, hooks: [{ events: ['*'], phase: 'request' }, { events: ['*'], phase: 'response' }] }] });
  s = await testServer({ config });
});
afterAll(async () => {
  await s?.close();
});

const json = fc.jsonValue({ maxDepth: 6 });
const method = fc.constantFrom('interceptor/executeChain', 'interceptor/invoke', 'interceptors/list', 'initialize', 'tools/call', 'x/y', '');
const event = fc.oneof(fc.constantFrom('tools/call', 'prompts/get', 'sampling/createMessage', 'elicitation/create', '*', 'custom/op'), fc.string());
const phase = fc.oneof(fc.constantFrom('request', 'response'), fc.string(), fc.integer());

function isCoded(r: { status: number; json: any }): boolean {
  if (typeof r.json !== 'object' || r.json === null) return false;
  if ('result' in r.json) return true;
  const e = r.json.error;
  return typeof e === 'object' && e !== null && (typeof e.code === 'number' || /^ERR_[A-Z_]+$/.test(e.code));
}

describe('fuzzing the entry points', () => {
  it('JSON-RPC: random envelopes get a result or a coded error, and never an allow', async () => {
    await fc.assert(
      fc.asyncProperty(fc.record({ jsonrpc: fc.oneof(fc.constant('2.0'), json), id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)), method, params: fc.oneof(json, fc.record({ event, phase, payload: json }, { requiredKeys: [] })) }, { requiredKeys: [] }), async (body) => {
        const r = await post(`${s.url}/mcp`, body);
        expect(r.status).toBeLessThan(500);
        // A message without an id is a notification: JSON-RPC answers nothing (202, empty body).
        if (r.status === 202) expect(r.json).toBe('');
        else expect(isCoded(r)).toBe(true);
        if (r.json.result && 'status' in r.json.result) expect(r.json.result.status).not.toBe('success');
      }),
      { numRuns: 150 },
    );
  });

  it('executeChain: any payload under a deny-all chain is denied; an unknown event is never decided', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(event, fc.constantFrom(...MCP_EVENTS)), fc.constantFrom('request', 'response'), json, async (ev, ph, payload) => {
        const r = await post(`${s.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'interceptor/executeChain', params: { event: ev, phase: ph, payload } });
        expect(r.status).toBe(200);
        if (!isKnownEvent(ev)) {
          expect(r.json.error.code).toBe(-32602);
          expect(r.json.error.data.code).toBe(ev === '' || ev.length > 200 ? 'ERR_INPUT' : 'ERR_UNKNOWN_EVENT');
          return;
        }
        expect(r.json.result.status).not.toBe('success');
        expect(r.json.result._meta['io.vouch/receipt'].v).toBe(1);
      }),
      { numRuns: 100 },
    );
  });

  it('REST: mutated bodies (byte flips, truncation, junk) get coded errors, never 5xx, never allow', async () => {
    const valid = JSON.stringify({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'hi' } } });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: valid.length - 1 }), fc.integer({ min: 0, max: 255 }), fc.boolean(), async (pos, byte, truncate) => {
        const bytes = Buffer.from(valid);
        if (truncate) bytes[pos] = 0;
        else bytes[pos] = byte;
        const body = truncate ? bytes.subarray(0, pos).toString('latin1') : bytes.toString('latin1');
        const r = await post(`${s.url}/v1/authorize`, body);
        expect(r.status).toBeLessThan(500);
        expect(isCoded(r) || r.json.effect === 'deny').toBe(true);
        if (r.status === 200) expect(r.json.effect).toBe('deny');
      }),
      { numRuns: 150 },
    );
    expect((await get(`${s.url}/healthz`)).status).toBe(200);
  });
});

// Issue 14 item 5: web pages. Any content type that is not application/json, and any Origin that
// is not the service's own, is refused before anything is decided or written.
describe('fuzzing content types and origins', () => {
  const ownOrigin = () => new URL(s.url).origin;
  const contentType = fc.oneof(
    fc.constantFrom('text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp', 'text/json', 'application/json; charset=latin1', 'text/plain; a=application/json', ''),
    fc.string({ maxLength: 40 }).filter((t) => /^[\x21-\x7e ]*$/.test(t) && !/^\s*application\/json\s*(;|$)/i.test(t)),
  );
  const origin = fc.oneof(
    fc.constantFrom('null', 'http://evil.example', 'https://127.0.0.1', 'http://localhost', 'file://', 'chrome-extension://abc'),
    fc.webUrl().map((u) => new URL(u).origin),
    fc.string({ maxLength: 30 }).filter((o) => /^[\x21-\x7e]+$/.test(o)),
  ).filter((o) => o !== ownOrigin());
  const target = fc.constantFrom('/v1/authorize', '/mcp', '/v1/executions', '/v1/policy', '/v1/replay');
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'interceptor/executeChain', params: { event: 'tools/call', phase: 'request', payload: {} }, event: 'tools/call', phase: 'request', payload: {} });
  const size = async () => (await get(`${s.url}/v1/checkpoint`)).json.size as number;

  it('a body that is not application/json gets 415 on every JSON endpoint', async () => {
    const before = await size();
    await fc.assert(
      fc.asyncProperty(target, contentType, async (path, ct) => {
        const res = await fetch(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': ct, accept: 'application/json, text/event-stream' }, body });
        expect(res.status).toBe(415);
        const j = await res.json();
        expect(j.error.data?.code ?? j.error.code).toBe('ERR_UNSUPPORTED_MEDIA_TYPE');
      }),
      { numRuns: 100 },
    );
    expect(await size()).toBe(before);
  });

  it('a foreign Origin gets 403 on every route, JSON or not', async () => {
    const before = await size();
    await fc.assert(
      fc.asyncProperty(fc.oneof(target, fc.constantFrom('/v1/checkpoint', '/v1/entries/0', '/metrics')), origin, fc.boolean(), async (path, o, json) => {
        const isGet = !['/v1/authorize', '/mcp', '/v1/executions', '/v1/policy', '/v1/replay'].includes(path);
        const res = await fetch(`${s.url}${path}`, isGet ? { headers: { origin: o } } : { method: 'POST', headers: { origin: o, 'content-type': json ? 'application/json' : 'text/plain', accept: 'application/json, text/event-stream' }, body });
        expect(res.status).toBe(403);
        expect(res.headers.get('access-control-allow-origin')).toBeNull();
      }),
      { numRuns: 100 },
    );
    expect(await size()).toBe(before);
  });
});

// Issue 14 items 1-3: whatever a caller puts in `interceptors`, `event` and `context`, the
// mandatory deny-all chain still decides, an event that is not exactly a known one is bad input,
// and the recorded principal is the caller's own (dev mode: local-operator).
describe('fuzzing the chain selection, the event name and the context', () => {
  const KNOWN = [...MCP_EVENTS, ...SEP_EVENTS];
  const via = fc.constantFrom('rest', 'mcp');
  const ask = async (how: string, params: Record<string, unknown>) => {
    if (how === 'rest') {
      const r = await post(`${s.url}/v1/authorize`, params);
      return { status: r.status, effect: r.json.effect as string | undefined, seq: r.json.seq as number | undefined, code: r.json.error?.code as string | undefined };
    }
    const r = await post(`${s.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'interceptor/executeChain', params });
    const res = r.json.result;
    return res ? { status: r.status, effect: res.status === 'success' ? 'allow' : 'deny', seq: res._meta['io.vouch/seq'] as number } : { status: r.status, code: r.json.error?.data?.code as string | undefined };
  };
  const size = async () => (await get(`${s.url}/v1/checkpoint`)).json.size as number;
  /** A known event, changed a little: one character's case flipped, one inserted, or a suffix. */
  const nearMiss = fc
    .tuple(fc.constantFrom(...KNOWN), fc.nat(), fc.constantFrom('case', 'insert', 'suffix', 'prefix'), fc.oneof(fc.constantFrom('/', 'x', ' ', '\u200b', '\u0131', '*', '.', '\n'), fc.string({ minLength: 1, maxLength: 3 })))
    .map(([e, n, how, ch]) => {
      const i = n % e.length;
      if (how === 'case') return e.slice(0, i) + (e[i] === e[i].toUpperCase() ? e[i].toLowerCase() : e[i].toUpperCase()) + e.slice(i + 1);
      if (how === 'insert') return e.slice(0, i) + ch + e.slice(i);
      return how === 'suffix' ? e + ch : ch + e;
    })
    .filter((e) => !isKnownEvent(e));

  it('near misses of known event names are ERR_UNKNOWN_EVENT on both entry points, and write nothing', async () => {
    const before = await size();
    await fc.assert(
      fc.asyncProperty(via, nearMiss, async (how, ev) => {
        const r = await ask(how, { event: ev, phase: 'request', payload: { name: 'echo', arguments: {} } });
        expect(r.effect).toBeUndefined();
        expect(r.code).toBe(ev.length > 200 ? 'ERR_INPUT' : 'ERR_UNKNOWN_EVENT');
        if (how === 'rest') expect(r.status).toBe(400);
      }),
      { numRuns: 150 },
    );
    expect(await size()).toBe(before);
  });

  it('any interceptors list and any context: never an allow past the mandatory chain; the principal is the caller', async () => {
    const names = fc.array(fc.oneof(fc.constantFrom('no', 'no', 'authz', ''), fc.string({ maxLength: 8 })), { maxLength: 5 });
    const str = fc.oneof(fc.constantFrom('local-operator', 'ci-bot', 'admin', '', ' ', 'x'.repeat(300)), fc.string({ maxLength: 12 }), json);
    const context = fc.oneof(fc.constant(undefined), json, fc.record({ principal: str, onBehalfOf: str, server: str, sessionId: str, traceId: str, tenant: str, roles: json }, { requiredKeys: [] }));
    await fc.assert(
      fc.asyncProperty(via, fc.constantFrom(...KNOWN), fc.constantFrom('request', 'response'), fc.option(names, { nil: undefined }), context, async (how, ev, ph, interceptors, ctx) => {
        const r = await ask(how, { event: ev, phase: ph, payload: { name: 'echo', arguments: {} }, ...(interceptors && { interceptors }), ...(ctx !== undefined && { context: ctx }) });
        expect(r.status).toBeLessThan(500);
        if (r.effect === undefined) {
          expect(r.code).toMatch(/^ERR_(INPUT|UNKNOWN_INTERCEPTOR)$/);
          return;
        }
        expect(r.effect).toBe('deny');
        const e = (await get(`${s.url}/v1/entries/${r.seq}`)).json.entry;
        expect(e.principal).toBe('local-operator');
        expect(e.ran).toContain('no');
      }),
      { numRuns: 150 },
    );
  });
});
