// POST /mcp with real MCP peers of both eras side by side (issue 36): the SDK v2 client pinned to
// 2026-07-28 and in `auto` mode (server/discover, per-request _meta, no initialize), and the v1
// SDK client on 2025-11-25 (initialize). Same interceptor server, same decisions, and each
// decision's entry records the era it came over and, on 2026, the client as it claims to be.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromBase64, utf8 } from '../../src/canonical/index.js';
import { INTERCEPTORS_EXTENSION, RECEIPT_META } from '../../src/http/mcp-server.js';
import { testIssuer, testServer } from './_server.js';

const anyResult = z.looseObject({});
type Any = Record<string, any>;
const entryOf = (r: Any): Any => JSON.parse(utf8.decode(fromBase64(r._meta[RECEIPT_META].entry)));
const chain = (name: string, text = 'hi') => ({ event: 'tools/call', phase: 'request', payload: { name, arguments: { text } }, context: { sessionId: 's-peers' } });

interface Peer {
  label: string;
  era: string;
  clientInfo?: { name: string; version: string };
  call(method: string, params: Any): Promise<Any>;
  close(): Promise<void>;
}

async function v2Peer(url: string, mode: 'auto' | { pin: string } | 'legacy', name: string, headers?: Record<string, string>): Promise<Peer & { client: ClientV2 }> {
  const client = new ClientV2({ name, version: '2.4.0-test' }, { versionNegotiation: { mode } });
  await client.connect(new TransportV2(new URL(url), headers ? { requestInit: { headers } } : undefined));
  return {
    label: `SDK v2 client (${JSON.stringify(mode)})`,
    era: client.getNegotiatedProtocolVersion()!,
    clientInfo: { name, version: '2.4.0-test' },
    client,
    call: (method, params) => client.request({ method, params }, anyResult) as Promise<Any>,
    close: () => client.close(),
  };
}

async function v1Peer(url: string, headers?: Record<string, string>): Promise<Peer> {
  const client = new ClientV1({ name: 'v1-client', version: '1.32.2-test' });
  const transport = new TransportV1(new URL(url), headers ? { requestInit: { headers } } : undefined);
  await client.connect(transport);
  return {
    label: 'SDK v1 client (2025-11-25)',
    era: transport.protocolVersion!,
    call: (method, params) => client.request({ method, params }, anyResult) as Promise<Any>,
    close: () => client.close(),
  };
}

describe('POST /mcp: 2026-07-28 and 2025-11-25 clients side by side', () => {
  let server: Awaited<ReturnType<typeof testServer>>;
  let url: string;
  let peers: Peer[];
  beforeAll(async () => {
    server = await testServer();
    url = `${server.url}/mcp`;
    peers = [await v2Peer(url, { pin: '2026-07-28' }, 'v2-pinned'), await v2Peer(url, 'auto', 'v2-auto'), await v1Peer(url), await v2Peer(url, 'legacy', 'v2-legacy')];
  });
  afterAll(async () => {
    for (const p of peers ?? []) await p.close().catch(() => undefined);
    await server.close();
  });

  it('the v2 client negotiates 2026-07-28 through server/discover, which advertises the interceptors extension as initialize does', async () => {
    const [pinned, auto] = peers as (Peer & { client: ClientV2 })[];
    expect(pinned.era).toBe('2026-07-28');
    expect(auto.era).toBe('2026-07-28');
    const legacy = new ClientV1({ name: 'probe', version: '1' });
    await legacy.connect(new TransportV1(new URL(url)));
    const viaInitialize = legacy.getServerCapabilities()?.extensions as Any;
    await legacy.close();
    expect(viaInitialize[INTERCEPTORS_EXTENSION].supportedEvents).toContain('tools/call');
    for (const p of [pinned, auto]) expect(p.client.getServerCapabilities()?.extensions).toEqual(viaInitialize);
    expect(pinned.client.getServerVersion()).toMatchObject({ name: 'vouch' });
  });

  it('the 2025 peers stay on their era', () => {
    expect(peers[2].era).toBe('2025-11-25');
    expect(peers[3].era).toBe('2025-11-25');
  });

  it('interceptors/list and interceptor/invoke answer every era alike', async () => {
    const lists = await Promise.all(peers.map((p) => p.call('interceptors/list', { event: 'tools/call' })));
    const strip = ({ _meta: _m, ttlMs: _t, cacheScope: _c, ...rest }: Any) => rest;
    for (const l of lists) expect(strip(l)).toEqual(strip(lists[2]));
    expect(lists[2].interceptors.map((i: Any) => i.name)).toContain('pii');
    const invoke = { name: 'pii', event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'call 415 555 0199' } } };
    const invoked = await Promise.all(peers.map((p) => p.call('interceptor/invoke', invoke)));
    const stable = ({ _meta: _m, durationMs: _d, ...rest }: Any) => rest;
    for (const r of invoked) expect(stable(r)).toEqual(stable(invoked[2]));
    expect(JSON.stringify(invoked[0])).toContain('[PHONE_REDACTED]');
  });

  it('executeChain allows and denies the same way on every era, each with its receipt, concurrently', async () => {
    const answers = await Promise.all(peers.flatMap((p) => [p.call('interceptor/executeChain', chain('echo', `from ${p.label}`)), p.call('interceptor/executeChain', chain('dangerous_tool'))]));
    peers.forEach((p, i) => {
      const [allow, deny] = [answers[2 * i], answers[2 * i + 1]];
      expect(allow.status, p.label).toBe('success');
      expect(allow.finalPayload).toEqual({ name: 'echo', arguments: { text: `from ${p.label}` } });
      expect(deny.status, p.label).not.toBe('success');
      for (const a of [allow, deny]) {
        expect(a._meta[RECEIPT_META]).toMatchObject({ v: 1 });
        const e = entryOf(a);
        // Each entry says which era the decision came over, and (2026) the client as it claims to be.
        expect(e.protocolVersion, p.label).toBe(p.era);
        if (p.era === '2026-07-28') expect(e.clientInfo, p.label).toEqual(p.clientInfo);
        else expect(e.clientInfo, p.label).toBeUndefined();
        expect(e.principal).toBe('local-operator');
      }
      expect(entryOf(allow).decision.effect).toBe('allow');
      expect(entryOf(deny).decision.effect).toBe('deny');
    });
  });
});

describe('POST /mcp 2026-07-28: clientInfo is recorded as claimed, never as identity', () => {
  it('an entry names the token principal; a clientInfo naming someone else changes nothing but clientInfo', async () => {
    const issuer = await testIssuer();
    const server = await testServer({ auth: issuer.auth });
    try {
      const headers = { authorization: `Bearer ${await issuer.token({ sub: 'alice', tenant: 'acme', roles: ['enforce'] })}` };
      const peer = await v2Peer(`${server.url}/mcp`, { pin: '2026-07-28' }, 'local-operator', headers);
      try {
        const e = entryOf(await peer.call('interceptor/executeChain', chain('echo')));
        expect(e).toMatchObject({ principal: 'alice', caller: 'alice', tenant: 'acme', roles: ['enforce'], protocolVersion: '2026-07-28', clientInfo: { name: 'local-operator', version: '2.4.0-test' } });
        // Acting as another principal still needs the delegate role, whatever the client says it is.
        await expect(peer.call('interceptor/executeChain', { ...chain('echo'), context: { onBehalfOf: 'local-operator' } })).rejects.toMatchObject({ code: -32001 });
      } finally {
        await peer.close();
      }
    } finally {
      await server.close();
    }
  });
});
