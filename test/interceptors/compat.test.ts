// Compat skipping (SEP-1763 seed `compat: {minProtocol?, maxProtocol?}`): an interceptor whose
// range excludes the negotiated protocol version is skipped with a recorded reason, in the chain,
// in decide()'s entry (and replay skips the same way), and for remote interceptors listed by a real
// SDK interceptor server, whose version/compat/configSchema pass through to interceptors/list.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { parseDecisionFacts } from '../../src/audit/_decision-facts.js';
import { rerunDecision } from '../../src/audit/_rerun.js';
import { canonicalText, digestJson, fromBase64 } from '../../src/canonical/index.js';
import { decide, type ActivePolicy } from '../../src/decide/index.js';
import { executeChain } from '../../src/interceptors/chain.js';
import { compatSkipReason, listInterceptors } from '../../src/interceptors/list.js';
import { connectRemoteInterceptors } from '../../src/interceptors/remote.js';
import type { Interceptor, Json } from '../../src/interceptors/types.js';
import { Appender, decodeEntry, type Entry } from '../../src/log/index.js';
import { openSqliteStore } from '../../src/store/node.js';
import { testKeys } from '../helpers/keys.js';
import { testServer } from '../http/_server.js';
import { entriesOf, everythingCmd, startKit } from '../mcp/_gateway.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { allow, CTX, mutator, validator } from './chain-kit.js';

const CALL = { event: 'tools/call', phase: 'request' as const, payload: { name: 'echo', arguments: { text: 'hi' } } };
const upper = (compat?: Json) =>
  mutator('old-upper', (p) => {
    const o = p as { arguments: { text: string } };
    return { modified: true, payload: { ...o, arguments: { text: o.arguments.text.toUpperCase() } } };
  }, compat === undefined ? {} : { compat });

describe('compatSkipReason', () => {
  const d = upper({ minProtocol: '2024-11-05', maxProtocol: '2025-03-26' }).descriptor;
  it('admits versions inside the range, bounds included', () => {
    for (const v of ['2024-11-05', '2025-01-01', '2025-03-26']) expect(compatSkipReason(d, v)).toBeUndefined();
  });
  it('names the bound a version falls outside of', () => {
    expect(compatSkipReason(d, '2024-10-07')).toBe('protocol 2024-10-07 is before minProtocol 2024-11-05');
    expect(compatSkipReason(d, '2025-06-18')).toBe('protocol 2025-06-18 is after maxProtocol 2025-03-26');
  });
  it('skips nothing when the version is unknown or not a protocol version, or there is no range', () => {
    expect(compatSkipReason(d, undefined)).toBeUndefined();
    expect(compatSkipReason(d, 'DRAFT')).toBeUndefined();
    expect(compatSkipReason(upper().descriptor, '1999-01-01')).toBeUndefined();
  });
});

describe('executeChain compat skipping', () => {
  it('skips an interceptor the negotiated version is outside of, and records why as its state', async () => {
    const ics = [upper({ maxProtocol: '2025-03-26' }), validator('v', allow)];
    const run = await executeChain(ics, CALL, { ...CTX, protocolVersion: '2025-06-18' });
    expect(run.result.status).toBe('success');
    expect(run.result.results.map((r) => r.interceptor)).toEqual(['v']);
    expect(run.result.finalPayload).toEqual(CALL.payload);
    expect(run.state['old-upper']).toEqual({ skipped: 'compat', reason: 'protocol 2025-06-18 is after maxProtocol 2025-03-26' });
  });

  it('runs it inside the range, and when the version is unknown', async () => {
    const ics = [upper({ maxProtocol: '2025-03-26' })];
    for (const ctx of [{ ...CTX, protocolVersion: '2025-03-26' }, CTX]) {
      const run = await executeChain(ics, CALL, ctx);
      expect(run.result.finalPayload).toEqual({ name: 'echo', arguments: { text: 'HI' } });
      expect(run.state).toEqual({});
    }
  });
});

