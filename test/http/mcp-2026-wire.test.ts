// POST /mcp on the MCP 2026-07-28 wire, byte by byte (issue 36): versions it does not serve are
// -32022 with the supported list; HTTP headers that disagree with the body are -32020 before any
// interceptor runs (a deny entry when a decision was asked for, nothing else written, on either
// era); results carry resultType on 2026 and never on 2025; interceptors/list is cacheable but
// private; the lean path and the SDK's own 2026 transport answer alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64, utf8 } from '../../src/canonical/index.js';
import { stripVolatile } from '../../src/interceptors/chain.js';
import { get, testServer } from './_server.js';

type Any = Record<string, any>;
const V26 = '2026-07-28';
const META = { version: 'io.modelcontextprotocol/protocolVersion', caps: 'io.modelcontextprotocol/clientCapabilities', info: 'io.modelcontextprotocol/clientInfo', server: 'io.modelcontextprotocol/serverInfo' };
const ENVELOPE = { [META.version]: V26, [META.caps]: {}, [META.info]: { name: 'raw-client', version: '0.0.1' } };
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
// The same media type, spelled so that the endpoint's lean path leaves the request to the SDK's transport.
const SDK_WAY = { 'content-type': 'application/json; charset=utf-8', accept: 'application/json, text/event-stream' };

const modern = (id: number | string, method: string, params: Any = {}, meta: Any = {}) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...ENVELOPE, ...params._meta, ...meta } } });
const legacy = (id: number | string, method: string, params?: Any) => ({ jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) });
const h26 = (method: string, more: Record<string, string> = {}) => ({ 'mcp-protocol-version': V26, 'mcp-method': method, ...more });
const chain = (name: string, extra: Any = {}) => ({ event: 'tools/call', phase: 'request', payload: { name, arguments: { text: 'hi' } }, context: { sessionId: 's-wire' }, ...extra });
const entryOfReceipt = (r: Any): Any => JSON.parse(utf8.decode(fromBase64(r.entry)));

