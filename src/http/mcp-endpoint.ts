// POST /mcp: MCP over Streamable HTTP (stateless, JSON responses) into the SDK's interceptor
// server, both eras on one endpoint (issue 36). First, on every request, the HTTP headers that
// mirror the body must agree with it (mcp-refusal.ts). A request that may be 2026-07-28 (its
// `_meta` envelope or its version header says so) goes to mcp-modern.ts, loaded with the first
// such request; the SDK v2 classifier sends 2025-era traffic back here, unchanged. On 2025, two
// ways, one answer: a plain request for one of the interceptor methods goes to one long-lived SDK
// Server over an in-process transport, carrying its caller in authInfo; anything else
// (initialize, ping, notifications, batches, unusual headers, messages the SDK would refuse) goes
// through the SDK's WebStandardStreamableHTTPServerTransport with a Server made for that request.
// Measured: building a Server and a transport per request was about a third of the event loop's
// time per decision. A plain executeChain, the decision itself, skips the shared Server's
// machinery too (leanExecuteChain). test/http/mcp-endpoint.test.ts holds every way to the same bytes.
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { envelopeClaimOf, isModernProtocolVersion, mcpHeaderMismatch } from '../protocol/index.js';
import type { ModernMcp } from './mcp-modern.js';
import { refuseHeaderMismatch } from './mcp-refusal.js';
import { createInterceptorServer, protocolVersionOfHeader, runExecuteChain, SESSION_KEY, sessionFromAuthInfo, type InterceptorSession } from './mcp-server.js';

const SHARED_METHODS: ReadonlySet<string> = new Set(['interceptors/list', 'interceptor/invoke', 'interceptor/executeChain']);

/**
 * The request, as the SDK transport would hand it to its Server, when that transport would do
 * nothing else with it (no 406, 415 or 400 of its own); undefined sends it the SDK's way.
 */
export function plainInterceptorRequest(req: Request, body: unknown): JSONRPCRequest | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  if (!SHARED_METHODS.has((body as { method?: unknown }).method as string)) return undefined;
  const accept = req.headers.get('accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (req.headers.get('content-type') !== 'application/json') return undefined;
  const version = req.headers.get('mcp-protocol-version');
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  const parsed = JSONRPCMessageSchema.safeParse(body);
  if (!parsed.success || !('method' in parsed.data) || !('id' in parsed.data)) return undefined;
  return parsed.data as JSONRPCRequest;
}

/**
 * An in-process transport for one shared Server. Each request gets an id of its own on the way
 * in (callers' ids collide: many send id 1) and its own id back on the answer. The server sends
 * nothing else here: its handlers neither notify nor ask the client.
 */
class SharedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private readonly owed = new Map<number, (m: JSONRPCMessage) => void>();
  private next = 0;

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    if ('method' in message || !('id' in message)) return;
    const id = message.id as number;
    const answer = this.owed.get(id);
    this.owed.delete(id);
    answer?.(message);
  }

  ask(req: JSONRPCRequest, authInfo: AuthInfo, headers?: Record<string, string>): Promise<JSONRPCMessage> {
    const id = ++this.next;
    return new Promise((resolve) => {
      this.owed.set(id, (m) => resolve({ ...m, id: req.id } as JSONRPCMessage));
      this.onmessage?.({ ...req, id }, { authInfo, ...(headers && { requestInfo: { headers } }) });
    });
  }
}

/**
 * The HTTP `traceparent` header, copied into each executeChain request's `params._meta` that
 * names none (the request's own `_meta.traceparent` wins): decide/decide-params.ts records it.
 * The `tracestate` header travels with it, and only with it (W3C: the two are one context).
 */
export function withHeaderTraceparent(req: Request, body: unknown): unknown {
  const tp = req.headers.get('traceparent');
  if (tp === null) return body;
  const ts = req.headers.get('tracestate');
  const context = ts === null ? { traceparent: tp } : { traceparent: tp, tracestate: ts };
  const one = (m: unknown): unknown => {
    if (typeof m !== 'object' || m === null || Array.isArray(m) || (m as { method?: unknown }).method !== 'interceptor/executeChain') return m;
    const params = (m as { params?: unknown }).params;
    if (typeof params !== 'object' || params === null || Array.isArray(params)) return m;
    const meta = (params as { _meta?: unknown })._meta;
    if (meta !== undefined && (typeof meta !== 'object' || meta === null || Array.isArray(meta) || 'traceparent' in meta)) return m;
    // The header's tracestate replaces any `_meta.tracestate` that came without a traceparent.
    return { ...m, params: { ...params, _meta: { ...withoutTracestate(meta as Record<string, unknown> | undefined), ...context } } };
  };
  return Array.isArray(body) ? body.map(one) : one(body);
}

