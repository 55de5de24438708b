// A 2026-07-28 upstream (fixtures/input-required-server.ts, written with the SDK v2 server) behind
// the gateway, a 2025 client (SDK v1) in front. The upstream asks for input the 2026 way, inside
// its tool results (input_required); the gateway's SDK v2 client fulfils each ask through the same
// handlers a 2025 server's own requests reach, so each ask is decided by the same guards (the
// routing-number form refused, the token budget held), recorded, and linked to the call it belongs
// to; the client answers ordinary server requests. requestState is echoed opaque and bounded.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError, ToolListChangedNotificationSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { Entry } from '../../src/log/index.js';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import { MAX_INPUT_REQUESTS, MAX_REQUEST_STATE_BYTES, type UpstreamEra } from '../../src/mcp/gateway-upstream.js';
import { closeReplayed, entriesOf, everythingCmd, executionOf, makeClient, makeWorkspace, startKit, textOf, verifyWithJwks, vouch, type Kit, type Workspace } from './_gateway.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/input-required-server.ts', import.meta.url));
const SILENT = fileURLToPath(new URL('./fixtures/silent-legacy-server.ts', import.meta.url));
const fixtureCmd = (...flags: string[]) => `node --import tsx '${FIXTURE}' stdio ${flags.join(' ')}`;
const NAME = 'input-required';
/** The fixture runs under tsx: on a loaded machine it takes seconds to answer the probe (a timeout would read as 2025). */
const SLOW_START_PROBE_MS = 30_000;
const EXAMPLE = fileURLToPath(new URL('../../fixtures/config/vouch.example.yaml', import.meta.url));

/** The gateway fixture config, with one folder the client may expose as a root. */
function workspace(): Workspace {
  const ws = makeWorkspace('vouch-gw-mrtr-');
  writeFileSync(ws.config, readFileSync(ws.config, 'utf8').replace('use: roots-guard', `use: roots-guard\n    config: { allow: ['file://${ws.allowed}'] }`));
  return ws;
}

type Rec = Record<string, unknown>;
const decisions = async (rt: GatewayRuntime, event: string): Promise<Entry[]> => (await entriesOf(rt)).filter((e) => e.type === 'decision' && e.event === event);
const effectOf = (e: Entry) => (e.decision as { effect: string }).effect;

async function failure(p: Promise<unknown>): Promise<McpError & { data: Rec }> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(McpError);
  return e as McpError & { data: Rec };
}

