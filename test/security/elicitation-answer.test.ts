// Issue 35 item 2, through the real gateway. An upstream asks the user for one field (elicitation,
// `requestedSchema` with `name` only); the client's answer carries more: `account_number`, `pin`,
// a key hidden behind a zero-width space, or content that is not an object at all. What the
// schema never asked for must never reach the upstream: the answer is denied (a recorded decision,
// replayed from the log alone), and an answer that keeps to the schema still goes through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolRequestSchema, ElicitRequestSchema, ListToolsRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeReplayed, entriesOf, makeWorkspace, textOf } from '../mcp/_gateway.js';
import { post, testServer, writeConfig } from '../http/_server.js';

const SCHEMA = { type: 'object' as const, properties: { name: { type: 'string' as const, title: 'Your name' } }, required: ['name'] };

/** The upstream: one tool that elicits a name and reports, verbatim, the content it got back. */
function asker(got: unknown[]): Server {
  const server = new Server({ name: 'asker', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'trigger-elicitation-request', inputSchema: { type: 'object' } }] }));
  server.setRequestHandler(CallToolRequestSchema, async () => {
    try {
      const r = await server.elicitInput({ message: 'Who are you?', requestedSchema: SCHEMA });
      got.push(r);
      return { content: [{ type: 'text', text: `answer: ${JSON.stringify(r)}` }] };
    } catch (e) {
      got.push({ error: (e as Error).message });
      return { isError: true, content: [{ type: 'text', text: `elicitation failed: ${(e as Error).message}` }] };
    }
  });
  return server;
}

describe('elicitation answers keep to the requested schema', () => {
  let rt: GatewayRuntime;
  let client: Client;
  const got: unknown[] = [];
  let answer: ElicitResult = { action: 'accept', content: { name: 'Ada' } };

  beforeAll(async () => {
    const ws = makeWorkspace('vouch-gw-elicit-');
    rt = await openGateway({ data: ws.data, config: ws.config, serverName: 'everything', upstream: { command: 'node asker.js' }, thread: false });
    const [hUp, hDown] = InMemoryTransport.createLinkedPair();
    await asker(got).connect(hDown);
    const [down, up] = InMemoryTransport.createLinkedPair();
    await rt.start(up, { upstream: hUp });
    client = new Client({ name: 'filler', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async () => answer);
    await client.connect(down);
  });
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await closeReplayed(rt);
  });

  const ask = async (a: ElicitResult) => {
    answer = a;
    const before = got.length;
    const r = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
    expect(got.length).toBe(before + 1);
    return { result: r, upstreamGot: got.at(-1) };
  };

  it('an answer that keeps to the schema reaches the upstream', async () => {
    const { upstreamGot } = await ask({ action: 'accept', content: { name: 'Ada' } });
    expect(upstreamGot).toEqual({ action: 'accept', content: { name: 'Ada' } });
  });

  it.each([
    ['account_number and pin', { name: 'Ada', account_number: 'GB33BUKB20201555555555', pin: '4321' }],
    ['only undeclared fields', { account_number: 'GB33BUKB20201555555555' }],
    ['a declared name hidden behind a zero-width space', { name: 'Ada', 'na\u200bme': '4321' }],
    ['a key differing in case', { name: 'Ada', Name: '4321' }],
  ])('%s: nothing undeclared reaches the upstream, the answer is a recorded deny', async (_what, content) => {
    const { result, upstreamGot } = await ask({ action: 'accept', content } as ElicitResult);
    expect(JSON.stringify(upstreamGot)).not.toContain('4321');
    expect(JSON.stringify(upstreamGot)).not.toContain('GB33BUKB');
    expect(textOf(result)).toContain('elicitation failed');
    const [last] = (await entriesOf(rt)).filter((e) => e.type === 'decision' && e.event === 'elicitation/create' && e.phase === 'response').slice(-1) as Record<string, any>[];
    expect(last.decision.effect).toBe('deny');
    expect(last.decision.abortedAt.reason).toMatch(/not in the requested schema/);
  });

  it.each([
    ['content that is a string', 'my pin is 4321'],
    ['content that is a list', ['4321']],
    ['content on a decline', { pin: '4321' }],
  ])('%s is denied too', async (what, content) => {
    const action = what.includes('decline') ? 'decline' : 'accept';
    const { upstreamGot } = await ask({ action, content } as unknown as ElicitResult);
    expect(JSON.stringify(upstreamGot)).not.toContain('4321');
  });
});

describe('over REST: an answer linked to its request is held to the same schema', () => {
  let s: Awaited<ReturnType<typeof testServer>>;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-elicit-rest-'));
    s = await testServer({ config: writeConfig(dir, { version: 1, uncovered: [{ events: ['*'], phase: 'both' }], interceptors: [] }) });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('undeclared fields in the linked answer are a deny; declared ones pass', async () => {
    const req = await post(`${s.url}/v1/authorize`, { event: 'elicitation/create', phase: 'request', payload: { message: 'Who?', requestedSchema: SCHEMA } });
    expect(req.json.effect).toBe('allow');
    const answer = (content: unknown) => post(`${s.url}/v1/authorize`, { event: 'elicitation/create', phase: 'response', payload: { action: 'accept', content }, _meta: { 'io.vouch/authorization': req.json.seq } });
    const bad = await answer({ name: 'Ada', pin: '4321' });
    expect(bad.json.effect).toBe('deny');
    expect(bad.json.abortedAt?.reason ?? JSON.stringify(bad.json)).toContain('"pin"');
    const good = await answer({ name: 'Ada' });
    expect(good.json.effect).toBe('allow');
  });
});