function withoutTracestate(meta: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (meta === undefined || !('tracestate' in meta)) return meta;
  const { tracestate: _ts, ...rest } = meta;
  return rest;
}

/**
 * executeChain without the SDK's per-request machinery (an AbortController, the request's extra
 * with its closures, a schema parse of a request the gate parsed already): the handler the shared
 * Server runs, and the answer framed as the SDK frames it (protocol.js _onrequest: result, or
 * error with code, message and data). A request that asks for a task goes the SDK's way, which
 * checks task capability first. test/http/mcp-endpoint.test.ts holds the bytes equal.
 */
async function leanExecuteChain(req: JSONRPCRequest, session: InterceptorSession, version: string | null): Promise<JSONRPCMessage> {
  try {
    const result = await runExecuteChain(() => session, req.params, { protocolVersion: protocolVersionOfHeader(version) });
    return { result, jsonrpc: '2.0', id: req.id } as JSONRPCMessage;
  } catch (e) {
    const error = e as { code?: unknown; message?: string; data?: unknown };
    return {
      jsonrpc: '2.0',
      id: req.id,
      error: { code: Number.isSafeInteger(error.code) ? (error.code as number) : ErrorCode.InternalError, message: error.message ?? 'Internal error', ...(error.data !== undefined && { data: error.data }) },
    } as JSONRPCMessage;
  }
}

function asksForTask(params: unknown): boolean {
  return typeof params === 'object' && params !== null && (params as { task?: unknown }).task !== undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Whether the SDK's era classifier could send this request anywhere but the 2025 way: a 2026
 * version header, or an envelope claim in the body (or in any batch element). Everything else it
 * classifies as 2025 traffic (or a malformed batch the 2025 way answers too), so 2025 clients
 * never pay for the classifier or the v2 modules. test/http/mcp-2026-sdk.test.ts holds the two to agree.
 */
export function mayBeModern(req: Request, body: unknown): boolean {
  const v = req.headers.get('mcp-protocol-version');
  if (v !== null && isModernProtocolVersion(v)) return true;
  const claims = (m: unknown) => isObject(m) && envelopeClaimOf(m.params) !== undefined;
  return Array.isArray(body) ? body.some(claims) : claims(body);
}

export interface McpEndpoint {
  /** `body` is the parsed request body; `session` is who asks, with what policy and log. */
  handle(req: Request, body: unknown, session: InterceptorSession): Promise<Response>;
}

export function createMcpEndpoint(): McpEndpoint {
  let shared: Promise<SharedTransport> | undefined;
  const sharedTransport = () =>
    (shared ??= (async () => {
      const transport = new SharedTransport();
      const server: Server = createInterceptorServer(sessionFromAuthInfo);
      await server.connect(transport);
      return transport;
    })());

  let modern: Promise<ModernMcp> | undefined;
  const modernMcp = () => (modern ??= import('./mcp-modern.js').then((m) => m.createModernMcp()));

  return {
    async handle(req, body, session) {
      body = withHeaderTraceparent(req, body);
      // A header that disagrees with the body is refused before anything else, whatever the era.
      const claim = isObject(body) ? envelopeClaimOf(body.params) : undefined;
      const headers = { protocolVersion: req.headers.get('mcp-protocol-version'), method: req.headers.get('mcp-method'), name: req.headers.get('mcp-name') };
      const mismatch = mcpHeaderMismatch(headers, body, typeof claim?.version === 'string' ? { version: claim.version } : undefined);
      if (mismatch) return refuseHeaderMismatch(mismatch, body, session, headers.protocolVersion);
      if (mayBeModern(req, body)) {
        const answer = await (await modernMcp()).handle(req, body, session);
        if (answer) return answer;
      }
      const plain = plainInterceptorRequest(req, body);
      if (plain) {
        const authInfo: AuthInfo = { token: '', clientId: session.principal, scopes: session.roles, extra: { [SESSION_KEY]: session } };
        // The MCP-Protocol-Version header reaches the handlers as the SDK transport would pass it (compat skipping).
        const version = req.headers.get('mcp-protocol-version');
        const answer =
          plain.method === 'interceptor/executeChain' && !asksForTask(plain.params)
            ? await leanExecuteChain(plain, session, version)
            : await (await sharedTransport()).ask(plain, authInfo, version === null ? undefined : { 'mcp-protocol-version': version });
        return new Response(JSON.stringify(answer), { status: 200, headers: { 'Content-Type': 'application/json' } });
      }
      // Stateless Streamable HTTP through the SDK's transport: one per request, JSON responses.
      const server = createInterceptorServer(session);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        return await transport.handleRequest(req, { parsedBody: body });
      } finally {
        void server.close();
      }
    },
  };
}