describe('a 2026-07-28 upstream over stdio (--upstream-era auto), a 2025 client in front', () => {
  let kit: Kit;
  beforeAll(async () => {
    kit = await startKit(() => fixtureCmd('--reject-legacy'), workspace(), { serverName: NAME, roots: [], probeTimeoutMs: SLOW_START_PROBE_MS });
  }, 60_000);
  afterAll(() => kit?.close());

  it('negotiates 2026-07-28 upstream (the server refuses 2025), and each decision records it', async () => {
    expect(kit.gateway.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const tools = (await kit.client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['greet', 'bank-details', 'summarize', 'roots', 'two-step', 'hostile']));
    // The server/discover answer is decided as what the client is told at its initialize.
    const told = await decisions(kit.rt, 'initialize');
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ phase: 'response', protocolVersion: '2026-07-28' });
    expect((await decisions(kit.rt, 'tools/list')).map((e) => e.protocolVersion)).toEqual(['2026-07-28', '2026-07-28']);
  });

  it('relays an allowed elicitation: the user answers, the result arrives with receipts, both decisions of the ask linked to the call', async () => {
    kit.calls.answer = () => ({ action: 'accept', content: { name: 'Ada' } });
    const r = await kit.client.callTool({ name: 'greet', arguments: {} });
    expect(textOf(r)).toBe('Hello, Ada');
    expect(kit.calls.elicitation.at(-1)).toMatchObject({ message: 'What is your name?', requestedSchema: { properties: { name: { type: 'string' } } } });
    const call = r._meta!['io.vouch/seq'] as number;
    expect(verifyWithJwks(kit.rt, r._meta!['io.vouch/receipt']).entry).toMatchObject({ seq: call, event: 'tools/call', phase: 'request', protocolVersion: '2026-07-28' });
    expect(verifyWithJwks(kit.rt, r._meta!['io.vouch/response-receipt']).ok).toBe(true);
    const asks = (await decisions(kit.rt, 'elicitation/create')).filter((e) => e.call === call);
    expect(asks.map((e) => [e.phase, e.flow, effectOf(e), e.protocolVersion])).toEqual([
      ['request', 'server-to-client', 'allow', '2026-07-28'],
      ['response', 'server-to-client', 'allow', '2026-07-28'],
    ]);
    expect(asks[1].authorization).toBe(asks[0].seq);
    // What went to the upstream is what was authorized: the SDK's 2026 envelope is the hop's, not drift.
    expect(await executionOf(kit.rt, call)).toMatchObject({ drift: { severity: 'none', count: 0 } });
  });

  it('denies the routing-number form before the user sees it: the call fails with the denial, recorded and linked', async () => {
    const before = kit.calls.elicitation.length;
    const e = await failure(kit.client.callTool({ name: 'bank-details', arguments: {} }));
    expect(e.code).toBe(-32001);
    expect(e.message).toContain('denied by vouch (elicitation/create, request): elicitation-fields');
    expect(e.data).toMatchObject({ code: 'ERR_FORBIDDEN', interceptor: 'elicitation-fields', seq: expect.any(Number) });
    expect(kit.calls.elicitation.length).toBe(before);
    const call = e.data.seq as number;
    const asked = (await decisions(kit.rt, 'elicitation/create')).filter((x) => x.call === call);
    expect(asked.map((x) => [x.phase, effectOf(x)])).toEqual([['request', 'deny']]);
    expect(JSON.stringify(asked[0].decision)).toContain('requestedSchema.properties.routingNumber');
    // The call went out (its execution entry says how it ended); its retry never did.
    expect(await executionOf(kit.rt, call)).toMatchObject({ type: 'execution', authorization: call });
  });

  it('holds the sampling budget: 100 000 tokens refused before the client, 100 sampled and returned', async () => {
    const before = kit.calls.sampling.length;
    const e = await failure(kit.client.callTool({ name: 'summarize', arguments: { maxTokens: 100_000 } }));
    expect(e.message).toContain('denied by vouch (sampling/createMessage, request)');
    expect(kit.calls.sampling.length).toBe(before);
    const denied = (await decisions(kit.rt, 'sampling/createMessage')).filter((x) => x.call === e.data.seq);
    expect(JSON.stringify(denied[0].decision)).toContain('maxTokens 100000 exceeds the budget of 4000');
    const ok = await kit.client.callTool({ name: 'summarize', arguments: { maxTokens: 100 } });
    expect(textOf(ok)).toBe('sampled: sampled by the test client');
    expect(kit.calls.sampling.at(-1)!.maxTokens).toBe(100);
  });

  it('roots: an allowed folder goes back to the upstream; the whole disk is refused', async () => {
    kit.calls.roots = [{ uri: `file://${kit.ws.allowed}` }];
    expect(textOf(await kit.client.callTool({ name: 'roots', arguments: {} }))).toBe(`roots: file://${kit.ws.allowed}`);
    kit.calls.roots = [{ uri: 'file:///' }];
    const e = await failure(kit.client.callTool({ name: 'roots', arguments: {} }));
    // The deny of the client's answer carries no reason on the way out: it would name what was withheld
    // (the same handler answers a 2025 upstream); the reason is in the signed entry.
    expect(e.message).toMatch(/denied by vouch \(roots\/list, response\)/);
    expect(e.message).not.toContain('whole disk');
    expect((await decisions(kit.rt, 'roots/list')).filter((x) => x.call === e.data.seq).map((x) => [x.phase, effectOf(x)])).toEqual([
      ['request', 'allow'],
      ['response', 'deny'],
    ]);
    expect(kit.calls.rootsAsked).toBe(2);
  });

  it('carries requestState opaque across two rounds, each round decided and linked to the one call', async () => {
    kit.calls.answer = (p): ElicitResult => (p.message === 'Go on?' ? { action: 'accept', content: { ok: true } } : { action: 'accept', content: { name: 'Grace' } });
    const r = await kit.client.callTool({ name: 'two-step', arguments: {} });
    expect(textOf(r)).toBe('state confirmed:v1, name Grace');
    const asks = (await decisions(kit.rt, 'elicitation/create')).filter((e) => e.call === r._meta!['io.vouch/seq'] && e.phase === 'request');
    expect(asks).toHaveLength(2);
  });

  it(`refuses a requestState over ${MAX_REQUEST_STATE_BYTES} bytes, and over ${MAX_INPUT_REQUESTS} asks in a round, with a coded error: nothing asked, nothing echoed`, async () => {
    const before = kit.calls.elicitation.length;
    for (const args of [{ bytes: MAX_REQUEST_STATE_BYTES + 1 }, { asks: MAX_INPUT_REQUESTS + 1 }, { bytes: 3 * MAX_REQUEST_STATE_BYTES }]) {
      const e = await failure(kit.client.callTool({ name: 'hostile', arguments: args }));
      expect(e.code).toBe(-32603);
      expect(e.data).toMatchObject({ code: 'ERR_TOO_LARGE', seq: expect.any(Number) });
      expect(await executionOf(kit.rt, e.data.seq)).toMatchObject({ authorization: e.data.seq });
      expect((await decisions(kit.rt, 'elicitation/create')).filter((x) => x.call === e.data.seq)).toEqual([]);
    }
    expect(kit.calls.elicitation.length).toBe(before);
    // The same in a later round: the first round's ask was answered, the second round refused whole.
    kit.calls.answer = () => ({ action: 'accept', content: { ok: true } });
    for (const args of [{ bytes: MAX_REQUEST_STATE_BYTES + 1 }, { asks: MAX_INPUT_REQUESTS + 1 }]) {
      const e = await failure(kit.client.callTool({ name: 'hostile', arguments: { ...args, later: true } }));
      expect(e.data).toMatchObject({ code: 'ERR_TOO_LARGE' });
      expect((await decisions(kit.rt, 'elicitation/create')).filter((x) => x.call === e.data.seq && x.phase === 'request')).toHaveLength(1);
    }
    expect(kit.calls.elicitation.length).toBe(before + 2);
    // At the bound, the state is echoed as given.
    kit.calls.answer = () => ({ action: 'accept', content: { ok: true } });
    expect(textOf(await kit.client.callTool({ name: 'hostile', arguments: { bytes: MAX_REQUEST_STATE_BYTES, asks: MAX_INPUT_REQUESTS } }))).toBe('the gateway echoed it');
  });

  it("answers what the 2026 revision lacks (logging/setLevel) with -32601 naming it, decided and recorded", async () => {
    const e = await failure(kit.client.setLoggingLevel('debug'));
    expect(e.code).toBe(-32601);
    expect(e.message).toContain('upstream server "input-required" does not serve this method in the MCP revision it speaks');
    expect(await executionOf(kit.rt, e.data.seq)).toMatchObject({ authorization: e.data.seq });
  });

  it("hears the server's tool list change on a subscriptions/listen stream and tells the 2025 client, decided", async () => {
    const changed = new Promise<void>((resolve) => kit.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => resolve()));
    expect(textOf(await kit.client.callTool({ name: 'add-tool', arguments: {} }))).toBe('added added-1');
    await changed;
    const told = await decisions(kit.rt, 'notifications/tools/list_changed');
    expect(told.map((e) => [effectOf(e), e.flow, e.protocolVersion])).toEqual([['allow', 'server-to-client', '2026-07-28']]);
    expect((await kit.client.listTools()).tools.map((t) => t.name)).toContain('added-1');
  });

  it('leaves a log that replays clean and verifies', async () => {
    await kit.close(); // every decision replayed from the log (expectReplaysClean)
    const r = vouch(['log', 'verify', '--data', kit.ws.data]);
    expect(r.stdout).toContain('log verify: clean');
    expect(r.status).toBe(0);
  });
});

