// Attack on issue 35 item 2 (elicitation answers carry only requested fields). Attacker: a hostile
// or careless client (form filler) behind `vouch gateway`. The guard (src/decide/elicitation-answer.ts)
// only compares the *keys of `content`* with the request's declared properties. Data the request
// never asked for still reaches the upstream:
//   - as a top-level member of the ElicitResult (`{action, content, account_number}`): the SDK's
//     result schemas are loose objects, the gateway forwards the raw result;
//   - in `_meta` of the result;
//   - inside a declared field's value (an array where the schema asks for a string), for an
//     upstream that reads the raw answer (no SDK-side validation).
// Expected (what the fix claims): nothing undeclared reaches the upstream; the answer is a deny.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolRequestSchema, ElicitRequestSchema, ListToolsRequestSchema, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import { closeReplayed, makeWorkspace } from '../mcp/_gateway.js';

const SCHEMA = { type: 'object' as const, properties: { name: { type: 'string' as const, title: 'Your name' } }, required: ['name'] };

/** An upstream that asks for `name` and keeps the raw answer it got (no SDK validation of the content). */
function asker(got: unknown[]): Server {
  const server = new Server({ name: 'asker', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'trigger-elicitation-request', inputSchema: { type: 'object' } }] }));
  server.setRequestHandler(CallToolRequestSchema, async () => {
    try {
      const r = await server.request({ method: 'elicitation/create', params: { mode: 'form', message: 'Who are you?', requestedSchema: SCHEMA } } as never, ResultSchema);
      got.push(r);
      return { content: [{ type: 'text', text: 'ok' }] };
    } catch (e) {
      got.push({ error: (e as Error).message });
      return { isError: true, content: [{ type: 'text', text: `elicitation failed: ${(e as Error).message}` }] };
    }
  });
  return server;
}

describe('undeclared data in an elicitation answer, outside the keys of content', () => {
  let rt: GatewayRuntime;
  let client: Client;
  const got: unknown[] = [];
  let answer: Record<string, unknown> = { action: 'accept', content: { name: 'Ada' } };

  beforeAll(async () => {
    const ws = makeWorkspace('vouch-atk-elicit-');
    rt = await openGateway({ data: ws.data, config: ws.config, serverName: 'everything', upstream: { command: 'node asker.js' }, thread: false });
    const [hUp, hDown] = InMemoryTransport.createLinkedPair();
    await asker(got).connect(hDown);
    const [down, up] = InMemoryTransport.createLinkedPair();
    await rt.start(up, { upstream: hUp });
    client = new Client({ name: 'filler', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async () => answer as never);
    await client.connect(down);
  }, 60_000);
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    if (rt) await closeReplayed(rt);
  });

  const ask = async (a: Record<string, unknown>) => {
    answer = a;
    const before = got.length;
    await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
    expect(got.length).toBe(before + 1);
    return got.at(-1);
  };

  it('control: a conforming answer reaches the upstream', async () => {
    expect(await ask({ action: 'accept', content: { name: 'Ada' } })).toEqual({ action: 'accept', content: { name: 'Ada' } });
  });

  it.each([
    ['a top-level member next to content', { action: 'accept', content: { name: 'Ada' }, account_number: 'maiden-name-Hopper-4321' }],
    ['a member of the result _meta', { action: 'accept', content: { name: 'Ada' }, _meta: { account_number: 'maiden-name-Hopper-4321' } }],
    ['an array of extra values in the declared string field', { action: 'accept', content: { name: ['Ada', 'maiden-name-Hopper-4321'] } }],
    ['a top-level member on a decline (no content at all)', { action: 'decline', account_number: 'maiden-name-Hopper-4321' }],
  ])('%s never reaches the upstream', async (_what, a) => {
    const upstreamGot = await ask(a);
    expect(JSON.stringify(upstreamGot)).not.toContain('Hopper');
  });
});

// Variants the review did not list, on the guard itself (pure: the gateway and REST both call it).
describe('the class: only action, content on accept, and values of the declared type', () => {
  const FORM = {
    requestedSchema: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        age: { type: 'integer' },
        score: { type: 'number' },
        ok: { type: 'boolean' },
        size: { type: 'string', enum: ['s', 'm'] },
        tier: { type: 'string', oneOf: [{ const: 'gold', title: 'Gold' }] },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
      },
    },
  };
  const good = { name: 'Ada', age: 36, score: 1.5, ok: true, size: 'm', tier: 'gold', tags: ['a', 'b'] };
  it('a conforming answer is allowed, and what is forwarded is rebuilt from action and content', async () => {
    const { elicitationAnswerGuard, keptElicitationAnswer } = await import('../../src/decide/elicitation-answer.js');
    for (const a of [{ action: 'accept', content: good }, { action: 'decline' }, { action: 'cancel', _meta: {} }, { jsonrpc: '2.0', id: 1, result: { action: 'accept', content: { name: 'Ada' } } }]) {
      expect(elicitationAnswerGuard(FORM, a).deny).toBeUndefined();
    }
    expect(keptElicitationAnswer({ action: 'cancel', _meta: {} })).toEqual({ action: 'cancel' });
    expect(keptElicitationAnswer({ action: 'accept', content: good })).toEqual({ action: 'accept', content: good });
  });
  it.each([
    ['an object in a string field', { action: 'accept', content: { name: { v: 'Hopper' } } }],
    ['a string in an integer field', { action: 'accept', content: { age: 'Hopper' } }],
    ['a fraction in an integer field', { action: 'accept', content: { age: 1.5 } }],
    ['a string in a boolean field', { action: 'accept', content: { ok: 'Hopper' } }],
    ['a value outside the enum', { action: 'accept', content: { size: 'Hopper' } }],
    ['a value outside the oneOf consts', { action: 'accept', content: { tier: 'Hopper' } }],
    ['a value outside a multi-select', { action: 'accept', content: { tags: ['a', 'Hopper'] } }],
    ['an extra member on a cancel', { action: 'cancel', note: 'Hopper' }],
    ['a non-empty _meta on a decline', { action: 'decline', _meta: { x: 'Hopper' } }],
    ['an unknown action', { action: 'Hopper' }],
    ['no action', { content: { name: 'Ada' } }],
    ['an answer that is not an object', ['Hopper']],
    ['a JSON-RPC message with an extra member in its result', { jsonrpc: '2.0', id: 1, result: { action: 'accept', content: { name: 'Ada' }, x: 'Hopper' } }],
  ])('%s is a deny whose record holds no value', async (_what, a) => {
    const { elicitationAnswerGuard } = await import('../../src/decide/elicitation-answer.js');
    const g = elicitationAnswerGuard(FORM, a);
    expect(g.deny).toBeTruthy();
    expect(JSON.stringify(g)).not.toContain('Hopper');
  });
});
