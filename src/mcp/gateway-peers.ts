// The two far sides of a relayed request: the upstream server (through the SDK Client) and the
// client (through the SDK Server). Each send records the params exactly as handed to the
// transport, so the execution entry's digest is of what went on the wire, not of what we meant.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ResultSchema, type JSONRPCMessage, type Progress, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { JSONRPC } from '../http/errors.js';
import { GatewayError } from './gateway-errors.js';
import type { Forwarded, Peer } from './gateway-relay.js';

type Rec = Record<string, unknown>;

/** What a request handler of the SDK gives us about the request being answered. */
export interface HandlerExtra {
  signal: AbortSignal;
  requestId: RequestId;
  sendNotification(n: { method: string; params?: Rec }): Promise<void>;
}

export type Capture = (method: string, send: () => Promise<unknown>) => Forwarded;

/**
 * Wrap a transport's send so a request's params can be captured as they leave. Protocol.request
 * hands the message to the transport synchronously, so the capture is exact and per call.
 */
export function tapRequests(transport: Transport): Capture {
  let hook: ((m: JSONRPCMessage) => void) | undefined;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    hook?.(message);
    return send(message, options);
  };
  return (method, fn) => {
    let wire: Rec | undefined;
    hook = (m) => {
      if (wire === undefined && 'method' in m && 'id' in m && m.method === method) wire = (m.params ?? {}) as Rec;
    };
    try {
      const result = fn() as Promise<Rec>;
      return { wire, result };
    } finally {
      hook = undefined;
    }
  };
}

/**
 * The caller's progress token is replaced by the SDK's own on the next hop; progress that comes
 * back is re-keyed to the caller's token and sent on the caller's request.
 */
function progressRoute(params: Rec, extra: HandlerExtra, onError: (e: unknown) => void): { params: Rec; onprogress?: (p: Progress) => void } {
  const meta = params._meta as Rec | undefined;
  if (!meta || !('progressToken' in meta)) return { params };
  const { progressToken: token, ...rest } = meta;
  const { _meta: _drop, ...body } = params;
  const out = Object.keys(rest).length ? { ...body, _meta: rest } : body;
  const onprogress = (p: Progress) => {
    extra.sendNotification({ method: 'notifications/progress', params: { ...p, progressToken: token } }).catch(onError);
  };
  return { params: out, onprogress };
}

export interface PeerDeps {
  capture: Capture;
  timeoutMs: number;
  onError: (e: unknown) => void;
}

export function upstreamPeer(client: Client, serverName: string, method: string, extra: HandlerExtra, deps: PeerDeps): Peer {
  return {
    name: `upstream server "${serverName}"`,
    send(params) {
      const route = progressRoute(params, extra, deps.onError);
      return deps.capture(method, () =>
        client.request({ method, params: route.params } as never, ResultSchema, {
          signal: extra.signal, // the client's cancellation becomes notifications/cancelled upstream
          timeout: deps.timeoutMs,
          resetTimeoutOnProgress: true,
          onprogress: route.onprogress,
        }),
      );
    },
  };
}

export type ClientCapability = 'sampling' | 'elicitation' | 'roots';

/** `related` names the client request this one belongs to, when it can be told (Streamable HTTP routing). */
export function clientPeer(server: Server, method: string, capability: ClientCapability, extra: HandlerExtra, related: () => RequestId | undefined, deps: PeerDeps): Peer {
  return {
    name: 'the client',
    send(params) {
      if (!server.getClientCapabilities()?.[capability]) {
        throw new GatewayError(JSONRPC.methodNotFound, `the client did not declare the ${capability} capability; ${method} was not forwarded`);
      }
      const route = progressRoute(params, extra, deps.onError);
      return deps.capture(method, () =>
        server.request({ method, params: route.params } as never, ResultSchema, {
          signal: extra.signal,
          timeout: deps.timeoutMs,
          resetTimeoutOnProgress: true,
          onprogress: route.onprogress,
          relatedRequestId: related(),
        }),
      );
    },
  };
}
