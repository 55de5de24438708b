// A 2026-07-28 client's requests, once answered, are never cancelled upstream afterwards (issue
// 36). The SDK v2's HTTP entry aborts each request's signal when its exchange ends, and the v1
// client that relays it upstream turns any abort of the signal it was given into
// notifications/cancelled, even for a request already answered. So the relay runs under a signal of its own: a plain
// request's follows the client's exchange only until the relay settles; a call that may need
// input runs under the call's own, which is aborted only while the relay is in flight (a call
// parked for the client's retry whose upstream gave up and answered on its own is not cancelled
// when its handle lapses). The upstream here is in-process so that every message it receives is
// seen; over HTTP (`--listen`, where the SDK's entry ends each exchange with its HTTP request) the
// upstream is server-everything, and what the gateway sends it is seen in the log (a cancellation
// sent upstream is decided and recorded like any notification).
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListResourcesRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { Client as Client2, InMemoryTransport as InMemoryTransport2, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { listenGateway } from '../../src/mcp/gateway-http.js';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import { closeReplayed, entriesOf, everythingCmd, makeWorkspace, textOf } from './_gateway.js';

const POLICY = `
@id("briefly-tools")
permit(principal, action == Action::"tools/call", resource) when { context.server == "briefly" };
@id("briefly-elicitation")
permit(principal, action == Action::"elicitation/create", resource == Elicitation::"briefly");
`;
/** How long a parked call waits for the client's retry (the gateway's timeout). */
const LAPSE_MS = 1500;
/** How long the upstream waits for its elicitation's answer before it gives up and answers the call. */
const UPSTREAM_ASK_MS = 300;

let rt: GatewayRuntime;
/** Every message the upstream server received. */
const upstreamSaw: JSONRPCMessage[] = [];
const cancelledUpstream = () => upstreamSaw.filter((m) => 'method' in m && m.method === 'notifications/cancelled');
let sendWithId: (method: string, params?: Record<string, unknown>) => { id: number; answered: Promise<Record<string, unknown>> };
let notify: (method: string, params: Record<string, unknown>) => void;
const send = (method: string, params?: Record<string, unknown>) => sendWithId(method, params).answered;

beforeAll(async () => {
  const ws = makeWorkspace('vouch-gw26-signal-');
  appendFileSync(join(ws.dir, 'gateway-policy.cedar'), POLICY);
  rt = await openGateway({ data: ws.data, config: ws.config, upstream: { command: 'node unused.js' }, serverName: 'briefly', thread: false, timeoutMs: LAPSE_MS });

  const upstream = new McpServer({ name: 'briefly', version: '1.0.0' }, { capabilities: { tools: {} } });
  upstream.registerTool('echo', { inputSchema: { message: z.string() } }, async ({ message }) => ({ content: [{ type: 'text', text: `Echo: ${message}` }] }));
  upstream.registerTool('ask-briefly', { inputSchema: {} }, async () => {
    try {
      const r = await upstream.server.elicitInput({ message: 'Which colour?', requestedSchema: { type: 'object', properties: { colour: { type: 'string' } } } }, { timeout: UPSTREAM_ASK_MS });
      return { content: [{ type: 'text', text: `colour: ${JSON.stringify(r)}` }] };
    } catch {
      return { content: [{ type: 'text', text: 'gave up asking' }] };
    }
  });
  // Slow answers, for the client to cancel: a tool (a call that may need input) and a listing (a plain request).
  const slow = (signal: AbortSignal) => new Promise<void>((resolve) => {
    const t = setTimeout(resolve, 5000);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
  upstream.registerTool('slow', { inputSchema: {} }, async (_args, extra) => {
    await slow(extra.signal);
    return { content: [{ type: 'text', text: 'slow' }] };
  });
  upstream.server.registerCapabilities({ resources: {} });
  upstream.server.setRequestHandler(ListResourcesRequestSchema, async (_req, extra) => {
    await slow(extra.signal);
    return { resources: [] };
  });
  const [toUpstream, upstreamSide] = InMemoryTransport.createLinkedPair();
  await upstream.connect(upstreamSide);
  const deliver = upstreamSide.onmessage!;
  upstreamSide.onmessage = (m, extra) => {
    upstreamSaw.push(m);
    deliver(m, extra);
  };

  // A 2026-07-28 client on the wire (no SDK client: it would answer the input_required round itself).
  const [client, gatewaySide] = InMemoryTransport2.createLinkedPair();
  await rt.start(gatewaySide as never, { upstream: toUpstream });
  const answers = new Map<unknown, (m: Record<string, unknown>) => void>();
  client.onmessage = (m) => answers.get((m as { id?: unknown }).id)?.(m as Record<string, unknown>);
  await client.start();
  let id = 0;
  const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw-2026', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };
  sendWithId = (method, params = {}) => {
    const n = ++id;
    const answered = new Promise<Record<string, unknown>>((resolve) => answers.set(n, resolve));
    void client.send({ jsonrpc: '2.0', id: n, method, params: { ...params, _meta: envelope } } as never);
    return { id: n, answered };
  };
  notify = (method, params) => void client.send({ jsonrpc: '2.0', method, params } as never);
});
afterAll(async () => {
  await closeReplayed(rt);
});

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('gateway, 2026-07-28: an answered request is never cancelled upstream afterwards', () => {
  it('a listing and a call, answered over stdio: no notifications/cancelled reached the upstream', async () => {
    const list = await send('tools/list');
    expect((list.result as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(['ask-briefly', 'echo', 'slow']);
    const call = await send('tools/call', { name: 'echo', arguments: { message: 'hi' } });
    expect(call.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Echo: hi' }] });
    await settle(200); // the exchanges ended: the SDK has aborted both requests' signals
    expect(cancelledUpstream()).toEqual([]);
  });

  it('a call parked for input whose upstream gave up and answered on its own is not cancelled when its handle lapses', async () => {
    const before = upstreamSaw.length;
    const round = await send('tools/call', { name: 'ask-briefly', arguments: {} });
    expect(round.result).toMatchObject({ resultType: 'input_required', inputRequests: { 'elicitation-1': { method: 'elicitation/create' } } });
    // No retry: the upstream's own wait ends first (it answers the call), then the handle lapses.
    await settle(LAPSE_MS + UPSTREAM_ASK_MS + 700);
    const after = upstreamSaw.slice(before);
    expect(after.some((m) => 'id' in m && 'method' in m && m.method === 'tools/call')).toBe(true);
    expect(after.some((m) => 'result' in m)).toBe(false); // its elicitation was never answered
    expect(cancelledUpstream()).toEqual([]);
  });

  it('a request the client cancels while it is in flight is still cancelled upstream, plain or one that may need input', async () => {
    for (const [method, params] of [['resources/list', {}], ['tools/call', { name: 'slow', arguments: {} }]] as const) {
      const before = upstreamSaw.length;
      const { id } = sendWithId(method, params);
      const reached = () => upstreamSaw.slice(before).find((m) => 'method' in m && m.method === method && 'id' in m) as { id: unknown } | undefined;
      await expect.poll(reached, { message: `${method} reached the upstream` }).toBeDefined();
      notify('notifications/cancelled', { requestId: id, reason: 'changed my mind' });
      await expect.poll(() => cancelledUpstream().map((m) => (m as unknown as { params: { requestId: unknown } }).params.requestId)).toContain(reached()!.id);
    }
  });
});

describe('gateway --listen, 2026-07-28: answered requests leave no cancellation upstream', () => {
  it('a listing and a call over HTTP: the log records no notifications/cancelled', async () => {
    const ws = makeWorkspace('vouch-gw26-signal-http-');
    const http = await openGateway({ data: ws.data, config: ws.config, upstream: { command: everythingCmd(), stderr: 'ignore' }, thread: false });
    const listening = await listenGateway(http, { port: 0 });
    try {
      const client = new Client2({ name: 'http-2026', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await client.connect(new StreamableHTTPClientTransport(new URL(listening.url)) as never);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo');
      expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toBe('Echo: hi');
      await client.close();
      await settle(300);
      const decided = (await entriesOf(http)).filter((e) => e.type === 'decision' && e.flow === 'client-to-server').map((e) => e.event);
      expect(decided).toEqual(expect.arrayContaining(['tools/list', 'tools/call']));
      expect(decided).not.toContain('notifications/cancelled');
    } finally {
      await listening.close();
      await closeReplayed(http);
    }
  }, 60_000);
});
