// Issue 37, "defaults that do not surprise" item 1: the README maps the OAuth scope `mcp:tools` to
// the role `tool-user` and says policy asks for it (`principal in Role::"tool-user"`). The attacker:
// a caller holding a valid token with no scope and no roles (or only `enforce`), who must not get
// the tool access a `mcp:tools` token gets. Real tokens (ES256 against a local JWKS), the bundled
// example config unchanged, the real gateway over real server-everything and the real service.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { listenGateway, type Listening } from '../../src/mcp/gateway-http.js';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import { closeReplayed, everythingCmd, makeClient, textOf } from '../mcp/_gateway.js';
import { post, testIssuer, testServer } from '../http/_server.js';

const ROLE_DENY = /tools-forbid-without-role-tool-user/;
const echo = { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { message: 'hi' } } };

describe('the example policy: tools/call needs the tool-user role (gateway --listen --auth)', () => {
  let rt: GatewayRuntime;
  let listening: Listening;
  let issuer: Awaited<ReturnType<typeof testIssuer>>;
  beforeAll(async () => {
    issuer = await testIssuer();
    const data = join(mkdtempSync(join(tmpdir(), 'vouch-tool-role-')), 'data');
    // No --config and no vouch.yaml in the data directory: the bundled example, as a newcomer runs it.
    rt = await openGateway({ data, upstream: { command: everythingCmd(), stderr: 'ignore' }, thread: false });
    listening = await listenGateway(rt, { port: 0, auth: { ...issuer.auth, scopes: { 'mcp:tools': ['tool-user'] }, tenant: 'default' } });
  }, 60_000);
  afterAll(async () => {
    await listening?.close();
    await closeReplayed(rt);
  });

  const connect = async (claims: Record<string, unknown>) => {
    const client = new Client({ name: 'tool-role', version: '1.0.0' });
    const token = await issuer.token({ sub: 'mallory', ...claims });
    await client.connect(new StreamableHTTPClientTransport(new URL(listening.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    return client;
  };

  it('a token with no scope and no roles is denied the tool, with a reason naming the role', async () => {
    for (const claims of [{}, { scope: 'openid profile' }, { roles: ['enforce', 'audit'] }]) {
      const bare = await connect(claims);
      await expect(bare.callTool({ name: 'echo', arguments: { message: 'hi' } }), JSON.stringify(claims)).rejects.toThrow(ROLE_DENY);
      // Least exposure: it is not shown the tools it may not call either.
      expect((await bare.listTools()).tools.map((t) => t.name)).not.toContain('echo');
      await bare.close();
    }
  }, 60_000);

  it('the scope mcp:tools (mapped to tool-user) or the role itself gives the tool', async () => {
    for (const claims of [{ scope: 'mcp:tools' }, { roles: ['tool-user'] }]) {
      const ok = await connect(claims);
      expect(textOf(await ok.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toBe('Echo: hi');
      await ok.close();
    }
  }, 60_000);
});

describe('the example policy without --auth: the local operator has the tool-user role', () => {
  it('gateway over stdio-style in-process client: local-operator calls echo out of the box', async () => {
    const data = join(mkdtempSync(join(tmpdir(), 'vouch-tool-role-local-')), 'data');
    const rt = await openGateway({ data, upstream: { command: everythingCmd(), stderr: 'ignore' }, thread: false });
    try {
      const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
      const [down, up] = InMemoryTransport.createLinkedPair();
      await rt.start(up);
      const { client } = makeClient();
      await client.connect(down);
      expect(rt.principal).toBe('local-operator');
      expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'local' } }))).toBe('Echo: local');
      // write_file stays an operator's: --role operator (with tool-user) on a local run.
      await client.close();
    } finally {
      await closeReplayed(rt);
    }
  }, 60_000);
});

describe('the example policy on vouch serve: roles for policy come from the token (tool-user included)', () => {
  let s: Awaited<ReturnType<typeof testServer>>;
  let issuer: Awaited<ReturnType<typeof testIssuer>>;
  beforeAll(async () => {
    issuer = await testIssuer();
    s = await testServer({ auth: { ...issuer.auth, scopes: { 'mcp:tools': ['tool-user'], 'mcp:enforce': ['enforce'] } } });
  });
  afterAll(() => s?.close());
  const as = async (claims: Record<string, unknown>) => ({ authorization: `Bearer ${await issuer.token({ sub: 'app', tenant: 'acme', ...claims })}` });

  it('an enforce-only token may ask, and is told the tool needs tool-user', async () => {
    const r = await post(`${s.url}/v1/authorize`, echo, await as({ roles: ['enforce'] }));
    expect(r.status).toBe(200);
    expect(r.json.effect).toBe('deny');
    expect(JSON.stringify(r.json.chain)).toMatch(ROLE_DENY);
  });

  it('the tool-user role, or the scope mapped to it, is allowed', async () => {
    for (const claims of [{ roles: ['enforce', 'tool-user'] }, { scope: 'mcp:enforce mcp:tools' }]) {
      const r = await post(`${s.url}/v1/authorize`, echo, await as(claims));
      expect(r.json.effect, JSON.stringify(claims)).toBe('allow');
    }
  });
});

describe('the example policy on vouch serve without --auth', () => {
  it('the local operator has tool-user: the first session works out of the box', async () => {
    const s = await testServer();
    try {
      const r = await post(`${s.url}/v1/authorize`, echo);
      expect(r.json.effect).toBe('allow');
    } finally {
      await s.close();
    }
  });
});
