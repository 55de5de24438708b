// The gateway hands over its evidence (issue 37): every allowed answer, both eras, stdio and HTTP,
// names its decisions' seqs and where their receipts are (the listener's GET /v1/entries/SEQ, or
// over stdio `vouch receipt SEQ`); the receipt fetched there verifies with the project's verifier
// and `vouch verify`; a caller may ask for the signed receipts attached. The real gateway in front
// of server-everything (over stdio), with the SDK v1 client (2025) and the SDK v2 client pinned to
// 2026-07-28. Attackers: a hostile upstream planting io.vouch/ keys, a hostile caller (no token,
// no audit role, another tenant, a foreign page, a rebinding Host, the write routes, a bad attach).
import { request as httpRequest } from 'node:http';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ModernClient, InMemoryTransport as ModernMemory, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { main } from '../../src/cli/main.js';
import { decodeEntry } from '../../src/log/index.js';
import { listenGateway, type Listening } from '../../src/mcp/gateway-http.js';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import { testIssuer } from '../http/_server.js';
import { closeReplayed, entriesOf, everythingCmd, executionOf, makeClient, makeWorkspace, payloadOf, textOf, verifyWithJwks, type Workspace } from './_gateway.js';

type Rec = Record<string, unknown>;
const PLANTING = fileURLToPath(new URL('./fixtures/planting-server-2025.mjs', import.meta.url));

/** `vouch ARGS` in-process: exit code and stdout. */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Polls `f` until it returns a value (a receipt is served once a signed checkpoint covers its entry). */
async function eventually<T>(f: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never: ${what}`);
}

/** GET a receipt URL the answer named, until it holds the signed receipt. */
async function fetchReceipt(url: string, headers: Record<string, string> = {}): Promise<Rec> {
  return eventually(async () => {
    const res = await fetch(url, { headers });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { receipt: Rec | null; seq: number };
    return body.receipt ?? undefined;
  }, `a signed receipt at ${url}`);
}

/** `vouch verify FILE --key JWKS` on a receipt, as a user would run it. */
async function cliVerify(ws: Workspace, rt: GatewayRuntime, receipt: unknown): Promise<number> {
  const file = join(ws.dir, `receipt-${Math.random().toString(36).slice(2)}.json`);
  const keys = join(ws.dir, 'keys.jwks.json');
  writeFileSync(file, JSON.stringify(receipt));
  writeFileSync(keys, JSON.stringify(rt.dataDir.jwks()));
  return (await cli(['verify', file, '--key', keys])).code;
}

function legacyClient(): Client {
  return new Client({ name: 'evidence-2025', version: '1.0.0' });
}
function modernClient(): ModernClient {
  return new ModernClient({ name: 'evidence-2026', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
}

const meta = (r: unknown): Rec => ((r as { _meta?: Rec })._meta ?? {}) as Rec;

let ws: Workspace;
let rt: GatewayRuntime;

beforeAll(async () => {
  ws = makeWorkspace('vouch-gw-evidence-');
  // The CLI's default: forward once the entry is durable, so most answers go before their signature.
  rt = await openGateway({ data: ws.data, config: ws.config, upstream: { command: everythingCmd(), stderr: 'ignore' }, wait: 'durable', thread: false });
});
afterAll(async () => {
  await closeReplayed(rt);
});

describe('gateway over stdio (no listener): the answer names the command that prints its receipt', () => {
  for (const era of ['2025', '2026-07-28'] as const) {
    it(`${era}: io.vouch/seq and io.vouch/receipt-command; the command's receipt verifies`, async () => {
      let client: Client | ModernClient;
      if (era === '2025') {
        const [down, up] = InMemoryTransport.createLinkedPair();
        await rt.start(up);
        client = legacyClient();
        await client.connect(down);
      } else {
        const [down, up] = ModernMemory.createLinkedPair();
        await rt.start(up as never);
        client = modernClient();
        await client.connect(down);
        expect(client.getProtocolEra()).toBe('modern');
      }
      try {
        const r = await client.callTool({ name: 'echo', arguments: { message: `stdio ${era}` } });
        expect(textOf(r)).toBe(`Echo: stdio ${era}`);
        const m = meta(r);
        const seq = m['io.vouch/seq'] as number;
        expect(Number.isSafeInteger(seq)).toBe(true);
        expect(m['io.vouch/response-seq']).toBeGreaterThan(seq);
        expect(m['io.vouch/receipt-url']).toBeUndefined();
        expect(m['io.vouch/receipt-command']).toBe(`vouch receipt ${seq} --data ${ws.data} --tenant default`);
        // Run what the answer names (read-only, beside the running gateway), until the entry is signed.
        const argv = (m['io.vouch/receipt-command'] as string).split(' ').slice(1);
        const printed = await eventually(async () => {
          const o = await cli(argv);
          return o.code === 0 ? JSON.parse(o.out) : (expect(o.err).toContain('no signed checkpoint covers it yet'), undefined);
        }, 'vouch receipt');
        const report = verifyWithJwks(rt, printed);
        expect(report.ok).toBe(true);
        expect(report.entry).toMatchObject({ seq, event: 'tools/call', phase: 'request' });
        expect(await cliVerify(ws, rt, printed)).toBe(0);
        const response = (m['io.vouch/response-receipt-command'] as string).split(' ').slice(1);
        expect(response[1]).toBe(String(m['io.vouch/response-seq']));
      } finally {
        await client.close();
      }
    });
  }

  it('`vouch receipt` refuses what is not a seq, and an entry that does not exist, with a code', async () => {
    expect((await cli(['receipt', 'x', '--data', ws.data])).code).toBe(2);
    const missing = await cli(['receipt', '999999', '--data', ws.data]);
    expect(missing.code).toBe(3);
    expect(missing.err).toContain('no entry 999999');
  });
});

