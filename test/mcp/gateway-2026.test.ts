// The gateway in front of a 2025-era server (a child over stdio) with the SDK v2 client pinned to
// MCP 2026-07-28 (issue 36): server/discover, resultType, private cache hints, a deterministic
// listing; the upstream's elicitation, sampling and roots requests reach the 2026 client as
// `input_required` rounds, each decided both ways (the routing-number form is refused, the huge
// sampling budget is refused, roots are not covered so they are denied); a forged or replayed
// requestState reaches no call; a 2025 client of the same gateway still gets pushed requests.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { listenGateway, type Listening } from '../../src/mcp/gateway-http.js';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as LegacyMemory } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import { rowOf } from '../../src/http/_console-rows.js';
import { summarizeEntry } from '../../src/receipt/entry-summary.js';
import { closeReplayed, entriesOf, makeWorkspace, textOf, verifyWithJwks } from './_gateway.js';

const ASKING = fileURLToPath(new URL('./fixtures/asking-server-2025.mjs', import.meta.url));

// The fixture server's tools and requests, allowed for the server named "asking".
const POLICY = `
@id("asking-tools")
permit(principal, action == Action::"tools/call", resource) when { context.server == "asking" };
@id("asking-elicitation")
permit(principal, action == Action::"elicitation/create", resource == Elicitation::"asking");
@id("asking-sampling")
permit(principal, action == Action::"sampling/createMessage", resource == Sampling::"asking")
when { context.arguments has maxTokens && context.arguments.maxTokens <= 4000 };
`;

let rt: GatewayRuntime;
const asked: { method: string; params: Record<string, unknown> }[] = [];

beforeAll(async () => {
  const ws = makeWorkspace('vouch-gw26-');
  appendFileSync(join(ws.dir, 'gateway-policy.cedar'), POLICY);
  rt = await openGateway({ data: ws.data, config: ws.config, upstream: { command: `node '${ASKING}'`, stderr: 'ignore' }, serverName: 'asking', thread: false, timeoutMs: 20_000 });
});
afterAll(async () => {
  await closeReplayed(rt);
});

/** A 2026-07-28 client (SDK v2, pinned) over an in-memory pair to a new gateway session. */
async function modernClient(opts: { roots?: boolean } = {}): Promise<Client> {
  const [down, up] = InMemoryTransport.createLinkedPair();
  await rt.start(up as never);
  const client = new Client({ name: 'acme-agent', version: '2.0.0' }, { capabilities: { elicitation: { form: {} }, sampling: {}, ...(opts.roots && { roots: {} }) }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  client.setRequestHandler('elicitation/create', async (req) => {
    asked.push({ method: 'elicitation/create', params: req.params as never });
    const props = Object.keys((req.params as { requestedSchema?: { properties?: object } }).requestedSchema?.properties ?? {});
    if (props.includes('confirm')) return { action: 'accept', content: { confirm: true } } as never;
    if (props.includes('colour')) return { action: 'accept', content: { colour: 'teal' } } as never;
    return { action: 'accept', content: { routingNumber: '021000021' } } as never;
  });
  client.setRequestHandler('sampling/createMessage', async (req) => {
    asked.push({ method: 'sampling/createMessage', params: req.params as never });
    return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'a fine quarter' } };
  });
  if (opts.roots) {
    client.setRequestHandler('roots/list', async () => {
      asked.push({ method: 'roots/list', params: {} });
      return { roots: [{ uri: 'file:///home/me/secret', name: 'secret' }] };
    });
  }
  await client.connect(down);
  return client;
}

