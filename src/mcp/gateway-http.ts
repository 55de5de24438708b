// NODE-ONLY: the gateway served over MCP Streamable HTTP (`--listen`). One gateway session (and
// one upstream connection) per MCP session; beside /mcp, the keys that verify its receipts
// (/.well-known/vouch/keys as JWKS, /.well-known/vouch/vkeys), /healthz, and the read-only audit
// routes with the console (gateway-audit.ts: GET /v1/entries/SEQ is where each answer's receipt is). Without `auth` no tokens are checked, so it binds
// to loopback only; with it, it is an OAuth resource server (RFC 9728 metadata, a token for this resource on every /mcp request,
// each session bound to its token's subject). Host headers are checked (DNS rebinding would otherwise reach it from a web page).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError } from '../errors.js';
import { createTokenVerifier, type AuthConfig, type Verified } from '../http/auth.js';
import { challengeFor, metadataDocument, protectedResourceOf, wwwAuthenticate, type ProtectedResource } from '../http/oauth-metadata.js';
import { JSONRPC } from '../protocol/index.js';
import { requireJsonMediaType } from '../http/body.js';
import { isOwnOrigin } from '../http/web-guard.js';
import type { Gateway } from './gateway-types.js';
import type { GatewayRuntime } from './gateway-node.js';
import { approveTool, sendJson, TOOLS_APPROVE_PATH } from './tool-pins-route.js';
import { modernListener } from './gateway-http-modern.js';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { AUDIT_PATHS } from '../http/audit-app.js';
import { gatewayAuditHandler, type NodeHandler } from './gateway-audit.js';

export const GATEWAY_PATH = '/mcp';
const JSON_TYPE = 'application/json';
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1)$/;

export interface ListenOptions {
  host?: string;
  port?: number;
  maxSessions?: number;
  /** How long a 2026-07-28 caller's upstream connection outlives its last request (default 60 s). */
  callerIdleMs?: number;
  maxBodyBytes?: number;
  /** OAuth: every /mcp request needs a token for this resource (default `resource`: this listener's /mcp URL). */
  auth?: AuthConfig;
}

export interface Listening {
  url: string;
  port: number;
  /** With auth: what this resource server advertises. */
  resource?: ProtectedResource;
  close(): Promise<void>;
}

/** Where the listener's routes are, publicly: the resource URL without its /mcp (else its origin). */
function publicBase(resource: string): string {
  const u = new URL(resource);
  return u.pathname.endsWith(GATEWAY_PATH) ? `${u.origin}${u.pathname.slice(0, -GATEWAY_PATH.length)}` : u.origin;
}

/** A token's roles as one comparable value (order-free): a session is decided under exactly these. */
const rolesKey = (roles: string[]): string => JSON.stringify([...roles].sort());

function reply(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

function readBody(req: IncomingMessage, limit: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(Object.assign(new Error(`body over ${limit} bytes`), { status: 413 }));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        reject(Object.assign(new Error('body is not JSON'), { status: 400 }));
      }
    });
    req.on('error', reject);
  });
}