describe('decide() records the protocol version and the skip; replay matches', () => {
  const keys = testKeys();
  it('entry holds protocolVersion and the skip reason; ran omits the skipped one; rerun reproduces it', async () => {
    const store = openSqliteStore(join(mkdtempSync(join(tmpdir(), 'vouch-compat-')), 'log.db'));
    const log = Appender.open({ origin: 'test.vouch/compat', storage: store, signers: keys.signers });
    const authz: Interceptor = Object.assign(validator('authz', allow), { authorizes: true });
    const policy: ActivePolicy = { interceptors: [upper({ maxProtocol: '2025-03-26' }), authz], chainDigest: digestJson({ c: 1 }), policyDigest: digestJson({ p: 1 }), engines: { vouch: 'test' }, options: {} };
    const out = await decide({ ...CALL, context: { ...CTX, protocolVersion: '2025-06-18' } }, { policy, log });
    expect(out.effect).toBe('allow');
    expect(out.finalPayload).toEqual(CALL.payload);
    const entry = decodeEntry(fromBase64(out.receipt.entry)) as unknown as Entry & Record<string, any>;
    expect(entry.protocolVersion).toBe('2025-06-18');
    expect(entry.ran).toEqual(['authz']);
    expect(entry.state['old-upper']).toEqual({ skipped: 'compat', reason: 'protocol 2025-06-18 is after maxProtocol 2025-03-26' });

    const facts = parseDecisionFacts(entry);
    expect(facts.context.protocolVersion).toBe('2025-06-18');
    const again = await rerunDecision(facts, CALL.payload, policy, false);
    expect(again.ran).toEqual(['authz']);
    expect(canonicalText(again.record)).toBe(canonicalText(entry.decision as Json));
    await log.close();
  });

  it('a skipped authorization interceptor does not cover the call: default deny (fail closed)', async () => {
    const store = openSqliteStore(join(mkdtempSync(join(tmpdir(), 'vouch-compat-')), 'log.db'));
    const log = Appender.open({ origin: 'test.vouch/compat', storage: store, signers: keys.signers });
    const authz: Interceptor = Object.assign(validator('authz', allow, { compat: { minProtocol: '2025-06-18' } }), { authorizes: true });
    const policy: ActivePolicy = { interceptors: [authz], chainDigest: digestJson({ c: 1 }), policyDigest: digestJson({ p: 1 }), engines: { vouch: 'test' }, options: {} };
    const old = await decide({ ...CALL, context: { ...CTX, protocolVersion: '2025-03-26' } }, { policy, log });
    expect(old.effect).toBe('deny');
    expect(old.chain.abortedAt?.reason).toBe('no authorization interceptor covers tools/call request');
    const current = await decide({ ...CALL, context: { ...CTX, protocolVersion: '2025-06-18' } }, { policy, log });
    expect(current.effect).toBe('allow');
    await log.close();
  });
});

// ---- remote: a real SDK interceptor server listing the seed shape ----
const ListRequest = z.object({ method: z.literal('interceptors/list'), params: z.looseObject({ cursor: z.string().optional() }).optional() });
const InvokeRequest = z.object({ method: z.literal('interceptor/invoke'), params: z.looseObject({ name: z.string(), phase: z.string() }) });
const SEED_LIST = [
  {
    name: 'parameter-validator',
    version: '2.0.1',
    description: 'Validates tool call parameters',
    events: ['tools/call'],
    type: 'validation',
    phase: 'request',
    compat: { minProtocol: '2024-11-05', maxProtocol: '2025-03-26' },
    configSchema: { type: 'object', properties: { strictMode: { type: 'boolean' } } },
  },
];

async function startSeedServer(list: unknown[] = SEED_LIST) {
  let invokes = 0;
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const http: HttpServer = createServer(async (req, res) => {
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? transports.get(id) : undefined;
    if (!transport) {
      const server = new Server({ name: 'seed-guard', version: '1.0.0' }, { capabilities: {} });
      server.setRequestHandler(ListRequest, () => ({ interceptors: list }));
      server.setRequestHandler(InvokeRequest, (r) => {
        invokes += 1;
        return { interceptor: r.params.name, type: 'validation', phase: r.params.phase, valid: false, severity: 'error', messages: [{ message: 'strict', severity: 'error' }] };
      });
      const t: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => void transports.set(sid, t) });
      await server.connect(t);
      transport = t;
    }
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    invokes: () => invokes,
    stop: async () => {
      for (const t of transports.values()) await t.close();
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    },
  };
}

