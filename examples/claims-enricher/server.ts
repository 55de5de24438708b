// A remote claims enricher (issue 39's "online" checker): an SEP-2624 interceptor server written
// with the MCP SDK v2 that lists one enricher and answers interceptor/invoke on tools/call
// responses with the result plus a model-visible verdict block and the claims record, checked by
// src/enrich/claims.ts against an evidence file. Both MCP eras (2025 stateless, 2026-07-28).
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createMcpHandler, ProtocolError, Server } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { checkClaims, renderClaims, type ClaimsRecord, type EvidenceSet } from '../../src/enrich/claims.js';
import { resultText } from '../../src/enrich/result-text.js';

/** The vouch extension of the SEP declaration and of a result's _meta (the enricher contract). */
export const ROLE_META = 'io.vouch/role';
export const ENRICHMENT_META = 'io.vouch/enrichment';

export interface ClaimsEnricherOptions {
  /** The interceptor's name in interceptors/list (default `claims-enricher`). */
  name?: string;
  /** The server's name: the record's checker is `remote:<serverName>` (default `claims-enricher`). */
  serverName?: string;
  /** Events it hooks, at the response phase (default tools/call). */
  events?: string[];
}

/** What interceptors/list says: a response-phase mutation whose _meta narrows it to an enricher. */
export function declarationOf(opts: ClaimsEnricherOptions = {}) {
  return {
    name: opts.name ?? 'claims-enricher',
    type: 'mutation' as const,
    hooks: [{ events: opts.events ?? ['tools/call'], phase: 'response' as const }],
    description: 'Checks the claims in a tool result against an evidence file; adds verdicts, a score and corrections, never changes or blocks the result',
    _meta: { [ROLE_META]: 'enricher' },
  };
}

/**
 * The SEP MutationResult for one invoke: the payload given, plus one content block addressed to
 * the model and the record under _meta. Anything not a result with a content array is passed on
 * unmodified (a request, another event, an error without content).
 */
export function enrichResult(payload: unknown, phase: string, evidence: EvidenceSet, opts: ClaimsEnricherOptions = {}) {
  const name = opts.name ?? 'claims-enricher';
  const unmodified = { interceptor: name, type: 'mutation' as const, phase, modified: false, payload };
  const result = payload as { content?: unknown; _meta?: unknown } | null;
  if (phase !== 'response' || typeof result !== 'object' || result === null || Array.isArray(result) || !Array.isArray(result.content)) return unmodified;
  const record: ClaimsRecord = { ...checkClaims(resultText(result), evidence), checker: `remote:${opts.serverName ?? 'claims-enricher'}` };
  const meta = typeof result._meta === 'object' && result._meta !== null && !Array.isArray(result._meta) ? result._meta : {};
  const enriched = {
    ...result,
    content: [...result.content, { type: 'text', text: renderClaims(record), annotations: { audience: ['assistant'] } }],
    _meta: { ...meta, [ENRICHMENT_META]: record },
  };
  return { ...unmodified, modified: true, payload: enriched };
}

const InvokeParams = z.looseObject({ name: z.string(), event: z.string(), phase: z.enum(['request', 'response']), payload: z.unknown(), context: z.unknown().optional() });

/** A fetch handler (Node via @hono/node-server, or a Worker) serving the enricher at any path it is mounted on. */
export function claimsEnricherHandler(evidence: EvidenceSet, opts: ClaimsEnricherOptions = {}) {
  const declaration = declarationOf(opts);
  const build = () => {
    const server = new Server({ name: opts.serverName ?? 'claims-enricher', version: '1.0.0' }, { capabilities: {} });
    server.setRequestHandler('interceptors/list', { params: z.looseObject({ cursor: z.string().optional() }) }, async () => ({ interceptors: [declaration] }));
    server.setRequestHandler('interceptor/invoke', { params: InvokeParams }, async (p) => {
      // -32602: the SEP's answer to a name this server does not host.
      if (p.name !== declaration.name) throw new ProtocolError(-32602, `unknown interceptor ${p.name}`);
      if (!declaration.hooks[0].events.includes(p.event)) return { interceptor: declaration.name, type: 'mutation' as const, phase: p.phase, modified: false, payload: p.payload };
      return enrichResult(p.payload, p.phase, evidence, opts);
    });
    return server;
  };
  return createMcpHandler(() => build(), { onerror: () => undefined });
}

export interface RunningEnricher {
  url: string;
  stop(): Promise<void>;
}

/** Listen on host:port (default 127.0.0.1, a free port); the endpoint is `/mcp`. */
export async function startClaimsEnricher(evidence: EvidenceSet, opts: ClaimsEnricherOptions & { host?: string; port?: number } = {}): Promise<RunningEnricher> {
  const handler = claimsEnricherHandler(evidence, opts);
  const http: HttpServer = createServer(getRequestListener((req) => (new URL(req.url).pathname === '/mcp' ? handler.fetch(req) : new Response('not found: the endpoint is /mcp\n', { status: 404 }))));
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port ?? 0, host, resolve);
  });
  const { port } = http.address() as AddressInfo;
  let stopped = false;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    },
  };
}
