// The hostile upstream against the gateway's 2026-07-28 side (issue 36): a 2025 server answers a
// call with the fields that steer a 2026 client's protocol layer, which only the gateway may set:
// `resultType: "input_required"` with its own elicitation (a bank-routing-number form that the
// elicitation guard refuses when it comes as a real request), a task, or `cacheScope: "public"`
// with a day's ttl on a per-principal answer, or another server's name in the serverInfo stamp. None may reach the 2026 client as the upstream set
// it: the rounds are the gateway's (decided, bridged), and every cacheable answer is private.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import { closeReplayed, entriesOf, makeWorkspace } from '../mcp/_gateway.js';

const HOSTILE = fileURLToPath(new URL('./fixtures/hostile-upstream-2025.mjs', import.meta.url));
const POLICY = `
@id("hostile-all")
permit(principal, action in [Action::"tools/call", Action::"prompts/get", Action::"resources/read"], resource) when { context.server == "hostile" };
`;

let rt: GatewayRuntime;
beforeAll(async () => {
  const ws = makeWorkspace('vouch-gw26-hostile-');
  appendFileSync(join(ws.dir, 'gateway-policy.cedar'), POLICY);
  rt = await openGateway({ data: ws.data, config: ws.config, upstream: { command: `node '${HOSTILE}'`, stderr: 'ignore' }, serverName: 'hostile', thread: false, timeoutMs: 20_000 });
});
afterAll(async () => {
  await closeReplayed(rt);
});

type Answer = { result?: Record<string, unknown>; error?: { code: number; message: string; data?: Record<string, unknown> } };

/** A hand-driven 2026 client over an in-memory pair: the wire as the gateway writes it. */
async function rawSession() {
  const [down, up] = InMemoryTransport.createLinkedPair();
  await rt.start(up as never);
  const waiting = new Map<number, (m: Answer) => void>();
  down.onmessage = (m: unknown) => {
    const msg = m as { id?: number };
    if (typeof msg.id === 'number') waiting.get(msg.id)?.(msg as never);
  };
  await down.start();
  let id = 0;
  const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } }, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' } };
  return {
    call(method: string, params: Record<string, unknown>) {
      const n = ++id;
      return new Promise<Answer>((resolve) => {
        waiting.set(n, resolve);
        void down.send({ jsonrpc: '2.0', id: n, method, params: { ...params, _meta: envelope } } as never);
      });
    },
    close: () => down.close(),
  };
}

describe('hostile upstream: the 2026 round and cache fields are the gateway\'s, never the upstream\'s', () => {
  it('an upstream tools/call or prompts/get answer claiming input_required (its own phishing form) never reaches the client as a round', async () => {
    const s = await rawSession();
    try {
      for (const [method, params] of [['tools/call', { name: 'phish-round', arguments: {} }], ['prompts/get', { name: 'phish' }]] as const) {
        const r = await s.call(method, params);
        expect(r.result?.resultType, method).not.toBe('input_required');
        expect(JSON.stringify(r), method).not.toContain('routing number');
        expect(JSON.stringify(r), method).not.toContain('upstream-owned-state');
        expect(r.error, method).toMatchObject({ data: { code: 'ERR_UPSTREAM_RESULT' } });
      }
    } finally {
      await s.close();
    }
  });

  it('an upstream answer claiming a task, or any resultType, is refused; one saying "complete" is fine', async () => {
    const s = await rawSession();
    try {
      const task = await s.call('tools/call', { name: 'task-shaped', arguments: {} });
      expect(task.result?.resultType).not.toBe('task');
      expect(task.error).toMatchObject({ data: { code: 'ERR_UPSTREAM_RESULT' } });
      const complete = await s.call('tools/call', { name: 'complete-typed', arguments: {} });
      expect(complete.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'fine' }] });
    } finally {
      await s.close();
    }
  });

  it('the SDK v2 client is not made to fill the upstream\'s form', async () => {
    const [down, up] = InMemoryTransport.createLinkedPair();
    await rt.start(up as never);
    const client = new Client({ name: 'agent', version: '1' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const asked: unknown[] = [];
    client.setRequestHandler('elicitation/create', async (req) => {
      asked.push(req.params);
      return { action: 'accept', content: { routingNumber: '021000021' } } as never;
    });
    await client.connect(down);
    try {
      await client.callTool({ name: 'phish-round', arguments: {} }).catch(() => undefined);
      expect(asked).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('a per-principal answer is never cacheable publicly: resources/read, lists and calls say private, ttl 0', async () => {
    const s = await rawSession();
    try {
      const read = await s.call('resources/read', { uri: 'hostile://doc' });
      expect(read.result).toMatchObject({ resultType: 'complete', cacheScope: 'private', ttlMs: 0 });
      for (const method of ['resources/list', 'prompts/list']) {
        const list = await s.call(method, {});
        expect(list.result, method).toMatchObject({ cacheScope: 'private', ttlMs: 0 });
      }
      const call = await s.call('tools/call', { name: 'public-cache', arguments: {} });
      expect(call.result?.cacheScope).not.toBe('public');
      // The serverInfo stamp names the gateway's session, never whom the upstream claims to be.
      const spoof = await s.call('tools/call', { name: 'spoof-info', arguments: {} });
      expect((spoof.result?._meta as Record<string, unknown>)['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'hostile-server', title: 'hostile-server (via vouch gateway)' });
      // The upstream's answers were decided (and recorded) before the gateway refused or rewrote them.
      const events = (await entriesOf(rt)).filter((e) => e.type === 'decision' && e.phase === 'response').map((e) => e.event);
      expect(events).toEqual(expect.arrayContaining(['tools/call', 'prompts/get', 'resources/read']));
    } finally {
      await s.close();
    }
  });
});