describe('POST /mcp 2026-07-28 on the wire', () => {
  let server: Awaited<ReturnType<typeof testServer>>;
  let url: string;
  beforeAll(async () => {
    server = await testServer();
    url = `${server.url}/mcp`;
  });
  afterAll(() => server.close());

  const send = async (body: unknown, headers: Record<string, string> = {}, base = JSON_HEADERS) => {
    const res = await fetch(url, { method: 'POST', headers: { ...base, ...headers }, body: JSON.stringify(body) });
    const text = await res.text();
    let json: Any | undefined;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, type: res.headers.get('content-type'), text, json: json as Any };
  };
  const logSize = async () => (await get(`${server.url}/v1/entries?limit=1`)).json.size as number;
  const entry = async (seq: number) => (await get(`${server.url}/v1/entries/${seq}`)).json.entry as Any;

  describe('protocol versions', () => {
    it('a version it does not serve is -32022 (HTTP 400) naming every version it serves, and nothing is decided or written', async () => {
      for (const requested of ['1900-01-01', '2099-01-01', 'not-a-version']) {
        const before = await logSize();
        const r = await send(modern(1, 'interceptor/executeChain', chain('echo'), { [META.version]: requested }), h26('interceptor/executeChain', { 'mcp-protocol-version': requested }));
        expect(r.status, requested).toBe(400);
        expect(r.json.id).toBe(1);
        expect(r.json.error.code).toBe(-32022);
        expect(r.json.error.data).toMatchObject({ requested, code: 'ERR_UNSUPPORTED_PROTOCOL_VERSION' });
        expect(r.json.error.data.supported.slice(0, 2)).toEqual([V26, '2025-11-25']);
        expect(r.json.error.data.supported).toContain('2025-06-18');
        expect(await logSize()).toBe(before);
      }
    });

    it('a 2025 version inside the per-request envelope is -32022 too: 2025 versions are served after initialize', async () => {
      const r = await send(modern(2, 'interceptors/list', {}, { [META.version]: '2025-11-25' }), h26('interceptors/list', { 'mcp-protocol-version': '2025-11-25' }));
      expect(r.status).toBe(400);
      expect(r.json.error).toMatchObject({ code: -32022, data: { requested: '2025-11-25' } });
      expect(r.json.error.message).toContain('initialize');
    });

    it('a malformed envelope, or a 2026 version header without one, is -32602 (HTTP 400), nothing written', async () => {
      const before = await logSize();
      const { [META.caps]: _c, ...noCaps } = ENVELOPE;
      const r = await send({ ...modern(3, 'interceptor/executeChain', chain('echo')), params: { ...chain('echo'), _meta: noCaps } }, h26('interceptor/executeChain'));
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe(-32602);
      const bare = await send(legacy(3, 'interceptor/executeChain', chain('echo')), h26('interceptor/executeChain'));
      expect(bare.status).toBe(400);
      expect(bare.json.error.code).toBe(-32602);
      expect(await logSize()).toBe(before);
    });
  });

  describe('Mcp-Method and Mcp-Name must agree with the body (-32020)', () => {
    it('an executeChain whose Mcp-Method names another method: HTTP 400 -32020, recorded as a deny before any interceptor ran', async () => {
      const before = await logSize();
      const r = await send(modern('m1', 'interceptor/executeChain', chain('echo')), h26('interceptors/list'));
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ jsonrpc: '2.0', id: 'm1', error: { code: -32020, data: { code: 'ERR_HEADER_MISMATCH', header: 'Mcp-Method', value: 'interceptors/list', body: 'interceptor/executeChain' } } });
      expect(await logSize()).toBe(before + 1);
      const seq = r.json.error.data['io.vouch/seq'];
      expect(seq).toBe(before);
      expect(entryOfReceipt(r.json.error.data['io.vouch/receipt']).seq).toBe(seq);
      const e = await entry(seq);
      expect(e.decision.effect).toBe('deny');
      expect(e.ran).toEqual([]);
      expect(e.state['(vouch)']['mcp-headers']).toMatchObject({ header: 'Mcp-Method', value: 'interceptors/list', body: 'interceptor/executeChain', deny: expect.stringContaining('Mcp-Method') });
      expect(e).toMatchObject({ event: 'tools/call', protocolVersion: V26, clientInfo: { name: 'raw-client', version: '0.0.1' } });
    });

    it('the same refusal on the 2025 era (no envelope): a header never overrides the body, whatever the version', async () => {
      const before = await logSize();
      const r = await send(legacy(4, 'interceptor/executeChain', chain('echo')), { 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'interceptor/invoke' });
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe(-32020);
      expect(await logSize()).toBe(before + 1);
      expect(await entry(before)).toMatchObject({ decision: { effect: 'deny' }, ran: [], protocolVersion: '2025-11-25' });
    });

    it('a refused executeChain whose params ask for no decision either is answered -32020, nothing written', async () => {
      const before = await logSize();
      for (const params of [{ phase: 'request', payload: {} }, chain('echo', { event: 'no/such-event' }), chain('echo', { interceptors: ['nope'] })]) {
        const r = await send(modern(14, 'interceptor/executeChain', params), h26('interceptors/list'));
        expect(r.status).toBe(400);
        expect(r.json.error).toMatchObject({ code: -32020, data: { code: 'ERR_HEADER_MISMATCH' } });
        expect(r.json.error.data['io.vouch/seq']).toBeUndefined();
      }
      expect(await logSize()).toBe(before);
    });

    it('no decision asked, nothing written: list and invoke with a disagreeing header', async () => {
      const before = await logSize();
      for (const [body, headers] of [
        [modern(5, 'interceptors/list'), h26('interceptor/executeChain')],
        [modern(6, 'interceptor/invoke', { name: 'pii', event: 'tools/call', phase: 'request', payload: {} }), h26('interceptor/invoke', { 'mcp-name': 'secrets' })],
        [legacy(7, 'interceptors/list'), { 'mcp-method': 'interceptor/executeChain' }],
        [legacy(8, 'interceptor/invoke', { name: 'pii', event: 'tools/call', phase: 'request', payload: {} }), { 'mcp-name': 'secrets' }],
      ] as const) {
        const r = await send(body, headers);
        expect(r.status, JSON.stringify(headers)).toBe(400);
        expect(r.json.error.code).toBe(-32020);
      }
      expect(await logSize()).toBe(before);
    });

    it('every way for the headers to disagree is refused; a missing Mcp-Method or protocol header on 2026 too', async () => {
      const body = modern(9, 'interceptor/executeChain', chain('echo'));
      const cases: [string, Record<string, string>][] = [
        ['letter case', h26('Interceptor/executeChain')],
        ['a suffix', h26('interceptor/executeChain/x')],
        ['empty', h26('interceptor/executeChain', { 'mcp-method': '' })],
        ['missing Mcp-Method', { 'mcp-protocol-version': V26 }],
        ['missing MCP-Protocol-Version', { 'mcp-method': 'interceptor/executeChain' }],
        ['version header disagreeing with the envelope', h26('interceptor/executeChain', { 'mcp-protocol-version': '2025-11-25' })],
        ['an Mcp-Name the body does not carry', h26('interceptor/executeChain', { 'mcp-name': 'echo' })],
        ['an Mcp-Name with a broken base64 sentinel', h26('interceptor/executeChain', { 'mcp-name': '=?base64?###?=' })],
      ];
      for (const [what, headers] of cases) {
        const r = await send(body, headers);
        expect(r.status, what).toBe(400);
        expect(r.json.error.code, what).toBe(-32020);
      }
      // A batch cannot agree with one Mcp-Method.
      expect((await send([legacy(10, 'interceptors/list')], { 'mcp-method': 'interceptors/list' })).json.error.code).toBe(-32020);
    });

    it('headers that agree pass, an Mcp-Name base64-encoded as the spec says included', async () => {
      const invoke = { name: 'pii', event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'hi' } } };
      const plain = await send(modern(11, 'interceptor/invoke', invoke), h26('interceptor/invoke', { 'mcp-name': 'pii' }));
      expect(plain.status).toBe(200);
      const encoded = await send(modern(12, 'interceptor/invoke', invoke), h26('interceptor/invoke', { 'mcp-name': `=?base64?${Buffer.from('pii').toString('base64')}?=` }));
      expect(encoded.status).toBe(200);
      expect(encoded.json.result.interceptor).toBe(plain.json.result.interceptor);
      expect((await send(legacy(13, 'interceptors/list'), { 'mcp-method': 'interceptors/list' })).status).toBe(200);
    });
  });

  describe('results', () => {
    const bodies = (make: (id: number, m: string, p: Any) => unknown): [string, unknown][] => [
      ['interceptors/list', make(20, 'interceptors/list', { event: 'tools/call' })],
      ['interceptor/invoke', make(21, 'interceptor/invoke', { name: 'pii', event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'hi' } } })],
      ['interceptor/executeChain', make(22, 'interceptor/executeChain', chain('echo'))],
    ];

    it('carry resultType "complete" and the serverInfo on 2026, and neither on 2025', async () => {
      for (const [m, b] of bodies(modern)) {
        const r = await send(b, h26(m));
        expect(r.status, m).toBe(200);
        expect(r.json.result.resultType, m).toBe('complete');
        expect(r.json.result._meta[META.server], m).toEqual({ name: 'vouch', version: expect.any(String) });
      }
      for (const [m, b] of bodies(legacy)) {
        const r = await send(b, { 'mcp-protocol-version': '2025-11-25' });
        expect(r.status, m).toBe(200);
        expect(r.text, m).not.toContain('resultType');
        expect(r.text, m).not.toContain('ttlMs');
        expect(r.text, m).not.toContain('serverInfo');
      }
    });

    it('server/discover: the 2026 versions, the interceptors extension as initialize advertises it, cacheable', async () => {
      const r = await send(modern(23, 'server/discover'), h26('server/discover'));
      expect(r.status).toBe(200);
      expect(r.json.result).toMatchObject({ supportedVersions: [V26], resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
      const init = await send(legacy(24, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } }));
      expect(r.json.result.capabilities.extensions).toEqual(init.json.result.capabilities.extensions);
    });

    it('interceptors/list on 2026: ttlMs set, cacheScope private (the list is the caller tenant\'s policy), the same order every time', async () => {
      const a = await send(modern(25, 'interceptors/list'), h26('interceptors/list'));
      const b = await send(modern(25, 'interceptors/list'), h26('interceptors/list'));
      expect(a.text).toBe(b.text);
      expect(a.json.result.cacheScope).toBe('private');
      expect(Number.isSafeInteger(a.json.result.ttlMs) && a.json.result.ttlMs >= 0).toBe(true);
      // The chain's own order (the order it runs), as the 2025 era lists it.
      const old = await send(legacy(26, 'interceptors/list'));
      expect(a.json.result.interceptors).toEqual(old.json.result.interceptors);
    });

    it('executeChain on 2026 records the envelope version, the claimed client and the _meta traceparent', async () => {
      const tp = '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01';
      const r = await send(modern(27, 'interceptor/executeChain', chain('echo'), { traceparent: tp }), h26('interceptor/executeChain'));
      const e = entryOfReceipt(r.json.result._meta['io.vouch/receipt']);
      expect(e).toMatchObject({ protocolVersion: V26, clientInfo: { name: 'raw-client', version: '0.0.1' }, traceparent: tp, trace: '0af7651916cd43dd8448eb211c80319c' });
    });

    it('clientInfo is bounded and recorded as name and version only, whatever the client sends', async () => {
      const info = { name: `${'n'.repeat(5000)}`, version: `1.0\ud800`, title: 'Title', websiteUrl: 'https://example.invalid', icons: [{ src: 'https://example.invalid/i.png' }] };
      const r = await send(modern(28, 'interceptor/executeChain', chain('echo'), { [META.info]: info }), h26('interceptor/executeChain'));
      expect(r.status).toBe(200);
      const e = entryOfReceipt(r.json.result._meta['io.vouch/receipt']);
      expect(Object.keys(e.clientInfo).sort()).toEqual(['name', 'version']);
      expect(e.clientInfo.name.length).toBeLessThanOrEqual(200);
      expect(e.clientInfo.name.startsWith('nnnn')).toBe(true);
      expect(e.clientInfo.version.isWellFormed()).toBe(true);
      // A request without clientInfo (it is a SHOULD) records none.
      const { [META.info]: _i, ...anonymous } = ENVELOPE;
      const r2 = await send({ ...modern(29, 'interceptor/executeChain', chain('echo')), params: { ...chain('echo'), _meta: anonymous } }, h26('interceptor/executeChain'));
      expect(entryOfReceipt(r2.json.result._meta['io.vouch/receipt']).clientInfo).toBeUndefined();
    });
  });

  it('every decision made here, refusals included, replays to the same outcome from the log (protocolVersion an input, clientInfo not)', async () => {
    const r = await fetch(`${server.url}/v1/replay`, { method: 'POST', headers: JSON_HEADERS, body: '{}' });
    const report = (await r.json()) as Any;
    expect(report.match).toBeGreaterThan(10);
    expect(report.mismatch).toBe(0);
    expect(report.findings).toEqual([]);
  });

  describe('the lean path and the SDK v2 transport answer 2026 alike', () => {
    const stable = (t: string) => t.replace(/"durationMs":\d+(\.\d+)?/g, '"durationMs":0');
    it('the same bytes for discover, lists, invocations and errors', async () => {
      const bodies: [string, unknown][] = [
        ['server/discover', modern(1, 'server/discover')],
        ['interceptors/list', modern(2, 'interceptors/list')],
        ['interceptors/list', modern(3, 'interceptors/list', { event: 'tools/call' })],
        ['interceptors/list', modern(4, 'interceptors/list', { event: 5 })],
        ['interceptor/invoke', modern('inv', 'interceptor/invoke', { name: 'pii', event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'call 415 555 0199' } } })],
        ['interceptor/invoke', modern(6, 'interceptor/invoke', { name: 'nope', event: 'tools/call', phase: 'request', payload: {} })],
        ['interceptor/executeChain', modern(7, 'interceptor/executeChain', {})],
        ['interceptor/executeChain', modern(8, 'interceptor/executeChain', chain('echo', { interceptors: ['nope'] }))],
        ['interceptor/executeChain', modern(9, 'interceptor/executeChain', chain('echo', { event: 'no/such-event' }))],
        ['interceptor/executeChain', modern(10, 'interceptor/executeChain', chain('echo'), { 'io.vouch/wait': 'soon' })],
        ['interceptor/executeChain', modern('t', 'interceptor/executeChain', chain('echo', { phase: 'sideways' }))],
      ];
      for (const [m, b] of bodies) {
        const [lean, sdk] = [await send(b, h26(m)), await send(b, h26(m), SDK_WAY)];
        expect({ ...lean, text: stable(lean.text), json: undefined }, JSON.stringify(b)).toEqual({ ...sdk, text: stable(sdk.text), json: undefined });
        expect(lean.status).toBe(200);
      }
    });

    it('the same decisions for executeChain (allow, mutation, deny, durable), receipts apart', async () => {
      const bodies = [
        modern('c', 'interceptor/executeChain', chain('echo')),
        modern('c', 'interceptor/executeChain', { ...chain('echo'), payload: { name: 'echo', arguments: { text: 'call me at 415 555 0199' } } }),
        modern('c', 'interceptor/executeChain', chain('dangerous_tool')),
        modern('d', 'interceptor/executeChain', chain('echo'), { 'io.vouch/wait': 'durable' }),
        // The multi round-trip retry fields are the SDK's driver material, never handler input.
        modern('r', 'interceptor/executeChain', chain('echo', { inputResponses: {}, requestState: 'x' })),
      ];
      for (const b of bodies) {
        const [lean, sdk] = [await send(b, h26('interceptor/executeChain')), await send(b, h26('interceptor/executeChain'), SDK_WAY)];
        expect(lean.status).toBe(sdk.status);
        expect(lean.type).toBe(sdk.type);
        const [a, s] = [lean.json, sdk.json];
        expect(Object.keys(a)).toEqual(Object.keys(s));
        expect(Object.keys(a.result)).toEqual(Object.keys(s.result));
        expect(Object.keys(a.result._meta)).toEqual(Object.keys(s.result._meta));
        for (const r of [a, s]) for (const k of ['io.vouch/receipt', 'io.vouch/durable', 'io.vouch/seq']) delete r.result._meta[k];
        const norm = (r: unknown) => JSON.stringify(stripVolatile(r, ['durationMs', 'totalDurationMs'])).replace(/"count":\d+/, '"count":0').replace(/"windowStart":"[^"]*"/, '"windowStart":""');
        expect(norm(a), JSON.stringify(b)).toBe(norm(s));
      }
    });

    it('what only the SDK transport answers: other methods, initialize with an envelope, notifications', async () => {
      expect((await send(modern(30, 'tools/list'), h26('tools/list'))).json.error.code).toBe(-32601);
      const init = await send(modern(31, 'initialize', { protocolVersion: V26, capabilities: {}, clientInfo: { name: 'x', version: '1' } }), h26('initialize'));
      expect(init.json.error.code).toBe(-32601);
      const note = await send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: ENVELOPE } }, h26('notifications/cancelled'));
      expect(note.status).toBe(202);
    });
  });
});
