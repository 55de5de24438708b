// OpenTelemetry export through a real server: an OTLP/HTTP receiver (node:http, 127.0.0.1)
// decodes the JSON the SDK's exporters send. Spans continue the caller's W3C trace (HTTP header
// or _meta.traceparent), carry the decision's facts, and a collector that is down or refusing
// never fails a decision: the failures are counted in /metrics.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64, toHex, utf8 } from '../../src/canonical/index.js';
import { replayLog } from '../../src/audit/index.js';
import { storeReplaySource } from '../../src/audit/node-bundle.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { openGateway } from '../../src/mcp/gateway-node.js';
import { everythingCmd, makeClient, makeWorkspace } from '../mcp/_gateway.js';
import { get, post, testServer, writeConfig } from './_server.js';

interface Received {
  path: string;
  contentType: string | undefined;
  body: any;
}

/** A minimal OTLP/HTTP collector: records every request body (JSON encoding); `status` sets its answer. */
async function receiver() {
  const got: Received[] = [];
  const ctl = { status: 200 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* kept as text: the assertions on content type say what went wrong */
      }
      got.push({ path: req.url ?? '', contentType: req.headers['content-type'], body });
      res.writeHead(ctl.status, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { got, ctl, url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

type Attr = { key: string; value: Record<string, unknown> };
const attrs = (list: Attr[]) => Object.fromEntries(list.map((a) => [a.key, Object.values(a.value)[0]]));
const spansOf = (got: Received[]) =>
  got.filter((g) => g.path === '/v1/traces').flatMap((g) => g.body.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans.map((sp: any) => ({ ...sp, attrs: attrs(sp.attributes), resource: attrs(rs.resource.attributes) })))));
const logsOf = (got: Received[]) =>
  got.filter((g) => g.path === '/v1/logs').flatMap((g) => g.body.resourceLogs.flatMap((rl: any) => rl.scopeLogs.flatMap((sl: any) => sl.logRecords.map((lr: any) => ({ ...lr, attrs: attrs(lr.attributes) })))));

async function until<T>(f: () => T | undefined, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out waiting for telemetry: ' + JSON.stringify(spansOf(col.got).map((x) => [x.name, x.attrs['vouch.seq'], x.traceId])));
    await new Promise((r) => setTimeout(r, 50));
  }
}

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const call = { name: 'send_email', arguments: { to: 'alice@example.test', subject: 'hi' } };
const entryOf = (receipt: { entry: string }) => JSON.parse(utf8.decode(fromBase64(receipt.entry)));

let col: Awaited<ReturnType<typeof receiver>>;
let s: Awaited<ReturnType<typeof testServer>>;

beforeAll(async () => {
  col = await receiver();
  const dir = mkdtempSync(join(tmpdir(), 'vouch-otel-'));
  // tools/call is configured uncovered traffic (allowed, recorded); prompts/get is not: a deny.
  const config = writeConfig(dir, { version: 1, uncovered: [{ events: ['tools/call'], phase: 'both' }], interceptors: [{ name: 'pii', use: 'pii-redactor' }] });
  s = await testServer({ config, otlp: col.url });
});
afterAll(async () => {
  await s?.close();
  await col?.close();
});