describe('the bundled example config in front of the 2026 upstream', () => {
  it("its sensitive-field guard refuses the routing-number form asked inside a 2026 result, as it does a 2025 server's", async () => {
    const ws = { ...makeWorkspace('vouch-gw-mrtr-example-'), config: EXAMPLE };
    // Named as a server the example policy knows (elicitation-allow-known): its policy lets the ask
    // through, and what refuses it is the guard, as for server-everything's own trigger.
    const kit = await startKit(() => fixtureCmd('--reject-legacy'), ws, { serverName: 'everything', probeTimeoutMs: SLOW_START_PROBE_MS });
    try {
      const e = await failure(kit.client.callTool({ name: 'trigger-elicitation-request', arguments: {} }));
      expect(e.data).toMatchObject({ code: 'ERR_FORBIDDEN', interceptor: 'elicitation-fields' });
      expect(kit.calls.elicitation).toEqual([]);
      const asked = (await decisions(kit.rt, 'elicitation/create')).filter((x) => x.call === e.data.seq);
      expect(asked.map((x) => [x.phase, effectOf(x), x.protocolVersion])).toEqual([['request', 'deny', '2026-07-28']]);
    } finally {
      await kit.close();
    }
  }, 60_000);
});

describe('the same upstream over Streamable HTTP (--upstream-url, auto)', () => {
  let child: ChildProcess;
  let rt: GatewayRuntime;
  beforeAll(async () => {
    child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, 'http', '--reject-legacy'], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'ignore', 'pipe'] });
    const port = await new Promise<number>((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (c: Buffer) => {
        err += c.toString();
        const m = /listening on (\d+)/.exec(err);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', () => reject(new Error(`the fixture exited: ${err}`)));
    });
    const ws = workspace();
    rt = await openGateway({ data: ws.data, config: ws.config, upstream: { url: `http://127.0.0.1:${port}/mcp` }, serverName: NAME, thread: false });
  }, 60_000);
  afterAll(async () => {
    await closeReplayed(rt);
    child?.kill();
  });

  it('relays the allowed ask and denies the routing-number form, each linked to its call', async () => {
    const kit = makeClient();
    kit.calls.answer = () => ({ action: 'accept', content: { name: 'Lin' } });
    const [down, up] = InMemoryTransport.createLinkedPair();
    const gateway = await rt.start(up);
    await kit.client.connect(down);
    expect(gateway.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const r = await kit.client.callTool({ name: 'greet', arguments: {} });
    expect(textOf(r)).toBe('Hello, Lin');
    expect((await decisions(rt, 'elicitation/create')).filter((e) => e.call === r._meta!['io.vouch/seq'])).toHaveLength(2);
    const e = await failure(kit.client.callTool({ name: 'bank-details', arguments: {} }));
    expect(e.data).toMatchObject({ code: 'ERR_FORBIDDEN', interceptor: 'elicitation-fields' });
    expect((await decisions(rt, 'elicitation/create')).filter((x) => x.call === e.data.seq).map(effectOf)).toEqual(['deny']);
    expect(kit.calls.elicitation).toHaveLength(1);
    await kit.client.close();
  });

  it('probes once per run: a later session connects with the verdict, no server/discover sent', async () => {
    let probes = 0;
    let afterFirst = -1;
    const fetch = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      if (typeof init?.body === 'string' && init.body.includes('"server/discover"')) probes++;
      return fetch(input, init);
    };
    try {
      for (let i = 0; i < 3; i++) {
        const kit = makeClient();
        const [down, up] = InMemoryTransport.createLinkedPair();
        const gateway = await rt.start(up);
        await kit.client.connect(down);
        expect(gateway.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
        expect((await kit.client.listTools()).tools.length).toBeGreaterThan(0);
        await kit.client.close();
        if (i === 0) afterFirst = probes; // this run's first session may have been this one
      }
    } finally {
      globalThis.fetch = fetch;
    }
    expect(afterFirst).toBeLessThanOrEqual(1);
    expect(probes).toBe(afterFirst);
  });
});