describe('gateway: a 2026-07-28 client in front of a 2025 server', () => {
  let client: Client;
  beforeAll(async () => {
    client = await modernClient();
  });
  afterAll(async () => {
    await client?.close();
  });

  it('negotiates 2026-07-28 and lists the tools sorted, private, with receipts', async () => {
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const list = await client.listTools();
    expect(list.tools.map((t) => t.name)).toEqual(['confirm', 'echo', 'grow', 'pay', 'roots', 'summarize']);
    expect(list._meta?.['io.vouch/receipt']).toBeDefined();
    expect(verifyWithJwks(rt, list._meta?.['io.vouch/receipt']).ok).toBe(true);
  });

  it('answers a plain call with its result and receipts; the entries record the claimed client', async () => {
    const r = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    expect(textOf(r)).toBe('Echo: hi');
    expect(verifyWithJwks(rt, r._meta?.['io.vouch/receipt']).ok).toBe(true);
    const call = (await entriesOf(rt)).filter((e) => e.type === 'decision' && e.event === 'tools/call').at(-1)!;
    // Both eras are on the record: the client's (2026) and the upstream's (2025, what compat skipping reads).
    expect(call).toMatchObject({ clientInfo: { name: 'acme-agent', version: '2.0.0' }, clientProtocolVersion: '2026-07-28', protocolVersion: '2025-11-25', flow: 'client-to-server' });
    expect(summarizeEntry(call).text).toContain('over MCP 2026-07-28 (upstream 2025-11-25), client "acme-agent" 2.0.0 (self-reported)');
    expect(rowOf(call.seq, call as never).mcp).toEqual({ version: '2026-07-28', client: 'acme-agent 2.0.0' });
  });

  it('brings the upstream\'s elicitations to the client as input_required rounds, each decided both ways', async () => {
    const before = (await entriesOf(rt)).length;
    asked.length = 0;
    const r = await client.callTool({ name: 'confirm', arguments: { what: 'the deploy' } });
    expect(textOf(r)).toContain('confirm: {"action":"accept","content":{"confirm":true}}');
    expect(textOf(r)).toContain('"colour":"teal"');
    expect(asked.map((a) => a.method)).toEqual(['elicitation/create', 'elicitation/create']);
    const fresh = (await entriesOf(rt)).slice(before).filter((e) => e.type === 'decision' && e.event === 'elicitation/create');
    expect(fresh.map((e) => [e.phase, e.flow, (e.decision as { effect: string }).effect])).toEqual([
      ['request', 'server-to-client', 'allow'],
      ['response', 'server-to-client', 'allow'],
      ['request', 'server-to-client', 'allow'],
      ['response', 'server-to-client', 'allow'],
    ]);
    // One thread for the auditor: each ask's decisions name the tools/call they were made for.
    const call = (await entriesOf(rt)).slice(before).find((e) => e.type === 'decision' && e.event === 'tools/call' && e.phase === 'request')!;
    expect(fresh.every((e) => e.call === call.seq)).toBe(true);
  });

  it('refuses the routing-number form: the client never sees it, the upstream gets an error, the deny is signed', async () => {
    asked.length = 0;
    const r = await client.callTool({ name: 'pay', arguments: {} });
    expect(textOf(r)).toContain('elicitation refused');
    expect(asked).toEqual([]);
    const deny = (await entriesOf(rt)).filter((e) => e.type === 'decision' && e.event === 'elicitation/create').at(-1)!;
    expect(deny).toMatchObject({ phase: 'request', flow: 'server-to-client', decision: { effect: 'deny' } });
    expect(JSON.stringify(deny.decision)).toContain('elicitation-fields');
  });

  it('caps sampling: a huge budget is refused, a small one reaches the client and back', async () => {
    asked.length = 0;
    expect(textOf(await client.callTool({ name: 'summarize', arguments: { maxTokens: 1_000_000 } }))).toContain('sampling refused');
    expect(asked).toEqual([]);
    expect(textOf(await client.callTool({ name: 'summarize', arguments: { maxTokens: 100 } }))).toContain('a fine quarter');
    expect(asked.map((a) => a.method)).toEqual(['sampling/createMessage']);
  });

  it('keeps the client\'s roots from the upstream: roots-guard allows none here', async () => {
    const rooted = await modernClient({ roots: true });
    try {
      asked.length = 0;
      const text = textOf(await rooted.callTool({ name: 'roots', arguments: {} }));
      expect(text).not.toContain('secret');
      const fresh = (await entriesOf(rt)).filter((e) => e.type === 'decision' && e.event === 'roots/list');
      expect(fresh.map((e) => e.phase)).toEqual(['request', 'response']);
      expect(fresh.every((e) => e.flow === 'server-to-client')).toBe(true);
    } finally {
      await rooted.close();
    }
  });
});