describe('--otlp: decisions as OpenTelemetry spans and log records', () => {
  it('REST /v1/authorize with a traceparent header: the span continues the caller trace and names the decision', async () => {
    const r = await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: call }, { traceparent: `00-${TRACE}-${CALLER_SPAN}-01` });
    expect(r.json.effect).toBe('allow');
    const entry = entryOf(r.json.receipt);
    // Kept in the entry: the trace id (what interceptors and replay see) and the caller's span.
    expect(entry).toMatchObject({ trace: TRACE, traceparent: `00-${TRACE}-${CALLER_SPAN}-01`, target: 'send_email' });
    const span = await until(() => spansOf(col.got).find((x) => x.attrs['vouch.seq'] === String(r.json.seq) || x.attrs['vouch.seq'] === r.json.seq));
    expect(col.got.find((g) => g.path === '/v1/traces')!.contentType).toMatch(/application\/json/);
    expect(span.name).toBe('vouch.decision tools/call');
    expect(span.traceId).toBe(TRACE);
    expect(span.parentSpanId).toBe(CALLER_SPAN);
    expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(span.spanId).not.toBe(CALLER_SPAN);
    expect(span.resource['service.name']).toBe('vouch');
    expect(span.attrs).toMatchObject({
      'vouch.effect': 'allow',
      'vouch.event': 'tools/call',
      'vouch.target': 'send_email',
      'vouch.principal': entry.principal,
      'vouch.policy.digest': entry.policy.policySet,
      'vouch.leaf': expect.stringMatching(/^[0-9a-f]{64}$/),
      'vouch.tenant': 'default',
    });
    expect(Number(span.attrs['vouch.seq'])).toBe(r.json.seq);
    // The log record sits in the same trace, under the decision's span.
    const rec = await until(() => logsOf(col.got).find((x) => Number(x.attrs['vouch.seq']) === r.json.seq));
    expect(rec.traceId).toBe(TRACE);
    expect(rec.spanId).toBe(span.spanId);
    expect(rec.severityText).toBe('INFO');
    expect(rec.attrs['vouch.effect']).toBe('allow');
  });

  it('the leaf attribute is the entry leaf hash the receipt proves', async () => {
    const r = await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: call });
    const span = await until(() => spansOf(col.got).find((x) => Number(x.attrs['vouch.seq']) === r.json.seq));
    const leaf = toHex(s.dataDir.log('default').store.entry(r.json.seq)!.leaf);
    expect(span.attrs['vouch.leaf']).toBe(leaf);
    // No traceparent: a root span of a trace of its own, nothing recorded.
    expect(span.parentSpanId ?? '').toBe('');
    expect(entryOf(r.json.receipt).traceparent).toBeUndefined();
  });

  it('/mcp executeChain: _meta.traceparent wins over the header; a deny is a span with error status', async () => {
    const other = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
    const metaTp = `00-${other}-bbbbbbbbbbbbbbbb-01`;
    const r = await post(`${s.url}/mcp`, { jsonrpc: '2.0', id: 7, method: 'interceptor/executeChain', params: { event: 'prompts/get', phase: 'request', payload: { name: 'greet' }, _meta: { traceparent: metaTp } } }, { traceparent: `00-${TRACE}-${CALLER_SPAN}-01` });
    const seq = r.json.result._meta['io.vouch/seq'];
    expect(r.json.result.status).toBe('error');
    const span = await until(() => spansOf(col.got).find((x) => Number(x.attrs['vouch.seq']) === seq));
    expect(span.traceId).toBe(other);
    expect(span.parentSpanId).toBe('bbbbbbbbbbbbbbbb');
    expect(span.attrs['vouch.effect']).toBe('deny');
    expect(span.attrs['vouch.event']).toBe('prompts/get');
    expect(span.status.code).toBe(2); // STATUS_CODE_ERROR
    const rec = await until(() => logsOf(col.got).find((x) => Number(x.attrs['vouch.seq']) === seq));
    expect(rec.severityText).toBe('WARN');
  });

  it('/mcp executeChain with only the HTTP header: recorded in the entry, span parented to it, exported even when the caller says "not sampled"', async () => {
    const r = await post(`${s.url}/mcp`, { jsonrpc: '2.0', id: 8, method: 'interceptor/executeChain', params: { event: 'tools/call', phase: 'request', payload: call } }, { traceparent: `00-${TRACE}-1111111111111111-00` });
    const seq = r.json.result._meta['io.vouch/seq'];
    const entry = entryOf(r.json.result._meta['io.vouch/receipt']);
    expect(entry.traceparent).toBe(`00-${TRACE}-1111111111111111-00`);
    expect(entry.trace).toBe(TRACE);
    const span = await until(() => spansOf(col.got).find((x) => Number(x.attrs['vouch.seq']) === seq));
    expect(span.traceId).toBe(TRACE);
    expect(span.parentSpanId).toBe('1111111111111111');
  });

  it('an invalid traceparent is ignored (W3C): nothing recorded, a root span', async () => {
    const r = await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: call, _meta: { traceparent: `00-${'0'.repeat(32)}-${CALLER_SPAN}-01` } });
    expect(r.json.effect).toBe('allow');
    expect(entryOf(r.json.receipt).traceparent).toBeUndefined();
    expect(entryOf(r.json.receipt).trace).toBeUndefined();
  });

  it('executions carry the drift severity of what ran against the authorization', async () => {
    const a = await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: call });
    const changed = { ...a.json.finalPayload, arguments: { ...a.json.finalPayload.arguments, to: 'mallory@example.test' } };
    const x = await post(`${s.url}/v1/executions`, { authorization: a.json.seq, executed: changed });
    expect(x.status).toBe(200);
    const span = await until(() => spansOf(col.got).find((sp) => Number(sp.attrs['vouch.seq']) === x.json.seq));
    expect(span.name).toBe('vouch.execution tools/call');
    expect(span.attrs['vouch.drift']).toBe(x.json.drift.severity);
    expect(span.attrs['vouch.drift']).not.toBe('none');
    expect(Number(span.attrs['vouch.authorization'])).toBe(a.json.seq);
  });

  it('recorded trace context replays to match from the log alone', async () => {
    const report = await replayLog(storeReplaySource(s.dataDir.log('default').store as never));
    expect(report.results.filter((r) => r.status !== 'match')).toEqual([]);
    expect(report.match).toBeGreaterThanOrEqual(5);
  });
});