describe('the era is the operator\'s choice (--upstream-era)', () => {
  async function startFails(cmd: string, era: UpstreamEra, name: string, probeTimeoutMs?: number): Promise<string> {
    const ws = workspace();
    const rt = await openGateway({ data: ws.data, config: ws.config, upstream: { command: cmd, stderr: 'ignore' }, upstreamEra: era, serverName: name, probeTimeoutMs, thread: false });
    try {
      const e = await rt.start(InMemoryTransport.createLinkedPair()[1]).then(() => undefined, (x: Error) => x);
      expect(e).toBeInstanceOf(Error);
      return e!.message;
    } finally {
      await closeReplayed(rt);
    }
  }

  it('legacy: the 2025 handshake, which a 2026-only server refuses, a clear start error', async () => {
    expect(await startFails(fixtureCmd('--reject-legacy'), 'legacy', NAME)).toMatch(/upstream server "input-required" is not available: cannot connect: .*Unsupported protocol version/);
  }, 30_000);

  it('auto: a 2026-only server that does not answer the probe in time is refused at start with the pin to use', async () => {
    expect(await startFails(fixtureCmd('--reject-legacy'), 'auto', NAME, 1)).toMatch(/Unsupported protocol version: 2025-11-25 \(it speaks 2026-07-28 only and did not answer the server\/discover probe in time: pass --upstream-era 2026-07-28\)/);
  }, 30_000);

  it('2026-07-28: pinned, a 2025-only server (server-everything) fails the start; it never falls back', async () => {
    expect(await startFails(everythingCmd(), '2026-07-28', 'everything')).toMatch(/upstream server "everything" is not available: cannot connect: .*2026-07-28/);
  }, 30_000);

  it('legacy, against the fixture serving 2025: its asks come as server requests, decided by the same guards', async () => {
    const kit = await startKit(() => fixtureCmd(), workspace(), { serverName: NAME, upstreamEra: 'legacy' });
    try {
      expect(kit.gateway.client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      kit.calls.answer = () => ({ action: 'accept', content: { name: 'Ada' } });
      expect(textOf(await kit.client.callTool({ name: 'greet', arguments: {} }))).toBe('Hello, Ada');
      const before = kit.calls.elicitation.length;
      await kit.client.callTool({ name: 'bank-details', arguments: {} }).catch(() => undefined); // the server's own handling of the refusal
      expect(kit.calls.elicitation.length).toBe(before);
      const asks = await decisions(kit.rt, 'elicitation/create');
      expect(asks.map((e) => [e.phase, effectOf(e), e.protocolVersion])).toEqual([
        ['request', 'allow', '2025-11-25'],
        ['response', 'allow', '2025-11-25'],
        ['request', 'deny', '2025-11-25'],
      ]);
      // Over stdio a 2025 server's request names no call: the gateway does not guess one.
      for (const e of asks) expect(e.call).toBeUndefined();
    } finally {
      await kit.close();
    }
  }, 60_000);

  it('auto: a 2025 server that never answers the probe costs the probe bound, not the 60 s connect timeout', async () => {
    const t0 = performance.now();
    const kit = await startKit(() => `node --import tsx '${SILENT}'`, workspace(), { serverName: 'silent', probeTimeoutMs: 1_000 });
    const ms = performance.now() - t0;
    try {
      expect(kit.gateway.client.getProtocolEra()).toBe('legacy');
      expect(kit.client.getServerVersion()?.name).toBe('silent-legacy');
      expect(ms).toBeGreaterThanOrEqual(1_000);
      expect(ms).toBeLessThan(20_000);
    } finally {
      await kit.close();
    }
  }, 60_000);
});