describe('gateway --listen: the answer names its receipt URL, and the listener serves it', () => {
  let listening: Listening;
  let base: string;
  beforeAll(async () => {
    listening = await listenGateway(rt, { port: 0 });
    base = listening.url.slice(0, -'/mcp'.length);
  });
  afterAll(async () => {
    await listening?.close();
  });

  async function connect(era: '2025' | '2026-07-28'): Promise<Client | ModernClient> {
    if (era === '2025') {
      const c = legacyClient();
      await c.connect(new StreamableHTTPClientTransport(new URL(listening.url)));
      return c;
    }
    const c = modernClient();
    await c.connect(new ModernHttp(new URL(listening.url)) as never);
    expect(c.getProtocolEra()).toBe('modern');
    return c;
  }

  for (const era of ['2025', '2026-07-28'] as const) {
    it(`${era}: GET the URL io.vouch/receipt-url names; the receipt verifies (project verifier and vouch verify)`, async () => {
      const client = await connect(era);
      try {
        const r = await client.callTool({ name: 'echo', arguments: { message: `http ${era}` } });
        const m = meta(r);
        const seq = m['io.vouch/seq'] as number;
        expect(m['io.vouch/receipt-url']).toBe(`${base}/v1/entries/${seq}`);
        expect(m['io.vouch/response-receipt-url']).toBe(`${base}/v1/entries/${m['io.vouch/response-seq']}`);
        expect(m['io.vouch/receipt-command']).toBeUndefined();
        for (const url of [m['io.vouch/receipt-url'], m['io.vouch/response-receipt-url']] as string[]) {
          const receipt = await fetchReceipt(url);
          expect(verifyWithJwks(rt, receipt).ok).toBe(true);
          expect(await cliVerify(ws, rt, receipt)).toBe(0);
        }
        expect(verifyWithJwks(rt, await fetchReceipt(`${base}/v1/entries/${seq}`)).entry).toMatchObject({ seq, event: 'tools/call', phase: 'request' });
      } finally {
        await client.close();
      }
    });

    it(`${era}: _meta "io.vouch/receipt": "attach" gets both signed receipts in the answer; the upstream never sees the key`, async () => {
      const client = await connect(era);
      try {
        const r = await client.callTool({ name: 'echo', arguments: { message: `attach ${era}` }, _meta: { 'io.vouch/receipt': 'attach' } });
        const m = meta(r);
        const seq = m['io.vouch/seq'] as number;
        const attached = m['io.vouch/receipt'] as Rec;
        const report = verifyWithJwks(rt, attached);
        expect(report.ok).toBe(true);
        expect(report.entry).toMatchObject({ seq });
        expect(verifyWithJwks(rt, m['io.vouch/response-receipt']).entry).toMatchObject({ seq: m['io.vouch/response-seq'], phase: 'response' });
        expect(m['io.vouch/durable']).toBeUndefined();
        // The same entry, proof format and key as the URL serves; `vouch verify` takes it as is.
        const served = await fetchReceipt(m['io.vouch/receipt-url'] as string);
        expect({ entry: attached.entry, index: attached.index, leafHash: attached.leafHash }).toEqual({ entry: served.entry, index: served.index, leafHash: served.leafHash });
        expect(await cliVerify(ws, rt, attached)).toBe(0);
        // Addressed to the gateway: what went on the wire upstream carries no io.vouch/receipt.
        const executed = await payloadOf(rt, ((await executionOf(rt, seq)).executed as { digest: string }).digest);
        expect(JSON.stringify(executed)).not.toContain('io.vouch/receipt');
      } finally {
        await client.close();
      }
    });

    it(`${era}: hostile caller: an attach value other than "attach" is refused with -32602 before anything is decided`, async () => {
      const client = await connect(era);
      try {
        const before = await rt.log.size();
        const e = await client.callTool({ name: 'echo', arguments: { message: `forged ${era}` }, _meta: { 'io.vouch/receipt': { v: 1, entry: 'forged' } } }).catch((x: unknown) => x);
        expect(e).toMatchObject({ code: -32602 });
        expect(String((e as Error).message)).toContain('takes "attach"');
        // No decision of that call was recorded, so nothing was forwarded either.
        const since = (await entriesOf(rt)).filter((x) => x.seq >= before && x.event === 'tools/call');
        expect(since).toEqual([]);
      } finally {
        await client.close();
      }
    });
  }

  it('serves the read-only audit routes vouch serve serves: checkpoint, proofs, key history, tiles, the console (with its CSP)', async () => {
    const cp = (await (await fetch(`${base}/v1/checkpoint`)).json()) as { origin: string; size: number };
    expect(cp.origin).toBe(rt.log.origin);
    const size = await eventually(async () => ((await (await fetch(`${base}/v1/checkpoint`)).json()) as { size: number }).size || undefined, 'a checkpoint');
    const proof = await fetch(`${base}/v1/proofs/inclusion?seq=0&size=${size}`);
    expect(proof.status).toBe(200);
    expect(((await (await fetch(`${base}/v1/keys`)).json()) as { keys: unknown[] }).keys.length).toBeGreaterThan(0);
    expect((await fetch(`${base}/tlog/default/checkpoint`)).status).toBe(200);
    const page = await fetch(`${base}/audit/`);
    expect([200, 404]).toContain(page.status); // 404 where web/dist is not built: the route is the console's either way
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const list = await fetch(`${base}/v1/entries?order=newest&limit=2`);
    expect(((await list.json()) as { rows: unknown[] }).rows.length).toBe(2);
  });

  it('hostile caller: the write routes of vouch serve are not served (erase, policy, keys, authorize): the log is unchanged', async () => {
    const before = await rt.log.size();
    const json = { 'content-type': 'application/json' };
    const tries: [string, string, string?][] = [
      ['DELETE', `/v1/payloads/sha256:${'0'.repeat(64)}`],
      ['POST', '/v1/policy', JSON.stringify({ config: 'version: 1' })],
      ['POST', '/v1/keys/rotate', '{}'],
      ['POST', '/v1/keys/revoke', JSON.stringify({ keyId: '00000000', after: 0 })],
      ['POST', '/v1/authorize', JSON.stringify({ event: 'tools/call', phase: 'request', payload: {} })],
    ];
    for (const [method, path, body] of tries) {
      const res = await fetch(`${base}${path}`, { method, headers: json, body });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect(await rt.log.size()).toBe(before);
  });

  it('hostile page: a foreign Origin is refused, and so is a Host that does not name the gateway (DNS rebinding)', async () => {
    const foreign = await fetch(`${base}/v1/entries/0`, { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    const rebound = await new Promise<number>((resolve, reject) => {
      const u = new URL(`${base}/v1/entries/0`);
      httpRequest({ host: u.hostname, port: u.port, path: u.pathname, headers: { host: `evil.example:${u.port}` } }, (res) => (res.resume(), resolve(res.statusCode ?? 0))).on('error', reject).end();
    });
    expect(rebound).toBe(403);
  });
});

describe('gateway --listen --auth: receipts behind the audit role, attach for everyone', () => {
  let listening: Listening;
  let base: string;
  let token: Awaited<ReturnType<typeof testIssuer>>['token'];
  let rt2: GatewayRuntime;
  beforeAll(async () => {
    const ws2 = makeWorkspace('vouch-gw-evidence-auth-');
    rt2 = await openGateway({ data: ws2.data, config: ws2.config, upstream: { command: everythingCmd(), stderr: 'ignore' }, wait: 'durable', thread: false });
    const issuer = await testIssuer();
    token = issuer.token;
    listening = await listenGateway(rt2, { port: 0, auth: { ...issuer.auth, audience: undefined, scopes: { 'mcp:tools': ['tool-user'] } } });
    base = listening.url.slice(0, -'/mcp'.length);
  });
  afterAll(async () => {
    await listening?.close();
    await closeReplayed(rt2);
  });

  const bearer = async (claims: Rec) => ({ authorization: `Bearer ${await token(claims, { aud: listening.url })}` });

  async function toolUser(): Promise<Client> {
    const headers = await bearer({ sub: 'agent-a', tenant: 'default', scope: 'mcp:tools' });
    const c = legacyClient();
    await c.connect(new StreamableHTTPClientTransport(new URL(listening.url), { requestInit: { headers } }));
    return c;
  }

  it('a tool-user token cannot read the receipt URL (403), but gets its own receipts attached when it asks', async () => {
    const client = await toolUser();
    try {
      const r = await client.callTool({ name: 'echo', arguments: { message: 'mine' }, _meta: { 'io.vouch/receipt': 'attach' } });
      const m = meta(r);
      expect(verifyWithJwks(rt2, m['io.vouch/receipt']).entry).toMatchObject({ seq: m['io.vouch/seq'], principal: 'agent-a' });
      expect(m['io.vouch/receipt-url']).toBe(`${base}/v1/entries/${m['io.vouch/seq']}`);
      const denied = await fetch(m['io.vouch/receipt-url'] as string, { headers: await bearer({ sub: 'agent-a', tenant: 'default', scope: 'mcp:tools' }) });
      expect(denied.status).toBe(403);
      expect(((await denied.json()) as { error: { code: string } }).error.code).toBe('ERR_FORBIDDEN');
      // With the audit role (as vouch serve asks), the same URL answers the receipt.
      const receipt = await fetchReceipt(m['io.vouch/receipt-url'] as string, await bearer({ sub: 'auditor', tenant: 'default', roles: ['audit'] }));
      expect(verifyWithJwks(rt2, receipt).ok).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('no token: 401 with the challenge; an audit token of another tenant: 403', async () => {
    const none = await fetch(`${base}/v1/entries/0`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('resource_metadata');
    const other = await fetch(`${base}/v1/entries/0`, { headers: await bearer({ sub: 'auditor', tenant: 'acme', roles: ['audit'] }) });
    expect(other.status).toBe(403);
    expect(((await other.json()) as { error: { message: string } }).error.message).toContain('this gateway serves default');
  });
});

describe('gateway --attach-receipts, and a hostile upstream', () => {
  let rt3: GatewayRuntime;
  beforeAll(async () => {
    const ws3 = makeWorkspace('vouch-gw-evidence-plant-');
    appendFileSync(join(ws3.dir, 'gateway-policy.cedar'), '\n@id("planting-tools")\npermit(principal, action == Action::"tools/call", resource) when { context.server == "planting" };\n@id("planting-asks")\npermit(principal, action == Action::"elicitation/create", resource == Elicitation::"planting");\n');
    rt3 = await openGateway({ data: ws3.data, config: ws3.config, upstream: { command: `node '${PLANTING}'`, stderr: 'ignore' }, serverName: 'planting', wait: 'durable', attachReceipts: true, thread: false });
  });
  afterAll(async () => {
    await closeReplayed(rt3);
  });

  for (const era of ['2025', '2026-07-28'] as const) {
    it(`${era}: every io.vouch/ key the upstream made up is dropped; the answer carries the gateway's own, receipts attached unasked`, async () => {
      let client: Client | ModernClient;
      if (era === '2025') {
        const [down, up] = InMemoryTransport.createLinkedPair();
        await rt3.start(up);
        client = legacyClient();
        await client.connect(down);
      } else {
        const [down, up] = ModernMemory.createLinkedPair();
        await rt3.start(up as never);
        client = modernClient();
        await client.connect(down);
      }
      try {
        const r = await client.callTool({ name: 'plant', arguments: {} });
        expect(textOf(r)).toBe('planted');
        const m = meta(r);
        expect(m['vendor/trace']).toBe('kept');
        expect(JSON.stringify(m)).not.toContain('attacker.example');
        expect(m['io.vouch/durable']).toBeUndefined();
        const seq = m['io.vouch/seq'] as number;
        expect(seq).toBeGreaterThan(1);
        // --attach-receipts: both signed receipts, unasked, each for this call's decisions.
        expect(verifyWithJwks(rt3, m['io.vouch/receipt']).entry).toMatchObject({ seq, event: 'tools/call', phase: 'request' });
        expect(verifyWithJwks(rt3, m['io.vouch/response-receipt']).entry).toMatchObject({ seq: m['io.vouch/response-seq'], phase: 'response' });
        expect(m['io.vouch/receipt-command']).toMatch(new RegExp(`^vouch receipt ${seq} --data \\S+ --tenant default$`));
        expect(decodeEntry(Buffer.from((m['io.vouch/receipt'] as { entry: string }).entry, 'base64')).seq).toBe(seq);
      } finally {
        await client.close();
      }
    });
  }

  it('2025: nor in what the upstream sends on its own: a log message and a form reach the client with none of its io.vouch/ keys', async () => {
    const [down, up] = InMemoryTransport.createLinkedPair();
    await rt3.start(up);
    const { client, calls } = makeClient();
    const logged: Rec[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logged.push(n.params as Rec));
    calls.answer = () => ({ action: 'accept', content: { colour: 'blue' } });
    await client.connect(down);
    try {
      const r = await client.callTool({ name: 'plant-ask', arguments: {} });
      expect(textOf(r)).toBe('asked: accept');
      expect(calls.elicitation).toHaveLength(1);
      expect(logged).toHaveLength(1);
      for (const sent of [calls.elicitation[0] as Rec, logged[0]]) {
        expect(meta(sent)['vendor/trace']).toBe('kept');
        expect(Object.keys(meta(sent)).filter((k) => k.startsWith('io.vouch/'))).toEqual([]);
      }
    } finally {
      await client.close();
    }
  });
});