describe('gateway: the requestState of a 2026 round (hostile caller)', () => {
  it('a forged requestState reaches no call: -32602, coded', async () => {
    const client = await modernClient();
    try {
      const e = await client.request({ method: 'tools/call', params: { name: 'echo', arguments: { message: 'x' }, requestState: 'forged-state', inputResponses: {} } } as never).then(
        () => undefined,
        (x: unknown) => x as { code?: number; message?: string },
      );
      expect(e?.code).toBe(-32602);
      expect(e?.message).toContain('requestState');
    } finally {
      await client.close();
    }
  });

  it('a handle replayed with other params, by another caller, or twice reaches no call', async () => {
    const a = await rawSession();
    const first = await a.call({ name: 'confirm', arguments: { what: 'x' } });
    expect(first.result?.resultType).toBe('input_required');
    const handle = first.result!.requestState as string;
    const key = Object.keys(first.result!.inputRequests as object)[0]!;
    const yes = { [key]: { action: 'accept', content: { confirm: true } } };
    // Other params under the handle: refused (the call stays parked for its own retry).
    const changed = await a.call({ name: 'confirm', arguments: { what: 'something else' }, requestState: handle, inputResponses: yes });
    expect(changed.error).toMatchObject({ code: -32602 });
    // The real retry goes on (the next round asks for a colour); the handle is then spent.
    const next = await a.call({ name: 'confirm', arguments: { what: 'x' }, requestState: handle, inputResponses: yes });
    expect(next.result?.resultType).toBe('input_required');
    const again = await a.call({ name: 'confirm', arguments: { what: 'x' }, requestState: handle, inputResponses: yes });
    expect(again.error).toMatchObject({ code: -32602 });
    // Another connection (another gateway session) cannot ride a live handle either.
    const c = await rawSession();
    const live = await c.call({ name: 'confirm', arguments: { what: 'y' } });
    expect(live.result?.resultType).toBe('input_required');
    const b = await rawSession();
    const stolen = await b.call({ name: 'confirm', arguments: { what: 'y' }, requestState: live.result!.requestState, inputResponses: yes });
    expect(stolen.error).toMatchObject({ code: -32602 });
    await Promise.all([a.close(), b.close(), c.close()]);
  });
});

/** A hand-driven 2026 client: JSON-RPC over an in-memory pair, the `_meta` envelope on each request. */
async function rawSession() {
  const [down, up] = InMemoryTransport.createLinkedPair();
  await rt.start(up as never);
  const waiting = new Map<number, (m: { result?: Record<string, unknown>; error?: { code: number; message: string } }) => void>();
  down.onmessage = (m: unknown) => {
    const msg = m as { id?: number };
    if (typeof msg.id === 'number') waiting.get(msg.id)?.(msg as never);
  };
  await down.start();
  let id = 0;
  const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } }, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' } };
  return {
    call(params: Record<string, unknown>, method = 'tools/call') {
      const n = ++id;
      return new Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }>((resolve) => {
        waiting.set(n, resolve);
        void down.send({ jsonrpc: '2.0', id: n, method, params: { ...params, _meta: envelope } } as never);
      });
    },
    close: () => down.close(),
  };
}

describe('gateway: tasks (the extension is not offered, so no handle exists to fetch a result the chain did not see)', () => {
  it('a 2026 client\'s tasks/get, tasks/update and tasks/cancel are refused with a coded error; discovery offers no tasks', async () => {
    const a = await rawSession();
    try {
      for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel', 'tasks/result']) {
        const r = await a.call({ taskId: 'guessed-task-id' }, method);
        expect(r.error, method).toMatchObject({ code: -32601 });
      }
      const discover = await a.call({}, 'server/discover');
      expect(JSON.stringify(discover.result?.capabilities ?? {})).not.toContain('tasks');
    } finally {
      await a.close();
    }
  });
});