describe('--otlp: MCP 2026-07-28 callers (trace context in _meta)', () => {
  const V26 = '2026-07-28';
  const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': V26, 'io.modelcontextprotocol/clientCapabilities': {} };
  const STATE = 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE';
  const modern = (meta: Record<string, unknown>, headers: Record<string, string> = {}) =>
    post(`${s.url}/mcp`, { jsonrpc: '2.0', id: 26, method: 'interceptor/executeChain', params: { event: 'tools/call', phase: 'request', payload: call, _meta: { ...ENVELOPE, ...meta } } }, { 'mcp-protocol-version': V26, 'mcp-method': 'interceptor/executeChain', ...headers });

  // The lean way, and the SDK's own 2026 transport (reached with another spelling of the media type).
  it.each([
    ['lean', {}],
    ['SDK', { 'content-type': 'application/json; charset=utf-8' }],
  ])('%s way: _meta traceparent and tracestate continue the caller trace, in the entry and the span', async (_way, headers) => {
    const trace = _way === 'lean' ? 'c'.repeat(32) : 'd'.repeat(32);
    const tp = `00-${trace}-${CALLER_SPAN}-01`;
    const r = await modern({ traceparent: tp, tracestate: ' rojo=00f067aa0ba902b7 , congo=t61rcWkgMzE', baggage: 'userId=alice' }, headers);
    expect(r.json.result?.resultType, JSON.stringify(r.json)).toBe('complete');
    const seq = r.json.result._meta['io.vouch/seq'];
    const entry = entryOf(r.json.result._meta['io.vouch/receipt']);
    expect(entry).toMatchObject({ protocolVersion: V26, trace, traceparent: tp, tracestate: STATE });
    expect(JSON.stringify(entry)).not.toContain('userId'); // baggage is not recorded
    const span = await until(() => spansOf(col.got).find((x) => Number(x.attrs['vouch.seq']) === seq));
    expect(span).toMatchObject({ traceId: trace, parentSpanId: CALLER_SPAN, traceState: STATE });
  });

  it('the HTTP tracestate travels with the HTTP traceparent only; an invalid tracestate is dropped, the trace kept', async () => {
    const header = await modern({}, { traceparent: `00-${TRACE}-2222222222222222-01`, tracestate: 'vendor=from-header' });
    expect(entryOf(header.json.result._meta['io.vouch/receipt'])).toMatchObject({ traceparent: `00-${TRACE}-2222222222222222-01`, tracestate: 'vendor=from-header' });
    const mixed = await modern({ traceparent: `00-${TRACE}-3333333333333333-01` }, { tracestate: 'vendor=from-header' });
    const m = entryOf(mixed.json.result._meta['io.vouch/receipt']);
    expect(m.traceparent).toBe(`00-${TRACE}-3333333333333333-01`);
    expect(m.tracestate).toBeUndefined();
    const bad = await modern({ traceparent: `00-${TRACE}-4444444444444444-01`, tracestate: 'Vendor=UPPER-KEY' });
    const b = entryOf(bad.json.result._meta['io.vouch/receipt']);
    expect(b.traceparent).toBe(`00-${TRACE}-4444444444444444-01`);
    expect(b.tracestate).toBeUndefined();
    const span = await until(() => spansOf(col.got).find((x) => Number(x.attrs['vouch.seq']) === bad.json.result._meta['io.vouch/seq']));
    expect(span.parentSpanId).toBe('4444444444444444');
    expect(span.traceState ?? '').toBe('');
  });

  it('REST /v1/authorize: the traceparent and tracestate headers, recorded and exported alike', async () => {
    const r = await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: call }, { traceparent: `00-${TRACE}-5555555555555555-01`, tracestate: 'rest=1' });
    expect(entryOf(r.json.receipt)).toMatchObject({ traceparent: `00-${TRACE}-5555555555555555-01`, tracestate: 'rest=1' });
    const span = await until(() => spansOf(col.got).find((x) => Number(x.attrs['vouch.seq']) === r.json.seq));
    expect(span.traceState).toBe('rest=1');
  });

  it('recorded tracestate replays to match from the log alone', async () => {
    const report = await replayLog(storeReplaySource(s.dataDir.log('default').store as never));
    expect(report.results.filter((r) => r.status !== 'match')).toEqual([]);
  });
});

