// MCP 2026-07-28 on the Worker inside workerd (issue 36): the SDK v2 client, pinned to 2026-07-28
// and in `auto` mode, running in the same isolate with SELF as its fetch, beside 2025 requests;
// each entry records the era and (2026) the client as it claims to be; a header mismatch is a
// recorded refusal and an unsupported version lists the served ones. The same from outside, through
// the bundle wrangler builds, is test/workers/wrangler-mcp-2026.test.ts.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromBase64, utf8 } from '../../../src/canonical/index.js';
import { SERVED_PROTOCOL_VERSIONS } from '../../../src/protocol/index.js';
import { call, rpc } from './_worker-kit.js';

type Any = Record<string, any>;
const V26 = '2026-07-28';
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': V26, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'raw-client', version: '0.0.1' } };
const chain = (name: string) => ({ event: 'tools/call', phase: 'request', payload: { name, arguments: { text: 'hi' } }, context: { sessionId: 's-workerd-2026' } });
const entryOf = (r: Any): Any => JSON.parse(utf8.decode(fromBase64(r._meta['io.vouch/receipt'].entry)));

/** A 2026 POST /mcp with its version and method headers (`headers` overrides them). */
async function post26(method: string, params: Any, headers: Record<string, string> = {}, meta: Any = {}): Promise<{ status: number; json: Any }> {
  const res = await SELF.fetch('http://localhost/mcp', {
    method: 'POST',
    headers: { host: 'localhost', 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': V26, 'mcp-method': method, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: { ...ENVELOPE, ...meta } } }),
  });
  return { status: res.status, json: (await res.json()) as Any };
}

/** The SDK v2 client with the Worker as its fetch (a binding's fetch carries no Host of its own: development mode serves loopback). */
async function sdkClient(mode: 'auto' | { pin: string }, name: string): Promise<Client> {
  const client = new Client({ name, version: '2.4.0-workerd' }, { versionNegotiation: { mode } });
  const transport = new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), { fetch: (url, init) => SELF.fetch(String(url), init as RequestInit), requestInit: { headers: { host: 'localhost' } } });
  await client.connect(transport);
  return client;
}

describe('MCP 2026-07-28 on the Worker, in workerd', () => {
  it('the SDK v2 client (pinned and auto) negotiates 2026-07-28; its decisions and a 2025 one side by side record their era and client', async () => {
    for (const [mode, name] of [[{ pin: V26 }, 'v2-pinned'], ['auto', 'v2-auto']] as const) {
      const client = await sdkClient(mode, name);
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe(V26);
        expect(Object.keys(client.getServerCapabilities()?.extensions ?? {})).toContain('io.modelcontextprotocol/interceptors');
        const [allow, deny] = await Promise.all([
          client.request({ method: 'interceptor/executeChain', params: chain('echo') }, z.looseObject({})) as Promise<Any>,
          client.request({ method: 'interceptor/executeChain', params: chain('dangerous_tool') }, z.looseObject({})) as Promise<Any>,
        ]);
        expect(entryOf(allow)).toMatchObject({ decision: { effect: 'allow' }, protocolVersion: V26, clientInfo: { name, version: '2.4.0-workerd' } });
        expect(entryOf(deny)).toMatchObject({ decision: { effect: 'deny' }, protocolVersion: V26, clientInfo: { name } });
      } finally {
        await client.close();
      }
    }
    const old = await rpc('interceptor/executeChain', chain('echo'));
    expect(old.status).toBe(200);
    expect(old.json.result.resultType).toBeUndefined();
    const e = entryOf(old.json.result);
    expect(e.clientInfo).toBeUndefined();
  });

  it('server/discover and interceptors/list: resultType, ttlMs, cacheScope "private"', async () => {
    const d = await post26('server/discover', {});
    expect(d.json.result).toMatchObject({ supportedVersions: [V26], resultType: 'complete', cacheScope: 'private' });
    const l = await post26('interceptors/list', {});
    expect(l.json.result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
    expect(l.json.result.interceptors.map((i: Any) => i.name)).toContain('pii');
  });

  it('an Mcp-Method that disagrees with the body is -32020 and a signed deny; an unsupported version is -32022 with the served list', async () => {
    const before = (await call('GET', '/v1/entries?limit=1')).json.size as number;
    const r = await post26('interceptor/executeChain', chain('echo'), { 'mcp-method': 'interceptors/list' });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ code: -32020, data: { code: 'ERR_HEADER_MISMATCH', header: 'Mcp-Method', 'io.vouch/seq': before } });
    const e = (await call('GET', `/v1/entries/${before}`)).json.entry;
    expect(e).toMatchObject({ decision: { effect: 'deny' }, ran: [], protocolVersion: V26, clientInfo: { name: 'raw-client', version: '0.0.1' } });
    const u = await post26('interceptor/executeChain', chain('echo'), { 'mcp-protocol-version': '2099-01-01' }, { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' });
    expect(u.status).toBe(400);
    expect(u.json.error).toMatchObject({ code: -32022, data: { requested: '2099-01-01', supported: [...SERVED_PROTOCOL_VERSIONS] } });
    expect((await call('GET', '/v1/entries?limit=1')).json.size).toBe(before + 1);
  });
});
