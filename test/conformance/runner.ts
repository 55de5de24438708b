// SEP-2624 conformance adapter: runs fixture files of the upstream format (protocol and behavior
// kinds) against a freshly started vouch server over MCP JSON-RPC, one server per fixture, and
// compares JCS bytes after removing the volatile keys. Either era: the v1 SDK client on 2025-11-25
// (initialize), or the SDK v2 client pinned to 2026-07-28 (server/discover, per-request _meta).
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { canonicalText } from '../../src/canonical/index.js';
import { startServer } from '../../src/http/node-server.js';
import { stripVolatile } from '../../src/interceptors/chain.js';

interface FixtureInterceptor {
  name: string;
  type: 'validation' | 'mutation';
  behavior: string;
  events: string[];
  phases: 'request' | 'response' | 'both';
  mode?: 'active' | 'audit' | 'enforce';
  failOpen?: boolean;
}

export interface Fixture {
  id: string;
  kind: 'protocol' | 'behavior';
  interceptors: FixtureInterceptor[];
  steps: Record<string, unknown>[];
  volatile: string[];
}

export interface StepOutcome {
  step: number;
  ok: boolean;
  detail: string;
}

export interface FixtureOutcome {
  id: string;
  ok: boolean;
  steps: StepOutcome[];
}

/** The behaviors the upstream suite binds to an implementation's own interceptors. */
const BUILTIN_BEHAVIORS: Record<string, string> = { 'cross-boundary-guard': 'cross-boundary-guard', 'secretless-redactor': 'secret-redactor' };

/**
 * The fixture's chain as a vouch config. The WG fixtures test the SEP's executeChain selection
 * (`interceptors`) and chains with no authorization interceptor, so this is the one config that
 * marks its interceptors optional and lets uncovered traffic through (recorded as such).
 */
export function configFor(f: Fixture): unknown {
  return {
    version: 1,
    uncovered: [{ events: ['*'], phase: 'both' }],
    interceptors: f.interceptors.map((i) => {
      const phases = i.phases === 'both' ? ['request', 'response'] : [i.phases];
      const decl: Record<string, unknown> = {
        name: i.name,
        use: BUILTIN_BEHAVIORS[i.behavior] ?? `conformance/${i.behavior}`,
        hooks: phases.map((phase) => ({ events: i.events, phase })),
        optional: true,
      };
      if (i.mode === 'audit') decl.mode = 'audit';
      if (i.failOpen) decl.failOpen = true;
      if (!BUILTIN_BEHAVIORS[i.behavior]) decl.config = { type: i.type };
      return decl;
    }),
  };
}

const anyResult = z.looseObject({});

/** The MCP era a run speaks: 2025-11-25 after initialize, or 2026-07-28 with the per-request envelope. */
export type Era = '2025-11-25' | '2026-07-28';

/** What both SDK clients offer a run. */
interface RpcClient {
  request(req: { method: string; params?: Record<string, unknown> }, schema: typeof anyResult): Promise<unknown>;
}

/**
 * The 2026 list is a cacheable result: ttlMs and cacheScope are cache hints around the list,
 * as `_meta` is, not part of what a fixture compares (the fixtures predate 2026-07-28).
 */
const CACHE_HINTS = ['ttlMs', 'cacheScope'];

async function rpc(client: RpcClient, method: string, params: unknown): Promise<{ result?: Record<string, unknown>; code?: number; message?: string }> {
  try {
    return { result: (await client.request({ method, params: params as Record<string, unknown> }, anyResult)) as Record<string, unknown> };
  } catch (e) {
    return { code: (e as { code?: number }).code, message: (e as Error).message };
  }
}

function withoutMeta(r: Record<string, unknown>): Record<string, unknown> {
  const { _meta: _m, ...rest } = r;
  for (const k of CACHE_HINTS) delete rest[k];
  return rest;
}

async function runStep(client: RpcClient, step: Record<string, unknown>, volatile: string[]): Promise<[boolean, string]> {
  const expect = step.expect as Record<string, unknown>;
  switch (step.op) {
    case 'list': {
      const r = await rpc(client, 'interceptors/list', step.event === null ? {} : { event: step.event });
      if (!r.result) return [false, `error ${r.code}: ${r.message}`];
      const got = canonicalText(stripVolatile(withoutMeta(r.result), volatile));
      return [got === expect.canonical, got === expect.canonical ? 'list matches' : `got ${got}`];
    }
    case 'invoke': {
      const r = await rpc(client, 'interceptor/invoke', step.params);
      if ('errorCode' in expect) return [r.code === expect.errorCode, `error code ${r.code} (want ${expect.errorCode})`];
      if (!r.result) return [false, `error ${r.code}: ${r.message}`];
      const got = canonicalText(stripVolatile(withoutMeta(r.result), volatile));
      return [got === expect.canonical, got === expect.canonical ? 'invoke matches' : `got ${got}`];
    }
    case 'apply':
    case 'chain': {
      const ctx = step.context as { sessionId?: string } | null;
      const r = await rpc(client, 'interceptor/executeChain', { event: step.event, phase: step.phase, payload: step.payload, ...(ctx ? { context: { sessionId: ctx.sessionId } } : {}) });
      if (!r.result) return [false, `error ${r.code}: ${r.message}`];
      const decision = r.result.status === 'success' ? 'allow' : 'deny';
      const problems: string[] = [];
      if (decision !== expect.decision) problems.push(`decision ${decision} (want ${expect.decision}; status ${r.result.status})`);
      if (!(r.result._meta as Record<string, unknown> | undefined)?.['io.vouch/receipt']) problems.push('no receipt in _meta');
      const final = canonicalText(r.result.finalPayload ?? null);
      if (typeof expect.finalPayloadCanonical === 'string' && final !== expect.finalPayloadCanonical) problems.push(`final payload ${final}`);
      for (const s of (expect.forbids as string[] | undefined) ?? []) if (final.includes(s)) problems.push(`final payload contains forbidden ${JSON.stringify(s)}`);
      for (const s of (expect.requires as string[] | undefined) ?? []) if (!final.includes(s)) problems.push(`final payload lacks required ${JSON.stringify(s)}`);
      return [problems.length === 0, problems.length ? problems.join('; ') : `${decision} as expected`];
    }
    default:
      return [false, `unknown step op ${String(step.op)}`];
  }
}

export async function runFixture(f: Fixture, era: Era = '2025-11-25'): Promise<FixtureOutcome> {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-conf-'));
  const configPath = join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify(configFor(f)));
  const server = await startServer({ data: join(dir, 'data'), port: 0, config: configPath });
  const url = new URL(`${server.url}/mcp`);
  const client = era === '2026-07-28' ? new ClientV2({ name: 'vouch-conformance', version: '0.1.0' }, { versionNegotiation: { mode: { pin: era } } }) : new Client({ name: 'vouch-conformance', version: '0.1.0' });
  const steps: StepOutcome[] = [];
  try {
    if (client instanceof ClientV2) await client.connect(new TransportV2(url));
    else await client.connect(new StreamableHTTPClientTransport(url));
    const spoken = client instanceof ClientV2 ? client.getNegotiatedProtocolVersion() : undefined;
    if (client instanceof ClientV2 && spoken !== era) throw new Error(`negotiated ${spoken}, not ${era}`);
    for (const [i, step] of f.steps.entries()) {
      const [ok, detail] = await runStep(client, step, f.volatile ?? []);
      steps.push({ step: i, ok, detail });
    }
  } finally {
    await client.close().catch(() => undefined);
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { id: f.id, ok: steps.length > 0 && steps.every((s) => s.ok), steps };
}
