// POST /mcp for MCP 2026-07-28 (issue 36): stateless, a `_meta` envelope on every request. The
// SDK v2 decides the era (classifyInboundRequest); a version the endpoint does not serve is
// UnsupportedProtocolVersion naming every version it serves; then two ways, one answer. The
// interceptor methods are answered here, stamped as the SDK's 2026 codec stamps results
// (resultType, serverInfo); anything else goes through the SDK's own 2026 entry (createMcpHandler)
// with a v2 Server made for that request. Measured: that way costs about 0.4 ms a request (Server,
// transport, codec), this one the classifier's 40 µs. test/http/mcp-2026-wire.test.ts holds the
// two to the same bytes.
import { classifyInboundRequest, createMcpHandler, Server, type AuthInfo } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { JSONRPC, LEGACY_PROTOCOL_VERSIONS, liftEnvelope, MODERN_PROTOCOL_VERSIONS, SERVED_PROTOCOL_VERSIONS, SERVER_INFO_META } from '../protocol/index.js';
import { eraOfEnvelope, NO_SCHEMAS, runExecuteChain, runInvoke, runList, SERVER_CAPABILITIES, SERVER_INFO, SESSION_KEY, sessionFromAuthInfo, type InterceptorSession } from './mcp-server.js';

type Rec = Record<string, unknown>;
type Id = string | number;

/**
 * interceptors/list on 2026 is a cacheable result (SEP-2549). `private`: the list is the caller
 * tenant's chain, so a shared cache must never hand it to another authorization context. 0 ms:
 * POST /v1/policy swaps the chain at any moment and vouch sends no list_changed, so no freshness
 * can be promised. The 2025 era's list carries neither field.
 */
export const LIST_CACHE = Object.freeze({ ttlMs: 0, cacheScope: 'private' as const });

/** The methods answered without the SDK's per-request Server. */
const LEAN_METHODS: ReadonlySet<string> = new Set(['server/discover', 'interceptors/list', 'interceptor/invoke', 'interceptor/executeChain']);

// Built once (see mcp-server.ts: a schema made per request paid zod's compile each time).
const ANY_PARAMS = z.looseObject({});

/** A result as the SDK's 2026 codec sends it: resultType appended, serverInfo added to `_meta` (a handler's own keys first). */
function complete(result: Rec): Rec {
  const out: Rec = { ...result, resultType: 'complete' };
  out._meta = { ...(result._meta as Rec | undefined), [SERVER_INFO_META]: SERVER_INFO };
  return out;
}

const withListCache = (list: object): Rec => ({ ...list, ...LIST_CACHE });

/** One v2 Server for one request the SDK's entry serves: the same handlers as the lean way. */
function modernServer(session: InterceptorSession): Server {
  const server = new Server({ ...SERVER_INFO }, { capabilities: SERVER_CAPABILITIES as never, jsonSchemaValidator: NO_SCHEMAS as never });
  const sessionOf = () => session;
  server.setRequestHandler('interceptors/list', { params: ANY_PARAMS }, async (p) => withListCache(await runList(sessionOf, p)));
  server.setRequestHandler('interceptor/invoke', { params: ANY_PARAMS }, async (p) => (await runInvoke(sessionOf, p)) as Rec);
  // The SDK lifted the envelope out of `_meta` before this handler: it reads it from the context.
  server.setRequestHandler('interceptor/executeChain', { params: ANY_PARAMS }, async (p, ctx) => (await runExecuteChain(sessionOf, p, eraOfEnvelope((ctx as { mcpReq?: { envelope?: Rec } }).mcpReq?.envelope))) as Rec);
  return server;
}

function json(status: number, message: object): Response {
  return new Response(JSON.stringify(message), { status, headers: { 'Content-Type': 'application/json' } });
}