describe('remote interceptors: declarations pass through, compat skips them', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it('lists version, compat and configSchema as the remote declared them; skips it (no call) outside its range', async () => {
    const srv = await startSeedServer();
    cleanup.push(srv.stop);
    const remote = await connectRemoteInterceptors({ url: srv.url });
    cleanup.push(remote.close);
    expect(listInterceptors(remote.interceptors).interceptors).toEqual([
      {
        name: 'parameter-validator',
        version: '2.0.1',
        description: 'Validates tool call parameters',
        type: 'validation',
        hooks: [{ events: ['tools/call'], phase: 'request' }],
        compat: { minProtocol: '2024-11-05', maxProtocol: '2025-03-26' },
        configSchema: { type: 'object', properties: { strictMode: { type: 'boolean' } } },
      },
    ]);
    const chain = [...remote.interceptors, validator('local', allow)];
    const skipped = await executeChain(chain, CALL, { ...CTX, protocolVersion: '2025-06-18' });
    expect(skipped.result.status).toBe('success');
    expect(skipped.state['parameter-validator']).toEqual({ skipped: 'compat', reason: 'protocol 2025-06-18 is after maxProtocol 2025-03-26' });
    expect(srv.invokes()).toBe(0);
    const inRange = await executeChain(chain, CALL, { ...CTX, protocolVersion: '2025-03-26' });
    expect(inRange.result.status).toBe('validation_failed');
    expect(srv.invokes()).toBe(1);
  });

  it('refuses a server whose declaration has a malformed compat or configSchema, naming the field', async () => {
    const srv = await startSeedServer([{ ...SEED_LIST[0], compat: { minProtocol: 'latest' }, configSchema: 'any' }]);
    cleanup.push(srv.stop);
    const err = await connectRemoteInterceptors({ url: srv.url }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'ERR_INPUT' });
    expect((err as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(['/interceptors/0/compat/minProtocol', '/interceptors/0/configSchema']);
  });
});

describe('POST /mcp: the MCP-Protocol-Version header is the decision\'s protocol version', () => {
  it('records it in the entry on both ways in (shared server and SDK transport)', async () => {
    const server = await testServer();
    try {
      const body = { jsonrpc: '2.0', id: 1, method: 'interceptor/executeChain', params: { ...CALL, context: { sessionId: 's1' } } };
      for (const contentType of ['application/json', 'application/json; charset=utf-8']) {
        const headers = { 'content-type': contentType, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' };
        const res = await fetch(`${server.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });
        const json = (await res.json()) as { result: { _meta: Record<string, { entry: string }> } };
        const entry = decodeEntry(fromBase64(json.result._meta['io.vouch/receipt'].entry)) as Record<string, unknown>;
        expect(entry.protocolVersion, contentType).toBe('2025-03-26');
      }
      const none = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(body) });
      const json = (await none.json()) as { result: { _meta: Record<string, { entry: string }> } };
      expect(decodeEntry(fromBase64(json.result._meta['io.vouch/receipt'].entry))).not.toHaveProperty('protocolVersion');
    } finally {
      await server.close();
    }
  });
});

describe('gateway: the version negotiated with the upstream is every decision\'s protocol version', () => {
  it('records it on the initialize answer and on relayed calls', async () => {
    const kit = await startKit(() => everythingCmd());
    try {
      await kit.client.listTools();
      const decisions = (await entriesOf(kit.rt)).filter((e) => e.type === 'decision') as unknown as Record<string, unknown>[];
      expect(decisions.map((e) => e.event)).toEqual(expect.arrayContaining(['initialize', 'tools/list']));
      for (const e of decisions) expect(e.protocolVersion, String(e.event)).toBe(LATEST_PROTOCOL_VERSION);
    } finally {
      await kit.close();
    }
  }, 60_000);
});