describe('gateway: a 2025 client of the same gateway', () => {
  it('initializes as before and gets the upstream\'s elicitation pushed', async () => {
    const [down, up] = LegacyMemory.createLinkedPair();
    await rt.start(up);
    const client = new LegacyClient({ name: 'old-agent', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    let pushed = 0;
    client.setRequestHandler(ElicitRequestSchema, async () => {
      pushed++;
      return { action: 'decline' };
    });
    await client.connect(down);
    try {
      const r = await client.callTool({ name: 'confirm', arguments: { what: 'x' } });
      expect(textOf(r)).toContain('"action":"decline"');
      expect(pushed).toBe(1);
      expect(r._meta?.['io.vouch/receipt']).toBeDefined();
    } finally {
      await client.close();
    }
  });
});

describe('gateway --listen: 2026-07-28 callers over Streamable HTTP, beside 2025 sessions', () => {
  let listening: Listening;
  beforeAll(async () => {
    listening = await listenGateway(rt, { port: 0 });
  });
  afterAll(async () => {
    await listening?.close();
  });

  async function httpClient(mode: 'pin' | 'auto'): Promise<Client> {
    const client = new Client({ name: 'http-agent', version: '3.1.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: mode === 'pin' ? { pin: '2026-07-28' } : 'auto' } });
    client.setRequestHandler('elicitation/create', async (req) => {
      const props = Object.keys((req.params as { requestedSchema?: { properties?: object } }).requestedSchema?.properties ?? {});
      return (props.includes('confirm') ? { action: 'accept', content: { confirm: true } } : { action: 'accept', content: { colour: 'plum' } }) as never;
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(listening.url)) as never);
    return client;
  }

  it('a pinned and an auto client both land on 2026-07-28, call through input_required rounds, and get receipts', async () => {
    for (const mode of ['pin', 'auto'] as const) {
      const client = await httpClient(mode);
      try {
        expect(client.getProtocolEra()).toBe('modern');
        const list = await client.listTools();
        expect(list.tools.map((t) => t.name)).toEqual(['confirm', 'echo', 'grow', 'pay', 'roots', 'summarize']);
        const r = await client.callTool({ name: 'confirm', arguments: { what: `over http (${mode})` } });
        expect(textOf(r)).toContain('"colour":"plum"');
        expect(verifyWithJwks(rt, r._meta?.['io.vouch/receipt']).ok).toBe(true);
      } finally {
        await client.close();
      }
    }
  });

  it('the discover answer and lists are private, never public', async () => {
    const post = (body: object, headers: Record<string, string>) => fetch(listening.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', ...headers }, body: JSON.stringify(body) });
    const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const list = await (await post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } }, { 'mcp-method': 'tools/list' })).json() as { result: Record<string, unknown> };
    expect(list.result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
  });

  it('refuses a POST whose Mcp-Name disagrees with its body (-32020) and signs the refusal; nothing reaches the upstream', async () => {
    const before = (await entriesOf(rt)).length;
    const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const r = await fetch(listening.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'pay', arguments: {}, _meta: envelope } }),
    });
    expect(r.status).toBe(400);
    const body = (await r.json()) as { error: { code: number; data: Record<string, unknown> } };
    expect(body.error.code).toBe(-32020);
    expect(body.error.data).toMatchObject({ code: 'ERR_HEADER_MISMATCH', header: 'Mcp-Name', value: 'echo', body: 'pay' });
    expect(verifyWithJwks(rt, body.error.data.receipt).entry).toMatchObject({ event: 'tools/call', decision: { effect: 'deny' } });
    const fresh = (await entriesOf(rt)).slice(before);
    // (The caller's first request may open its upstream connection: that welcome is decided as `initialize`.)
    expect(fresh.filter((e) => e.type === 'decision' && e.event !== 'initialize').map((e) => [e.event, e.phase])).toEqual([['tools/call', 'request']]);
  });

  it('decides subscriptions/listen before the SDK\'s entry opens a stream: denied by default, with its receipt', async () => {
    const client = await httpClient('pin');
    try {
      const e = await client.listen({ toolsListChanged: true }).then(
        () => undefined,
        (x: unknown) => x as { code?: number; data?: Record<string, unknown> },
      );
      expect(e?.code).toBe(-32001);
      expect(verifyWithJwks(rt, e?.data?.receipt).entry).toMatchObject({ event: 'subscriptions/listen', decision: { effect: 'deny' } });
    } finally {
      await client.close();
    }
  });

  it('a 2025 client still opens a session on the same listener', async () => {
    const client = new LegacyClient({ name: 'old-http', version: '1' });
    const transport = new LegacyHttp(new URL(listening.url));
    await client.connect(transport);
    try {
      expect(transport.sessionId).toBeDefined();
      expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'old' } }))).toBe('Echo: old');
    } finally {
      await client.close();
    }
  });
});