export async function listenGateway(rt: GatewayRuntime, opts: ListenOptions = {}): Promise<Listening> {
  const host = opts.host ?? '127.0.0.1';
  if (!LOOPBACK.test(host) && !opts.auth) throw new ConfigError('ERR_CONFIG', `refusing to listen on ${host}: without --auth the gateway checks no tokens, so it serves loopback only`);
  if (!LOOPBACK.test(host) && !opts.auth?.resource) throw new ConfigError('ERR_CONFIG', `listening on ${host}: set "resource" in the auth file to the public URL clients reach /mcp at (tokens are checked for it)`);
  const maxSessions = opts.maxSessions ?? 32;
  const maxBody = opts.maxBodyBytes ?? 4 * 1024 * 1024;
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; gateway: Gateway; principal?: string; roles?: string }>();
  // 2026-07-28 callers: no sessions, one gateway per caller while it calls (gateway-http-modern.ts), counted with the sessions.
  const modern = modernListener(rt, { room: () => sessions.size + modern.size() < maxSessions, idleMs: opts.callerIdleMs });
  // Set once listening (the resource defaults to this listener's own URL).
  let verify: ((authorization: string | undefined) => Promise<Verified>) | undefined;
  let resource: ProtectedResource | undefined;
  // The read-only audit routes and the console (gateway-audit.ts): made once the resource is known.
  let audit: NodeHandler | undefined;
  const allowedHosts: string[] = [];
  const publicRoutes: Record<string, () => [string, string]> = {
    '/healthz': () => [JSON_TYPE, JSON.stringify({ ok: true, server: rt.serverName, tenant: rt.tenant, sessions: sessions.size, callers2026: modern.size() })],
    '/.well-known/vouch/keys': () => [JSON_TYPE, JSON.stringify(rt.dataDir.jwks())],
    '/.well-known/vouch/vkeys': () => ['text/plain; charset=utf-8', rt.dataDir.vkeys().join('\n') + '\n'],
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    // Web pages cannot drive it (http/web-guard.ts): a foreign Origin is refused, bodies are JSON only.
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedHosts.some((h) => isOwnOrigin(origin, h))) return reply(res, 403, JSONRPC.unauthorized, 'cross-origin requests are refused: the gateway is not for web pages');
    // Beside /mcp, what a client needs to verify receipts offline, and a liveness check.
    const fixed = publicRoutes[path];
    if (fixed) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'ERR_INPUT', message: `${path} answers GET only` } }));
      const [type, body] = fixed();
      return void res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : body);
    }
    if (resource?.paths.includes(path)) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'application/json' }).end();
      return void res.writeHead(200, { 'content-type': JSON_TYPE, 'cache-control': 'max-age=300' }).end(req.method === 'HEAD' ? undefined : JSON.stringify(metadataDocument(resource)));
    }
    const audited = AUDIT_PATHS.test(path);
    if (path !== GATEWAY_PATH && path !== TOOLS_APPROVE_PATH && !audited) return reply(res, 404, JSONRPC.methodNotFound, `not found: the gateway serves ${GATEWAY_PATH}, the audit routes (/v1/entries/SEQ, /v1/checkpoint, /v1/proofs/..., /audit/), ${Object.keys(publicRoutes).join(', ')}`);
    // DNS rebinding: a page whose name now resolves here sends its own Host. Checked for every request
    // that acts or reads the log (2026 requests and tool approvals have no SDK transport of ours to
    // check it, as 2025 sessions do; without --auth the log would otherwise be readable from any page).
    if (!allowedHosts.includes(req.headers.host ?? '')) return reply(res, 403, JSONRPC.unauthorized, `the Host header does not name this gateway (DNS rebinding is refused): reach it at one of ${allowedHosts.join(', ')}`);
    // The audit routes check the token themselves (the same verifier, the audit role), as vouch serve does.
    if (audited) return audit ? audit(req, res) : reply(res, 503, JSONRPC.unavailable, 'starting: try again');
    if (req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH') {
      try {
        requireJsonMediaType(req.headers['content-type']);
      } catch (e) {
        return reply(res, 415, JSONRPC.invalidRequest, (e as Error).message);
      }
    }
    // OAuth: a token for this resource on every request, before anything of the session is touched.
    let caller: { principal: string; roles: string[] } | undefined;
    if (opts.auth) {
      if (!verify) return reply(res, 503, JSONRPC.unavailable, 'starting: try again');
      const authorization = req.headers.authorization;
      let v: Verified;
      try {
        v = await verify(authorization);
      } catch (e) {
        const message = (e as Error).message;
        res.setHeader('www-authenticate', wwwAuthenticate(resource, challengeFor(authorization, message)));
        return reply(res, 401, JSONRPC.unauthorized, message);
      }
      // One gateway writes one tenant's log: a token for another tenant is not for this gateway.
      if (v.caller.tenant !== rt.tenant) return reply(res, 403, JSONRPC.unauthorized, `the token is for tenant ${v.caller.tenant}; this gateway serves ${rt.tenant}`);
      caller = { principal: v.caller.principal, roles: v.roles };
    }
    // Approving a changed tool definition (tool-pins-route.ts): admin role when tokens are checked.
    if (path === TOOLS_APPROVE_PATH) return req.method === 'POST' ? sendJson(res, await approveTool(rt.toolPins, await readBody(req, maxBody), caller)) : reply(res, 405, JSONRPC.invalidRequest, `${path} answers POST only`);
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const s = sessions.get(sid);
      if (!s) return reply(res, 404, JSONRPC.unauthorized, 'session not found (it ended, or the gateway restarted): initialize again');
      // A session is its token subject's, under that token's roles: another's token, or one of the
      // same subject with other roles, cannot ride it (session ids leak: logs, proxies).
      if (caller && s.principal !== caller.principal) return reply(res, 403, JSONRPC.unauthorized, 'this session belongs to another principal');
      if (caller && s.roles !== rolesKey(caller.roles)) return reply(res, 403, JSONRPC.unauthorized, 'this session was opened under other roles: initialize a session with this token');
      const body = req.method === 'POST' ? await readBody(req, maxBody) : undefined;
      return s.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST') return reply(res, 400, JSONRPC.invalidRequest, 'no mcp-session-id: initialize first with a POST (MCP 2025), or POST requests with the _meta envelope (MCP 2026-07-28)');
    const body = await readBody(req, maxBody);
    if (!isInitializeRequest(body)) {
      const header = (n: string) => (typeof req.headers[n] === 'string' ? (req.headers[n] as string) : undefined);
      const route = classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: header('mcp-protocol-version'), mcpMethodHeader: header('mcp-method'), mcpNameHeader: header('mcp-name'), body });
      if (route.kind !== 'legacy') return modern.handle(req, res, body, caller);
      return reply(res, 400, JSONRPC.invalidRequest, 'no mcp-session-id: the first request of a 2025 session must be initialize (a 2026-07-28 request carries the _meta envelope)');
    }
    if (sessions.size >= maxSessions) return reply(res, 503, JSONRPC.unavailable, `too many sessions (${maxSessions}); close one first`);
    const sessionId = crypto.randomUUID();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => sessionId, enableDnsRebindingProtection: true, allowedHosts });
    const gateway = await rt.start(transport, { sessionId, caller, era: 'legacy' });
    sessions.set(sessionId, { transport, gateway, principal: caller?.principal, roles: caller && rolesKey(caller.roles) });
    void gateway.closed.then(() => sessions.delete(sessionId));
    await transport.handleRequest(req, res, body);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: Error & { status?: number }) => {
      if (res.headersSent) return void res.end();
      reply(res, e.status ?? 502, e.status ? JSONRPC.invalidRequest : JSONRPC.unavailable, e.message);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(new ConfigError('ERR_CONFIG', `cannot listen on ${host}:${opts.port ?? 0}: ${e.code ?? e.message}`)));
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  allowedHosts.push(`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`);
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}${GATEWAY_PATH}`;
  if (opts.auth) {
    try {
      resource = protectedResourceOf(opts.auth, opts.auth.resource ?? url)!;
      verify = createTokenVerifier({ ...opts.auth, resource: resource.resource }, () => new Date());
    } catch (e) {
      server.close();
      throw e;
    }
    // Clients reach it under its public name (the resource's host) as well as the address it binds.
    allowedHosts.push(`${host.includes(':') ? `[${host}]` : host}:${port}`, new URL(resource.resource).host);
  }
  audit = gatewayAuditHandler(rt, verify, resource);
  // Every allowed answer names its receipt's URL here (the public one under --auth) while this listens.
  const base = resource ? publicBase(resource.resource) : url.slice(0, -GATEWAY_PATH.length);
  rt.receipts.base = base;
  return {
    url,
    port,
    resource,
    close: async () => {
      if (rt.receipts.base === base) rt.receipts.base = undefined;
      await Promise.allSettled([...sessions.values()].map((s) => s.gateway.close()));
      await modern.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
