// The two far sides of a relayed request: the upstream server (through the SDK v2 Client, either
// MCP era) and the client (through the SDK v1 Server). Each send records the params exactly as
// handed to the transport, so the execution entry's digest is of what went on the wire, not of
// what we meant.
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY, type RequestOptions } from '@modelcontextprotocol/client';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ResultSchema, type JSONRPCMessage, type Progress, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { JSONRPC } from '../protocol/index.js';
import { GatewayError } from './gateway-errors.js';
import type { Forwarded, Peer } from './gateway-session.js';
import type { UpstreamClient } from './gateway-upstream.js';

type Rec = Record<string, unknown>;

/** What a request handler of the SDK gives us about the request being answered. */
export interface HandlerExtra {
  signal: AbortSignal;
  requestId: RequestId;
  sendNotification(n: { method: string; params?: Rec }): Promise<void>;
}

/** A transport seen from the gateway: requests captured as they leave, progress as it arrives. */
export interface Wire {
  /** Run `send` (which must hand one `method` request to the transport) and capture its params. */
  capture(method: string, send: () => Promise<unknown>): Forwarded;
  /** Route progress for a token the SDK put on the wire; returns the release. */
  onProgress(token: unknown, fn: (p: Progress) => void): () => void;
}

/**
 * Tap a transport (before the SDK connects it): Protocol.request hands the message to send()
 * synchronously, so the capture is exact and per call. Progress is read here, before the SDK:
 * the SDK handles notifications a microtask late, so the last progress of a request that
 * arrives with its response would otherwise be dropped as an unknown token.
 */
export function tapWire(transport: Pick<Transport, 'send' | 'onmessage'>, gateOutgoing?: Gate): Wire {
  let hook: ((m: JSONRPCMessage) => void) | undefined;
  const progress = new Map<unknown, (p: Progress) => void>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    hook?.(message);
    // The SDK writes notifications/cancelled itself (from the other side's cancellation): its reason
    // is the other side's text, so it is decided like any notification. Denied, the cancellation
    // still goes (stopping work is always safe), without the reason.
    if (gateOutgoing && 'method' in message && !('id' in message) && message.method === 'notifications/cancelled') {
      const { requestId } = (message.params ?? {}) as Rec;
      let sent: Promise<void> | undefined;
      const go = (params: Rec | undefined) => (sent ??= send({ ...message, params: params ?? { requestId } } as JSONRPCMessage, options));
      return gateOutgoing(message.method, message.params, go).then(go);
    }
    return send(message, options);
  };
  transport.onmessage = (m) => {
    if (!('method' in m) || 'id' in m || m.method !== 'notifications/progress') return;
    const { progressToken, ...p } = (m.params ?? {}) as Rec;
    progress.get(progressToken)?.(p as Progress);
  };
  return {
    capture(method, fn) {
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
    },
    onProgress(token, fn) {
      progress.set(token, fn);
      return () => progress.delete(token);
    },
  };
}

/** Benign SDK noise once progress is routed by the tap (see tapWire). */
export function isLateProgress(e: Error): boolean {
  return e.message.startsWith('Received a progress notification for an unknown token');
}

/**
 * The caller's progress token is replaced by the SDK's own on the next hop; progress that comes
 * back is re-keyed to the caller's token and sent on the caller's request.
 */
function progressRoute(params: Rec, extra: HandlerExtra, deps: PeerDeps): { params: Rec; forward?: (p: Progress) => void } {
  const onError = deps.onError;
  const meta = params._meta as Rec | undefined;
  if (!meta || !('progressToken' in meta)) return { params };
  const { progressToken: token, ...rest } = meta;
  const { _meta: _drop, ...body } = params;
  const out = Object.keys(rest).length ? { ...body, _meta: rest } : body;
  // Progress is a message like any other (its `message` is the far side's text): decided, then forwarded.
  const forward = (p: Progress) => {
    deps.gate('notifications/progress', p, (out) => extra.sendNotification({ method: 'notifications/progress', params: { ...out, progressToken: token } })).catch(onError);
  };
  return { params: out, forward };
}

