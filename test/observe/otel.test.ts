// OpenTelemetry export, as an operator's tracing UI shows it (a real OTLP/HTTP receiver on
// 127.0.0.1, real servers and a real gateway in front of server-everything): an execution span
// sits in the trace of the call it executes, under the decision's span (or, in a process that
// never saw the decision, under the caller's span); the gateway exports `vouch.pin` spans only
// for pin entries it appends, none for tools it already pinned at an earlier start.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { decodeEntry } from '../../src/log/index.js';
import { openGateway } from '../../src/mcp/gateway-node.js';
import { startServer, type RunningServer } from '../../src/http/node-server.js';
import { everythingCmd, makeClient, makeWorkspace } from '../mcp/_gateway.js';
import { post, writeConfig } from '../http/_server.js';
import { collector, seqOf } from './_collector.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const call = { name: 'send_email', arguments: { to: 'alice@example.test', subject: 'hi' } };

describe('vouch serve --otlp: an execution continues the trace of the call it executed', () => {
  let col: Awaited<ReturnType<typeof collector>>;
  let s: RunningServer;
  let data: string;
  let config: string;
  beforeAll(async () => {
    col = await collector();
    const dir = mkdtempSync(join(tmpdir(), 'vouch-otel-exec-'));
    data = join(dir, 'data');
    config = writeConfig(dir, { version: 1, uncovered: [{ events: ['tools/call'], phase: 'both' }], interceptors: [] });
    s = await startServer({ data, port: 0, config, otlp: col.url, idleCheckpointMs: 0 });
  });
  afterAll(async () => {
    await s?.close();
    await col?.close();
  });

  const authorize = (headers: Record<string, string> = {}) => post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: call }, headers);
  const execute = (a: { json: { seq: number; finalPayload: unknown } }) => post(`${s.url}/v1/executions`, { authorization: a.json.seq, executed: a.json.finalPayload });

  it('a traced call: the execution span has the caller trace id and the decision span as its parent', async () => {
    const a = await authorize({ traceparent: `00-${TRACE}-${CALLER_SPAN}-01` });
    const x = await execute(a);
    expect(x.status).toBe(200);
    const decision = await col.until(() => col.spans().find((sp) => seqOf(sp) === a.json.seq));
    const execution = await col.until(() => col.spans().find((sp) => seqOf(sp) === x.json.seq));
    expect(decision).toMatchObject({ traceId: TRACE, parentSpanId: CALLER_SPAN });
    expect(execution.name).toBe('vouch.execution tools/call');
    expect(execution.traceId).toBe(TRACE);
    expect(execution.parentSpanId).toBe(decision.spanId);
  });

  it('an untraced call: the execution still sits in its decision span trace, not a trace of its own', async () => {
    const a = await authorize();
    const x = await execute(a);
    const decision = await col.until(() => col.spans().find((sp) => seqOf(sp) === a.json.seq));
    const execution = await col.until(() => col.spans().find((sp) => seqOf(sp) === x.json.seq));
    expect(decision.parentSpanId ?? '').toBe('');
    expect(execution.traceId).toBe(decision.traceId);
    expect(execution.parentSpanId).toBe(decision.spanId);
  });

  it('after a restart (the decision was exported by the process before): the execution continues the caller trace from the log', async () => {
    const other = 'c0ffee00c0ffee00c0ffee00c0ffee00';
    const a = await authorize({ traceparent: `00-${other}-${CALLER_SPAN}-01` });
    await s.close();
    s = await startServer({ data, port: 0, config, otlp: col.url, idleCheckpointMs: 0 });
    const x = await execute(a);
    expect(x.status).toBe(200);
    const execution = await col.until(() => col.spans().find((sp) => seqOf(sp) === x.json.seq && sp.name.startsWith('vouch.execution')));
    expect(execution.traceId).toBe(other);
    expect(execution.parentSpanId).toBe(CALLER_SPAN);
  }, 60_000);

  it('an execution no decision authorized is a trace of its own', async () => {
    const x = await post(`${s.url}/v1/executions`, { authorization: null, executed: call });
    const execution = await col.until(() => col.spans().find((sp) => seqOf(sp) === x.json.seq && sp.name.startsWith('vouch.execution')));
    expect(execution.parentSpanId ?? '').toBe('');
    expect(execution.traceId).not.toBe(TRACE);
  });
});

describe('vouch gateway --otlp', () => {
  it('a traced tools/call: the execution span is in the client trace, under the request decision span', async () => {
    const col = await collector();
    const ws = makeWorkspace('vouch-otel-gw-exec-');
    const rt = await openGateway({ data: ws.data, config: ws.config, upstream: { command: everythingCmd(), stderr: 'ignore' }, thread: false, otlp: col.url });
    const { client } = makeClient();
    try {
      const [down, up] = InMemoryTransport.createLinkedPair();
      await rt.start(up, { upstream: rt.connectUpstream() });
      await client.connect(down);
      const res = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 }, _meta: { traceparent: `00-${TRACE}-${CALLER_SPAN}-01` } });
      expect(res.isError).toBeFalsy();
      const execution = await col.until(() => col.spans().find((sp) => sp.name === 'vouch.execution tools/call'));
      const request = col.spans().find((sp) => sp.attrs['vouch.event'] === 'tools/call' && sp.attrs['vouch.phase'] === 'request' && sp.name.startsWith('vouch.decision'))!;
      expect(Number(execution.attrs['vouch.authorization'])).toBe(seqOf(request));
      expect(request).toMatchObject({ traceId: TRACE, parentSpanId: CALLER_SPAN });
      expect(execution.traceId).toBe(TRACE);
      expect(execution.parentSpanId).toBe(request.spanId);
    } finally {
      await client.close().catch(() => undefined);
      await rt.close();
      await col.close();
    }
  }, 60_000);

  it('vouch.pin spans: one per pin entry appended at the first listing, none when a later start finds the same tools pinned', async () => {
    const col = await collector();
    const ws = makeWorkspace('vouch-otel-gw-pins-');
    const pinSpans = () => col.spans().filter((sp) => sp.name.startsWith('vouch.pin'));
    const session = async () => {
      const rt = await openGateway({ data: ws.data, config: ws.config, upstream: { command: everythingCmd(), stderr: 'ignore' }, thread: true, wait: 'durable', otlp: col.url });
      const { client } = makeClient();
      const before = await rt.log.size();
      try {
        const [down, up] = InMemoryTransport.createLinkedPair();
        await rt.start(up, { upstream: rt.connectUpstream() });
        await client.connect(down);
        await client.listTools();
        await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } });
      } finally {
        await client.close().catch(() => undefined);
      }
      const after = await rt.log.size();
      const appended: { type: string; seq: number }[] = [];
      for await (const e of rt.log.entries(before, after)) appended.push(decodeEntry(e.bytes) as { type: string; seq: number });
      await rt.close(); // flushes the exporter
      return appended.filter((e) => e.type === 'pin').map((e) => e.seq);
    };
    try {
      const first = await session();
      expect(first.length).toBeGreaterThan(5);
      await col.until(() => (pinSpans().length >= first.length ? true : undefined));
      expect(pinSpans().map(seqOf).sort((a, b) => a - b)).toEqual(first);
      const second = await session();
      expect(second).toEqual([]);
      await col.until(() => (col.spans().some((sp) => sp.name === 'vouch.execution tools/call' && seqOf(sp) > Math.max(...first)) ? true : undefined));
      expect(pinSpans().map(seqOf).sort((a, b) => a - b)).toEqual(first);
    } finally {
      await col.close();
    }
  }, 90_000);
});
