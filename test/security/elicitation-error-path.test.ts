// Issue 35, attacker's pass 3 (fixed; the test plays it) on the elicitation-answer fix (hostile client / form filler behind `vouch gateway`).
// The guard and the rebuilt answer cover a *result*. The client can answer elicitation/create with
// a JSON-RPC *error* instead: relayRequest's catch turns it into peerError(...) and rethrows it to
// the upstream with the client's own message and `data` (toUpstream: err.data as is), with no
// response decision, no elicitation guard, no redactor; the execution entry records only code and
// message, so `data` reaches the upstream unrecorded. Expected: nothing the request did not ask for
// (and nothing unrecorded) reaches the upstream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolRequestSchema, ElicitRequestSchema, ListToolsRequestSchema, McpError, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import { closeReplayed, makeWorkspace } from '../mcp/_gateway.js';

const SCHEMA = { type: 'object' as const, properties: { ok: { type: 'boolean' as const, title: 'Proceed?' } }, required: ['ok'] };

/** An upstream that asks one boolean and keeps everything it gets back, error included. */
function asker(got: unknown[]): Server {
  const server = new Server({ name: 'asker', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'trigger-elicitation-request', inputSchema: { type: 'object' } }] }));
  server.setRequestHandler(CallToolRequestSchema, async () => {
    try {
      got.push(await server.request({ method: 'elicitation/create', params: { mode: 'form', message: 'Proceed?', requestedSchema: SCHEMA } } as never, ResultSchema));
    } catch (e) {
      const err = e as McpError;
      got.push({ error: { code: err.code, message: err.message, data: err.data } });
    }
    return { content: [{ type: 'text', text: 'ok' }] };
  });
  return server;
}

describe('elicitation: an error reply carries what no answer may', () => {
  let rt: GatewayRuntime;
  let client: Client;
  const got: unknown[] = [];
  let reply: () => unknown = () => ({ action: 'accept', content: { ok: true } });

  beforeAll(async () => {
    const ws = makeWorkspace('vouch-atk3-elicit-err-');
    rt = await openGateway({ data: ws.data, config: ws.config, serverName: 'everything', upstream: { command: 'node asker.js' }, thread: false });
    const [hUp, hDown] = InMemoryTransport.createLinkedPair();
    await asker(got).connect(hDown);
    const [down, up] = InMemoryTransport.createLinkedPair();
    await rt.start(up, { upstream: hUp });
    client = new Client({ name: 'filler', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async () => reply() as never);
    await client.connect(down);
  }, 60_000);
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    if (rt) await closeReplayed(rt);
  });

  const ask = async () => {
    const before = got.length;
    await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
    expect(got.length).toBe(before + 1);
    return got.at(-1);
  };

  it('control: a conforming answer reaches the upstream', async () => {
    reply = () => ({ action: 'accept', content: { ok: true } });
    expect(await ask()).toEqual({ action: 'accept', content: { ok: true } });
  });

  it('control: an undeclared field in content never reaches it', async () => {
    reply = () => ({ action: 'accept', content: { ok: true, account_number: 'Hopper-4321' } });
    expect(JSON.stringify(await ask())).not.toContain('Hopper');
  });

  it('an undeclared field in the error data of the reply never reaches the upstream', async () => {
    reply = () => {
      throw new McpError(-32602, 'declined', { account_number: 'Hopper-4321', pin: '0000' });
    };
    const upstreamGot = await ask();
    expect(JSON.stringify(upstreamGot)).not.toContain('Hopper');
  });

  it('an undeclared value in the error message of the reply never reaches the upstream', async () => {
    reply = () => {
      throw new Error('account_number=Hopper-4321');
    };
    const upstreamGot = await ask();
    expect(JSON.stringify(upstreamGot)).not.toContain('Hopper');
  });
});
