// A hostile 2026-07-28 client driving the gateway's input_required rounds by hand (issue 36):
// answers that carry fields the elicitation never asked for, answers under keys never asked,
// two retries racing with one handle, an oversized requestState, and a stdio connection that
// opens in one era and then speaks the other. What the 2025 era guarantees holds here too: the
// elicitation answer guard applies to `inputResponses` exactly as to a pushed answer.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryTransport } from '@modelcontextprotocol/client';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import { closeReplayed, entriesOf, makeWorkspace, textOf } from '../mcp/_gateway.js';

const ASKING = fileURLToPath(new URL('../mcp/fixtures/asking-server-2025.mjs', import.meta.url));
const POLICY = `
@id("asking-tools")
permit(principal, action == Action::"tools/call", resource) when { context.server == "asking" };
@id("asking-elicitation")
permit(principal, action == Action::"elicitation/create", resource == Elicitation::"asking");
`;
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } }, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' } };

let rt: GatewayRuntime;
beforeAll(async () => {
  const ws = makeWorkspace('vouch-gw26-retries-');
  appendFileSync(join(ws.dir, 'gateway-policy.cedar'), POLICY);
  rt = await openGateway({ data: ws.data, config: ws.config, upstream: { command: `node '${ASKING}'`, stderr: 'ignore' }, serverName: 'asking', thread: false, timeoutMs: 20_000 });
});
afterAll(async () => {
  await closeReplayed(rt);
});

type Answer = { id?: unknown; method?: string; result?: Record<string, unknown>; error?: { code: number; message: string; data?: Record<string, unknown> } };

/** A hand-driven connection: every message the gateway writes is kept; `call` waits for its answer. */
async function wire() {
  const [down, up] = InMemoryTransport.createLinkedPair();
  await rt.start(up as never);
  const seen: Answer[] = [];
  const waiting = new Map<number, (m: Answer) => void>();
  down.onmessage = (m: unknown) => {
    seen.push(m as Answer);
    const id = (m as Answer).id;
    if (typeof id === 'number') waiting.get(id)?.(m as Answer);
  };
  await down.start();
  let id = 0;
  return {
    seen,
    send: (m: unknown) => down.send(m as never),
    call(params: Record<string, unknown>, method = 'tools/call') {
      const n = ++id;
      return new Promise<Answer>((resolve) => {
        waiting.set(n, resolve);
        void down.send({ jsonrpc: '2.0', id: n, method, params: { ...params, _meta: ENVELOPE } } as never);
      });
    },
    close: () => down.close(),
  };
}
const CONFIRM = { name: 'confirm', arguments: { what: 'the deploy' } };

describe('hostile 2026 client: its answers in a retry are judged as pushed answers are', () => {
  it('an answer with a field the form never asked for is a recorded deny; the upstream gets no part of it', async () => {
    const c = await wire();
    try {
      const first = await c.call(CONFIRM);
      const key = Object.keys(first.result!.inputRequests as object)[0]!;
      // The pin holds a '#': never in the hex and base64 of the receipts beside it (a bare '4711' once was, in a leaf hash).
      const r = await c.call({ ...CONFIRM, requestState: first.result!.requestState, inputResponses: { [key]: { action: 'accept', content: { confirm: true, pin: 'pin#4711' } }, 'never-asked': { action: 'accept', content: { pin: 'pin#4711' } } } });
      // The upstream's tool saw its elicitation fail (the fixture prints what it got): no pin, no second round.
      expect(textOf(r.result)).toContain('denied by vouch');
      expect(JSON.stringify(r)).not.toContain('pin#4711');
      const answer = (await entriesOf(rt)).filter((e) => e.type === 'decision' && e.event === 'elicitation/create' && e.phase === 'response').at(-1)!;
      expect(answer).toMatchObject({ flow: 'server-to-client', decision: { effect: 'deny' } });
    } finally {
      await c.close();
    }
  });

  it('an answer that is not an object refuses that request upstream; that it reached the client and was not answered is on the record', async () => {
    const c = await wire();
    try {
      const first = await c.call(CONFIRM);
      const key = Object.keys(first.result!.inputRequests as object)[0]!;
      const r = await c.call({ ...CONFIRM, requestState: first.result!.requestState, inputResponses: { [key]: 'accept' } });
      expect(textOf(r.result)).toContain('the client did not answer elicitation/create');
      // The embedded request went to the client in a round: its execution entry records what went and that no answer came.
      const entries = await entriesOf(rt);
      const asked = entries.filter((e) => e.type === 'decision' && e.event === 'elicitation/create' && e.phase === 'request').at(-1)!;
      await expect.poll(async () => (await entriesOf(rt)).some((e) => e.type === 'execution' && e.authorization === asked.seq)).toBe(true);
    } finally {
      await c.close();
    }
  });
});

describe('hostile 2026 client: one handle, one retry', () => {
  it('two retries racing with the same handle: exactly one goes on', async () => {
    const c = await wire();
    try {
      const first = await c.call(CONFIRM);
      const key = Object.keys(first.result!.inputRequests as object)[0]!;
      const retry = { ...CONFIRM, requestState: first.result!.requestState, inputResponses: { [key]: { action: 'accept', content: { confirm: true } } } };
      const both = await Promise.all([c.call(retry), c.call(retry)]);
      expect(both.filter((r) => r.result?.resultType === 'input_required')).toHaveLength(1);
      expect(both.filter((r) => r.error?.data?.code === 'ERR_REQUEST_STATE')).toHaveLength(1);
    } finally {
      await c.close();
    }
  });

  it('a requestState far longer than any the gateway mints is refused before any lookup, coded', async () => {
    const c = await wire();
    try {
      const r = await c.call({ ...CONFIRM, requestState: 'x'.repeat(100_000), inputResponses: {} });
      expect(r.error).toMatchObject({ code: -32602, data: { code: 'ERR_REQUEST_STATE' } });
    } finally {
      await c.close();
    }
  });
});

describe('hostile 2026 client: a connection keeps the era it opened with', () => {
  it('initialize after a 2026 opening is refused (-32022); a batch carrying subscriptions/listen opens no stream and is not decided', async () => {
    const c = await wire();
    try {
      expect((await c.call({}, 'server/discover')).result?.supportedVersions).toEqual(['2026-07-28']);
      const before = (await entriesOf(rt)).length;
      await c.send({ jsonrpc: '2.0', id: 90, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { elicitation: {} }, clientInfo: { name: 'x', version: '1' } } });
      await c.send([{ jsonrpc: '2.0', id: 91, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: ENVELOPE } }]);
      await expect.poll(() => c.seen.find((m) => m.id === 90)?.error?.code).toBe(-32022);
      const grow = await c.call({ name: 'grow', arguments: {} });
      expect(textOf(grow.result)).toMatch(/^grew \d+$/);
      await new Promise((r) => setTimeout(r, 300));
      expect(c.seen.filter((m) => m.id === 91 || m.method === 'notifications/tools/list_changed' || m.method === 'notifications/subscriptions/acknowledged')).toEqual([]);
      expect((await entriesOf(rt)).slice(before).filter((e) => e.type === 'decision' && e.event === 'subscriptions/listen')).toEqual([]);
    } finally {
      await c.close();
    }
  });
});