describe('--otlp: the collector never decides', () => {
  it('a collector that refuses (500) or is gone: decisions still allow, failures are counted in /metrics', async () => {
    const bad = await receiver();
    bad.ctl.status = 500;
    const dir = mkdtempSync(join(tmpdir(), 'vouch-otel-bad-'));
    const config = writeConfig(dir, { version: 1, uncovered: [{ events: ['tools/call'], phase: 'both' }], interceptors: [] });
    const t = await testServer({ config, otlp: bad.url });
    try {
      const r = await post(`${t.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: call }, { traceparent: `00-${TRACE}-${CALLER_SPAN}-01` });
      expect(r.json.effect).toBe('allow');
      const failed = async () => /vouch_otlp_export_failures_total\{signal="traces"\} [1-9]/.test((await get(`${t.url}/metrics`)).json);
      const end = Date.now() + 20_000;
      while (!(await failed())) {
        if (Date.now() > end) throw new Error('export failure never counted');
        await new Promise((res) => setTimeout(res, 100));
      }
      // Now the collector is gone altogether: still decided, in time.
      await bad.close();
      const t0 = Date.now();
      const r2 = await post(`${t.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: call });
      expect(r2.json.effect).toBe('allow');
      expect(Date.now() - t0).toBeLessThan(2000);
    } finally {
      await t.close();
    }
  }, 40_000);

  it('a bad --otlp URL is a start-up error, nothing opened', async () => {
    await expect(testServer({ otlp: 'ftp://collector.test' })).rejects.toMatchObject({ code: 'ERR_CONFIG' });
    await expect(testServer({ otlp: 'http://user:pw@127.0.0.1:4318' })).rejects.toMatchObject({ code: 'ERR_CONFIG' });
  });
});

describe('vouch gateway --otlp: relayed messages continue the client trace', () => {
  it('tools/call with _meta.traceparent: request and response decisions are spans under the caller span, recorded in the entries', async () => {
    const gcol = await receiver();
    const ws = makeWorkspace('vouch-otel-gw-');
    const rt = await openGateway({ data: ws.data, config: ws.config, upstream: { command: everythingCmd(), stderr: 'ignore' }, thread: false, otlp: gcol.url });
    const { client } = makeClient();
    try {
      const [down, up] = InMemoryTransport.createLinkedPair();
      await rt.start(up, { upstream: rt.connectUpstream() });
      await client.connect(down);
      const tp = `00-${TRACE}-${CALLER_SPAN}-01`;
      const res = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 }, _meta: { traceparent: tp, tracestate: 'gw=1,other=two' } });
      expect(res.isError).toBeFalsy();
      const mine = () => spansOf(gcol.got).filter((x) => x.attrs['vouch.event'] === 'tools/call' && x.traceId === TRACE);
      await until(() => (mine().some((x) => x.attrs['vouch.phase'] === 'response') ? true : undefined));
      const spans = mine();
      const req = spans.find((x) => x.attrs['vouch.phase'] === 'request')!;
      const resp = spans.find((x) => x.attrs['vouch.phase'] === 'response')!;
      for (const sp of [req, resp]) {
        expect(sp.parentSpanId).toBe(CALLER_SPAN);
        expect(sp.traceState).toBe('gw=1,other=two');
        expect(sp.attrs).toMatchObject({ 'vouch.effect': 'allow', 'vouch.principal': 'local-operator', 'vouch.policy.digest': expect.stringMatching(/^sha256:/) });
        const e = JSON.parse(utf8.decode((await rt.log.entry(Number(sp.attrs['vouch.seq'])))!));
        expect(sp.attrs['vouch.target']).toBe(e.target); // what the entry names, as recorded
      }
      expect(req.attrs['vouch.target']).toBe('get-sum');
      // The entries keep the trace context: the exported spans are rebuilt from them alone.
      const entry = JSON.parse(utf8.decode((await rt.log.entry(Number(req.attrs['vouch.seq'])))!));
      expect(entry).toMatchObject({ trace: TRACE, traceparent: tp, tracestate: 'gw=1,other=two', event: 'tools/call', phase: 'request' });
      // And every decision, trace context included, replays to match from the log alone.
      const log = rt.log;
      const report = await replayLog({ entries: (from, to) => log.entries(from, to), size: () => log.size(), payload: (d) => log.payload(d), document: async (d) => (await log.document(d))?.bytes });
      expect(report.results.filter((r) => r.status !== 'match')).toEqual([]);
      expect(report.match).toBeGreaterThanOrEqual(2);
    } finally {
      await client.close().catch(() => undefined);
      await rt.close();
      await gcol.close();
    }
  }, 60_000);
});