describe('gateway: subscriptions/listen from a 2026 client (decided before the stream opens)', () => {
  it('is denied by default (no policy covers it): a coded error with its signed receipt', async () => {
    const client = await modernClient();
    try {
      const e = await client.listen({ toolsListChanged: true }).then(
        () => undefined,
        (x: unknown) => x as { code?: number; data?: Record<string, unknown> },
      );
      expect(e?.code).toBe(-32001);
      expect(verifyWithJwks(rt, e?.data?.receipt).entry).toMatchObject({ event: 'subscriptions/listen', decision: { effect: 'deny' } });
    } finally {
      await client.close();
    }
  });

  it('allowed by the config, the upstream\'s list_changed reaches the stream, decided on the way', async () => {
    const ws = makeWorkspace('vouch-gw26-listen-');
    appendFileSync(join(ws.dir, 'gateway-policy.cedar'), POLICY);
    // Allowed as uncovered traffic: the rule goes at the end of the fixture's `uncovered:` list (just before `drift:`).
    writeFileSync(ws.config, readFileSync(ws.config, 'utf8').replace('\ndrift:', '\n  - events: [subscriptions/listen]\n    phase: request\n\ndrift:'));
    const own = await openGateway({ data: ws.data, config: ws.config, upstream: { command: `node '${ASKING}'`, stderr: 'ignore' }, serverName: 'asking', thread: false, timeoutMs: 20_000 });
    try {
      const [down, up] = InMemoryTransport.createLinkedPair();
      await own.start(up as never);
      const client = new Client({ name: 'listener', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      let changed = 0;
      client.setNotificationHandler('notifications/tools/list_changed', () => void changed++);
      await client.connect(down);
      const sub = await client.listen({ toolsListChanged: true });
      expect(sub.honoredFilter).toMatchObject({ toolsListChanged: true });
      expect(textOf(await client.callTool({ name: 'grow', arguments: {} }))).toBe('grew 1');
      await expect.poll(() => changed, { timeout: 5000 }).toBe(1);
      const events = (await entriesOf(own)).filter((e) => e.type === 'decision').map((e) => e.event);
      expect(events).toEqual(expect.arrayContaining(['subscriptions/listen', 'notifications/tools/list_changed']));
      await client.close();

      // The same over --listen: the caller's own event bus carries its upstream's change.
      const http = await listenGateway(own, { port: 0 });
      try {
        const remote = new Client({ name: 'listener-http', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
        let heard = 0;
        remote.setNotificationHandler('notifications/tools/list_changed', () => void heard++);
        await remote.connect(new StreamableHTTPClientTransport(new URL(http.url)) as never);
        await remote.listen({ toolsListChanged: true });
        expect(textOf(await remote.callTool({ name: 'grow', arguments: {} }))).toBe('grew 1');
        await expect.poll(() => heard, { timeout: 5000 }).toBe(1);
        await remote.close();
      } finally {
        await http.close();
      }
    } finally {
      await closeReplayed(own);
    }
  });
});
