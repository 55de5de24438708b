// Logging through the gateway for a 2026-07-28 client (issue 36). The revision removed
// `logging/setLevel` (the level is asked per request in `_meta`) and made `notifications/message`
// request-scoped: never unsolicited, never on a listen stream (changelog, server/utilities/logging).
// In front of server-everything (a 2025 server that logs per session, unasked): setLevel is refused
// with -32601, and the server's unsolicited log messages are decided and recorded but not delivered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryTransport } from '@modelcontextprotocol/client';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import { closeReplayed, entriesOf, everythingCmd, makeWorkspace } from './_gateway.js';

type Msg = { id?: number; method?: string; result?: unknown; error?: { code: number; message: string } };
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'raw-2026', version: '1.0.0' } };

let rt: GatewayRuntime;
let down: InMemoryTransport;
const got: Msg[] = [];
beforeAll(async () => {
  const ws = makeWorkspace('vouch-gw26-logging-');
  rt = await openGateway({ data: ws.data, config: ws.config, upstream: { command: everythingCmd(), stderr: 'ignore' }, serverName: 'everything', thread: false, timeoutMs: 20_000 });
  const [a, b] = InMemoryTransport.createLinkedPair();
  down = a;
  await rt.start(b as never);
  down.onmessage = (m) => void got.push(m as Msg);
  await down.start();
}, 60_000);
afterAll(async () => {
  await closeReplayed(rt);
});

/** One raw 2026 request (the envelope in `_meta`), and its answer. */
async function request(id: number, method: string, params: Record<string, unknown>): Promise<Msg> {
  await down.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...ENVELOPE, ...(params._meta as object) } } } as never);
  for (let i = 0; i < 200 && !got.some((m) => m.id === id); i++) await new Promise((r) => setTimeout(r, 100));
  return got.find((m) => m.id === id)!;
}

describe('logging through the gateway, 2026-07-28 client', () => {
  it('logging/setLevel, which the revision removed, is refused with -32601', async () => {
    const r = await request(1, 'logging/setLevel', { level: 'debug' });
    expect(r.error?.code).toBe(-32601);
  });

  it("the 2025 server's unsolicited log messages are decided and recorded, and never reach the 2026 client", async () => {
    const r = await request(2, 'tools/call', { name: 'toggle-simulated-logging', arguments: {}, _meta: { 'io.modelcontextprotocol/logLevel': 'debug' } });
    expect(r.result).toBeDefined();
    const logged = async () => (await entriesOf(rt)).filter((e) => e.type === 'decision' && e.event === 'notifications/message');
    for (let i = 0; i < 300 && (await logged()).length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await logged()).length).toBeGreaterThanOrEqual(2);
    expect((await logged()).every((e) => (e as { flow?: string }).flow === 'server-to-client')).toBe(true);
    expect(got.filter((m) => m.method === 'notifications/message')).toEqual([]);
  }, 60_000);
});