/** A handler's failure framed as the SDK frames it: code, message, data (never a stack). */
function errorAnswer(id: Id, e: unknown): Response {
  const error = e as { code?: unknown; message?: string; data?: unknown };
  return json(200, { jsonrpc: '2.0', id, error: { code: Number.isSafeInteger(error.code) ? (error.code as number) : JSONRPC.internalError, message: error.message ?? 'Internal error', ...(error.data !== undefined && { data: error.data }) } });
}

/** versioning.mdx: a version not served is -32022, HTTP 400, listing what is (both eras, 2026 first). */
function unsupportedVersion(id: Id | undefined, requested: string | undefined): Response {
  const legacy = requested !== undefined && LEGACY_PROTOCOL_VERSIONS.includes(requested);
  const message = legacy
    ? `Unsupported protocol version: ${requested} in the per-request _meta envelope (2025 versions are served after initialize, without the envelope)`
    : `Unsupported protocol version: ${requested ?? '(none named)'}`;
  return json(400, { jsonrpc: '2.0', id, error: { code: JSONRPC.unsupportedProtocolVersion, message, data: { supported: [...SERVED_PROTOCOL_VERSIONS], requested: requested ?? 'unknown', code: 'ERR_UNSUPPORTED_PROTOCOL_VERSION' } } });
}

export interface ModernMcp {
  /** The answer to a 2026 request, or undefined when the SDK classifies it as 2025-era traffic (the caller's way). */
  handle(req: Request, body: unknown, session: InterceptorSession): Promise<Response | undefined>;
}

export function createModernMcp(): ModernMcp {
  const sdk = createMcpHandler((ctx) => modernServer(sessionFromAuthInfo(ctx)), { legacy: 'reject', onerror: () => undefined });

  async function lean(id: Id, method: string, params: unknown, session: InterceptorSession): Promise<Response> {
    const lifted = liftEnvelope(params);
    const sessionOf = () => session;
    try {
      let result: Rec;
      if (method === 'server/discover') result = { supportedVersions: [...MODERN_PROTOCOL_VERSIONS], capabilities: SERVER_CAPABILITIES, resultType: 'complete', ...LIST_CACHE, _meta: { [SERVER_INFO_META]: SERVER_INFO } };
      else if (method === 'interceptors/list') result = complete(withListCache(await runList(sessionOf, lifted.params)));
      else if (method === 'interceptor/invoke') result = complete((await runInvoke(sessionOf, lifted.params)) as Rec);
      else result = complete((await runExecuteChain(sessionOf, lifted.params, eraOfEnvelope(lifted.envelope))) as Rec);
      return json(200, { result, jsonrpc: '2.0', id });
    } catch (e) {
      return errorAnswer(id, e);
    }
  }

  return {
    async handle(req, body, session) {
      const header = (n: string) => req.headers.get(n) ?? undefined;
      const route = classifyInboundRequest({ httpMethod: req.method, protocolVersionHeader: header('mcp-protocol-version'), mcpMethodHeader: header('mcp-method'), mcpNameHeader: header('mcp-name'), body });
      if (route.kind === 'legacy') return undefined;
      const authInfo: AuthInfo = { token: '', clientId: session.principal, scopes: session.roles, extra: { [SESSION_KEY]: session } };
      // The SDK's own refusals of a 2026-shaped request (a malformed envelope, not JSON-RPC): its bytes.
      if (route.kind === 'reject') return sdk.fetch(req, { parsedBody: body, authInfo });
      const version = route.classification.revision;
      const id = route.messageKind === 'request' ? route.message.id : undefined;
      if (version === undefined || !MODERN_PROTOCOL_VERSIONS.includes(version)) return unsupportedVersion(id, version);
      // The lean way for the interceptor methods; an unusual spelling of the media type goes the
      // SDK's way (that is how the tests reach it with the same request).
      if (route.messageKind === 'request' && LEAN_METHODS.has(route.message.method) && req.headers.get('content-type') === 'application/json') {
        return lean(route.message.id, route.message.method, route.message.params, session);
      }
      return sdk.fetch(req, { parsedBody: body, authInfo });
    },
  };
}
