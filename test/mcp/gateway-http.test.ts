// The gateway served over Streamable HTTP (`--listen`): one gateway session and one upstream per
// MCP session, server-to-client requests routed to the right client, loopback only. And an
// upstream reached by URL: server-everything in its own Streamable HTTP mode.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { listenGateway, type Listening } from '../../src/mcp/gateway-http.js';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import { EVERYTHING, entriesOf, everythingCmd, makeClient, makeWorkspace, textOf, verifyWithJwks, closeReplayed } from './_gateway.js';

let rt: GatewayRuntime;
let listening: Listening;

beforeAll(async () => {
  const ws = makeWorkspace('vouch-gw-http-');
  rt = await openGateway({ data: ws.data, config: ws.config, upstream: { command: everythingCmd(), stderr: 'ignore' }, thread: false });
  listening = await listenGateway(rt, { port: 0 });
});
afterAll(async () => {
  await listening?.close();
  await closeReplayed(rt);
});

async function connect() {
  const kit = makeClient();
  const transport = new StreamableHTTPClientTransport(new URL(listening.url));
  await kit.client.connect(transport);
  return { ...kit, transport };
}

describe('gateway over Streamable HTTP', () => {
  it('relays two independent sessions, each with its own upstream', async () => {
    const a = await connect();
    const b = await connect();
    expect(rt.sessions().length).toBe(2);
    expect(a.transport.sessionId).not.toBe(b.transport.sessionId);
    const [ra, rb] = await Promise.all([
      a.client.callTool({ name: 'echo', arguments: { message: 'from a' } }),
      b.client.callTool({ name: 'echo', arguments: { message: 'from b' } }),
    ]);
    expect(textOf(ra)).toBe('Echo: from a');
    expect(textOf(rb)).toBe('Echo: from b');
    const ea = verifyWithJwks(rt, ra._meta!['io.vouch/receipt']);
    const eb = verifyWithJwks(rt, rb._meta!['io.vouch/receipt']);
    expect(ea.ok && eb.ok).toBe(true);
    expect(ea.entry!.session).toBe(a.transport.sessionId);
    expect(eb.entry!.session).toBe(b.transport.sessionId);
    await a.transport.terminateSession();
    await a.client.close();
    await expect.poll(() => rt.sessions().length).toBe(1);
    await b.client.close();
  });

  it('routes a server-to-client sampling request to the client that caused it', async () => {
    const c = await connect();
    const r = await c.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'over http', maxTokens: 50 } });
    expect(r.isError).toBeFalsy();
    expect(c.calls.sampling.length).toBe(1);
    expect(textOf(r)).toContain('sampled by the test client');
    await c.transport.terminateSession();
    await c.client.close();
  });

  it('answers an unknown session with 404 and a non-initialize first request with 400', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const unknown = await fetch(listening.url, { method: 'POST', headers: { ...headers, 'mcp-session-id': 'nope' }, body: list });
    expect(unknown.status).toBe(404);
    const first = await fetch(listening.url, { method: 'POST', headers, body: list });
    expect(first.status).toBe(400);
    expect((await first.json()).error.message).toContain('must be initialize');
  });

  it('refuses to listen beyond loopback (it checks no tokens)', async () => {
    await expect(listenGateway(rt, { host: '0.0.0.0', port: 0 })).rejects.toMatchObject({ code: 'ERR_CONFIG' });
  });
});

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('gateway to an upstream over Streamable HTTP (--upstream-url)', () => {
  let child: ChildProcess;
  let urlRt: GatewayRuntime;

  beforeAll(async () => {
    const port = await freePort();
    child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (c: Buffer) => {
        err += c.toString();
        if (err.includes('listening on port')) resolve();
      });
      child.once('exit', () => reject(new Error(`server-everything exited: ${err}`)));
    });
    const ws = makeWorkspace('vouch-gw-url-');
    urlRt = await openGateway({ data: ws.data, config: ws.config, upstream: { url: `http://127.0.0.1:${port}/mcp` }, serverName: 'everything', thread: false });
  });
  afterAll(async () => {
    await closeReplayed(urlRt);
    child?.kill();
  });

  it('relays calls and a server-to-client sampling request over the upstream HTTP session', async () => {
    const kit = makeClient();
    const [down, up] = InMemoryTransport.createLinkedPair();
    await urlRt.start(up);
    await kit.client.connect(down);
    const names = (await kit.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('echo');
    expect(names).not.toContain('get-env');
    const r = await kit.client.callTool({ name: 'echo', arguments: { message: 'by url' } });
    expect(textOf(r)).toBe('Echo: by url');
    expect(verifyWithJwks(urlRt, r._meta!['io.vouch/receipt']).ok).toBe(true);
    const s = await kit.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'p', maxTokens: 99_999 } });
    expect(s.isError).toBe(true);
    expect(kit.calls.sampling).toEqual([]);
    // Over HTTP a 2025 server's request comes on the stream of the call that made it: linked to that call.
    const asked = (await entriesOf(urlRt)).filter((e) => e.event === 'sampling/createMessage');
    expect(asked.map((e) => e.call)).toEqual([s._meta!['io.vouch/seq']]);
    await kit.client.close();
  });
});
