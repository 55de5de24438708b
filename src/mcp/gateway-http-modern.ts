// NODE-ONLY: MCP 2026-07-28 requests to the gateway's /mcp (`--listen`, issue 36). Stateless: no
// Mcp-Session-Id; each caller (the token's subject and roles, or the one local principal) has one gateway
// (one upstream connection) that its requests share, so a call parked for input is resumed by
// the same caller's retry and never by another's. Each request is served by the SDK v2's own
// entry (createMcpHandler) with a Server over that gateway. A request whose Mcp-Method,
// Mcp-Name or MCP-Protocol-Version header disagrees with its body is refused first (-32020), and
// the refusal is a signed deny.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, InMemoryServerEventBus, type AuthInfo, type McpHttpHandler } from '@modelcontextprotocol/server';
import { envelopeClaimOf, JSONRPC, liftEnvelope, mcpHeaderMismatch } from '../protocol/index.js';
import { recordedLabel } from '../interceptors/builtin/recorded-text.js';
import type { Gateway } from './gateway-types.js';
import type { GatewayRuntime } from './gateway-node.js';

const GATEWAY_KEY = 'io.vouch/gateway';
const MAX_RECORDED = 200;

export interface ModernListener {
  handle(req: IncomingMessage, res: ServerResponse, body: unknown, caller: { principal: string; roles: string[] } | undefined): Promise<void>;
  /** How many callers hold a gateway (each an upstream connection). */
  size(): number;
  close(): Promise<void>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const header = (req: IncomingMessage, n: string): string | null => {
  const v = req.headers[n];
  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
};

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/**
 * The Node request as the web Request the SDK's entry takes (the body already read and parsed),
 * aborted when the client goes away: a listen stream (or a call's round) it left ends with it.
 */
function webRequest(req: IncomingMessage, res: ServerResponse, body: unknown): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  const gone = new AbortController();
  res.once('close', () => gone.abort(new Error('the client closed the connection')));
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, { method: req.method, headers, body: JSON.stringify(body), signal: gone.signal });
}

async function pipe(answer: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  answer.headers.forEach((v, k) => (headers[k] = v));
  res.writeHead(answer.status, headers);
  if (!answer.body) return void res.end();
  const reader = answer.body.getReader();
  // The client gone, the SDK's stream is cancelled rather than read on for nobody.
  const stop = () => void reader.cancel().catch(() => undefined);
  res.once('close', stop);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done || res.destroyed) break;
      res.write(value);
    }
  } catch {
    // cancelled: the client went away
  } finally {
    res.off('close', stop);
  }
  res.end();
}

/** The list changes a subscriptions/listen stream carries, as the SDK's event bus names them. */
const BUS_EVENT: Record<string, 'tools_list_changed' | 'prompts_list_changed' | 'resources_list_changed'> = {
  'notifications/tools/list_changed': 'tools_list_changed',
  'notifications/prompts/list_changed': 'prompts_list_changed',
  'notifications/resources/list_changed': 'resources_list_changed',
};

interface Caller {
  gateway: Gateway;
  /** The SDK's entry for this caller alone: its listen streams hear this caller's upstream only. */
  sdk: McpHttpHandler;
  /** Requests (and listen streams) of this caller being served now. */
  active: number;
  idle?: ReturnType<typeof setTimeout>;
}

/** How long a 2026 caller's upstream connection outlives its last request (it never says it is done). */
export const DEFAULT_CALLER_IDLE_MS = 60_000;