/** Send through `wire`, asking the SDK for a progress token when the caller gave one, and route it. */
function sendRouted(deps: PeerDeps, method: string, params: Rec, extra: HandlerExtra, request: (params: Rec, onprogress?: () => void) => Promise<unknown>): Forwarded {
  const wire = deps.wire;
  const route = progressRoute(params, extra, deps);
  // onprogress (a no-op: the tap forwards) makes the SDK add its token and reset the timeout on progress.
  const sent = wire.capture(method, () => request(route.params, route.forward && (() => undefined)));
  const token = (sent.wire?._meta as Rec | undefined)?.progressToken;
  if (route.forward && token !== undefined) {
    const release = wire.onProgress(token, route.forward);
    sent.result.then(release, release);
  }
  return sent;
}

/** Decide a notification arriving from this peer: the params to forward, or undefined (not forwarded). */
export type Gate = (method: string, params: unknown, deliver?: (params: Rec) => Promise<unknown>) => Promise<Rec | undefined>;

export interface PeerDeps {
  wire: Wire;
  timeoutMs: number;
  onError: (e: unknown) => void;
  /** Decides notifications that arrive from this peer (progress on a relayed request). */
  gate: Gate;
}

// Loose: the SDK would strip result fields its schema does not know; a proxy must not.
const ANY_RESULT = z.looseObject({});

/** The 2026 `_meta` envelope the SDK adds to each request: the gateway naming itself (version, capabilities, name). */
const ENVELOPE_KEYS = [PROTOCOL_VERSION_META_KEY, CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY];

/**
 * The wire params without the envelope keys the SDK added (ones the intent did not carry): like
 * the progress token, they are the hop's own framing, not what the call asked for, so they are
 * neither drift nor executed parameters. Keys the intent carried stay, whatever the SDK did to them.
 */
function withoutEnvelope(wire: Rec, intent: Rec): Rec {
  const meta = wire._meta as Rec | undefined;
  const asked = (intent._meta ?? {}) as Rec;
  const added = meta ? ENVELOPE_KEYS.filter((k) => k in meta && !(k in asked)) : [];
  if (!added.length) return wire;
  const kept = { ...meta };
  for (const k of added) delete kept[k];
  const { _meta: _drop, ...body } = wire;
  return Object.keys(kept).length || '_meta' in intent ? { ...body, _meta: kept } : body;
}

export function upstreamPeer(client: UpstreamClient, serverName: string, method: string, extra: HandlerExtra, deps: PeerDeps): Peer {
  return {
    name: `upstream server "${serverName}"`,
    send(params, authorization) {
      const sent = sendRouted(deps, method, params, extra, (p, onprogress) => {
        const options: RequestOptions = {
          signal: extra.signal, // the client's cancellation reaches the upstream (notifications/cancelled, or a closed 2026 stream)
          timeout: deps.timeoutMs, // per round trip: a 2026 call's input rounds each get it
          resetTimeoutOnProgress: true,
          onprogress,
        };
        const request = (o: RequestOptions) => client.request({ method, params: p } as never, ANY_RESULT, o);
        // What the upstream asks to fulfil this call (2026 input requests) is decided as part of it.
        return authorization === undefined ? request(options) : client.requestForCall({ seq: authorization, requestId: extra.requestId }, request, options);
      });
      return sent.wire ? { ...sent, wire: withoutEnvelope(sent.wire, params) } : sent;
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
      return sendRouted(deps, method, params, extra, (p, onprogress) =>
        server.request({ method, params: p } as never, ResultSchema, {
          signal: extra.signal,
          timeout: deps.timeoutMs,
          resetTimeoutOnProgress: true,
          onprogress,
          relatedRequestId: related(),
        }),
      );
    },
  };
}