export function modernListener(rt: GatewayRuntime, opts: { room(): boolean; idleMs?: number }): ModernListener {
  const gateways = new Map<string, Promise<Caller>>();
  const idleMs = opts.idleMs ?? DEFAULT_CALLER_IDLE_MS;
  const forget = (key: string, g: Promise<Caller>) => void (gateways.get(key) === g && gateways.delete(key));

  // A stateless caller never closes: once idle (no request, no listen stream, no call in flight or
  // parked), its upstream connection and its slot under --max-sessions are given back.
  const release = (key: string, g: Promise<Caller>, c: Caller) => {
    clearTimeout(c.idle);
    c.idle = setTimeout(() => {
      if (c.active > 0) return;
      if (c.gateway.pendingCalls() > 0) return release(key, g, c); // a parked call lapses on its own clock
      forget(key, g);
      void c.gateway.close();
    }, idleMs);
    c.idle.unref?.();
  };

  const open = async (caller: { principal: string; roles: string[] } | undefined): Promise<Caller> => {
    const gateway = await rt.start(undefined, { caller, era: 'modern' });
    const bus = new InMemoryServerEventBus();
    gateway.setNotificationSink((method, params) => {
      if (BUS_EVENT[method]) bus.publish({ kind: BUS_EVENT[method], params } as never);
      else if (method === 'notifications/resources/updated' && typeof params.uri === 'string') bus.publish({ kind: 'resource_updated', uri: params.uri, params } as never);
    });
    const sdk = createMcpHandler(() => gateway.modernServer() as never, { legacy: 'reject', bus, onerror: () => undefined });
    return { gateway, sdk, active: 0 };
  };

  const gatewayOf = async (caller: { principal: string; roles: string[] } | undefined): Promise<{ key: string; g: Promise<Caller>; c: Caller }> => {
    // A gateway decides under the roles it was opened with: keyed by them too, so a token of the
    // same subject with other roles (fewer, or more) never rides another token's gateway or handles.
    const key = caller ? JSON.stringify([caller.principal, [...caller.roles].sort()]) : rt.principal;
    for (;;) {
      let g = gateways.get(key);
      if (!g) {
        if (!opts.room()) throw Object.assign(new Error('too many callers hold an upstream connection; try again later'), { status: 503 });
        const opening = open(caller);
        g = opening;
        gateways.set(key, opening);
        opening.then(
          (c) => void c.gateway.closed.then(() => forget(key, opening)),
          () => forget(key, opening),
        );
      }
      const c = await g;
      if (c.gateway.isUpstreamOpen()) return { key, g, c };
      // Its upstream is gone (exited, crashed): that connection is given up and the caller gets a fresh one.
      forget(key, g);
      clearTimeout(c.idle);
      void c.gateway.close();
    }
  };

  return {
    size: () => gateways.size,
    async handle(req, res, body, caller) {
      const { key, g, c } = await gatewayOf(caller);
      c.active++;
      clearTimeout(c.idle);
      try {
        await serve(c, req, res, body, caller);
      } finally {
        if (--c.active === 0) release(key, g, c);
      }
    },
    async close() {
      await Promise.allSettled(
        [...gateways.values()].map(async (g) => {
          const c = await g;
          clearTimeout(c.idle);
          await c.gateway.close();
        }),
      );
    },
  };

  async function serve({ gateway, sdk }: Caller, req: IncomingMessage, res: ServerResponse, body: unknown, caller: { principal: string; roles: string[] } | undefined): Promise<void> {
    const claim = isObject(body) ? envelopeClaimOf(body.params) : undefined;
    const mismatch = mcpHeaderMismatch({ protocolVersion: header(req, 'mcp-protocol-version'), method: header(req, 'mcp-method'), name: header(req, 'mcp-name') }, body, typeof claim?.version === 'string' ? { version: claim.version } : undefined);
    if (mismatch) {
      const id = isObject(body) && (typeof body.id === 'string' || typeof body.id === 'number') ? body.id : null;
      const data: Record<string, unknown> = { code: 'ERR_HEADER_MISMATCH', header: mismatch.header, value: mismatch.value, body: mismatch.body };
      // A request is refused as a decision of its own (a signed deny, no interceptor run); a notification is only answered.
      if (id !== null && isObject(body) && typeof body.method === 'string') {
        const guard = { name: 'mcp-headers', record: { header: mismatch.header, value: mismatch.value === null ? null : recordedLabel(mismatch.value, MAX_RECORDED), body: mismatch.body === null ? null : recordedLabel(mismatch.body, MAX_RECORDED) }, deny: `refused before the chain: the ${mismatch.header} header disagrees with the request body (HeaderMismatch)` };
        try {
          const out = await gateway.refuse(body.method, liftEnvelope(body.params).params, guard);
          Object.assign(data, { seq: out.appended.seq, receipt: out.receipt });
        } catch (e) {
          return send(res, 503, { jsonrpc: '2.0', id, error: { code: JSONRPC.unavailable, message: (e as Error).message } });
        }
      }
      return send(res, 400, { jsonrpc: '2.0', id, error: { code: JSONRPC.headerMismatch, message: `Header mismatch: ${mismatch.reason}`, data } });
    }
    // subscriptions/listen is answered by the SDK's entry itself: decided here first, or refused.
    if (isObject(body) && body.method === 'subscriptions/listen' && body.id !== undefined) {
      const lifted = liftEnvelope(body.params);
      const out = await gateway.decideListen(isObject(lifted.params) ? lifted.params : {});
      if ('code' in out && typeof out.code === 'number' && 'message' in out) return send(res, 200, { jsonrpc: '2.0', id: body.id, error: out });
      body = { ...body, params: { ...out, ...(isObject(body.params) && isObject(body.params._meta) && { _meta: body.params._meta }) } };
    }
    const authInfo: AuthInfo = { token: '', clientId: caller?.principal ?? rt.principal, scopes: caller?.roles ?? [], extra: { [GATEWAY_KEY]: gateway } };
    await pipe(await sdk.fetch(webRequest(req, res, body), { parsedBody: body, authInfo }), res);
  }
}
