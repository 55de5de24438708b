// The gateway's downstream side for MCP 2026-07-28 clients (issue 36): an SDK v2 Server (its
// era codec stamps resultType and serverInfo, answers server/discover, checks the `_meta`
// envelope) whose handlers relay each request through the chain as the 2025 side does
// (gateway-relay.ts). Calls that may need input (tools/call, prompts/get, resources/read) run
// through the bridge (gateway-bridge.ts): the upstream's requests made during the call reach the
// client as `input_required` rounds. Listings are per principal: `cacheScope: "private"`, always.
import { ProtocolError, Server, type ServerContext } from '@modelcontextprotocol/server';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Implementation, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { claimedClientOf, ENVELOPE_META, JSONRPC, SERVER_INFO_META } from '../protocol/index.js';
import { bindingOf, type InputBridge } from './gateway-bridge.js';
import { GatewayError } from './gateway-errors.js';
import { SEQ_META } from './gateway-receipts.js';
import type { HandlerExtra } from './gateway-peers.js';
import type { ClaimedClient } from '../protocol/index.js';

type Rec = Record<string, unknown>;

/** The 2026 requests whose handler may answer `input_required` (mrtr.mdx). */
export const MRTR_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);
/** Listings the gateway filters per principal (pins, discovery filter): never for a shared cache. */
const LISTS: ReadonlySet<string> = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);
/** The 2026 results a client or intermediary may cache (the SDK fills ttlMs/cacheScope on these): each was decided for one principal. */
const CACHEABLE: ReadonlySet<string> = new Set([...LISTS, 'resources/read']);
export const MODERN_LIST_CACHE = Object.freeze({ ttlMs: 0, cacheScope: 'private' as const });
/** The `requestState` a client may echo: the gateway mints 32 characters; anything much longer is not one of its. */
const MAX_REQUEST_STATE = 1024;

/** What one 2026 request brings beside its params: who the client says it is, and what it can do. */
export interface ModernCall {
  extra: HandlerExtra;
  clientInfo?: ClaimedClient;
  protocolVersion?: string;
  /** Told the call's request-phase seq once it is decided (the bridge links the upstream's asks to it). */
  onAuthorized?: (seq: number) => void;
}

export interface ModernCore {
  serverInfo: Implementation;
  capabilities: ServerCapabilities;
  instructions?: string;
  /** The forwarded methods (gateway.ts FORWARDED, for the upstream's capabilities). */
  methods: string[];
  /** Who calls: the principal the handle of a parked call is bound to. */
  owner: string;
  bridge: InputBridge;
  /**
   * Relay one client request through the chain to the upstream (gateway-relay.ts). `call.extra.signal`
   * must be the relay's own: whatever aborts it cancels the request upstream.
   */
  relay(method: string, params: Rec, call: ModernCall): Promise<Rec>;
}

// Built once: the SDK's spec schemas would strip params fields they do not know; a proxy must not.
const ANY_PARAMS = z.looseObject({});

/** Errors as the SDK frames them on the wire ({code, message, data}). */
function framed(e: unknown): unknown {
  if (e instanceof GatewayError) return new ProtocolError(e.code, e.message, e.data);
  return e;
}

/** A deterministic listing: by name (then uri), so pins, caches and two clients agree on one order. */
function sorted(method: string, result: Rec): Rec {
  const key = method === 'tools/list' ? 'tools' : method === 'prompts/list' ? 'prompts' : method === 'resources/list' ? 'resources' : 'resourceTemplates';
  const items = result[key];
  if (!Array.isArray(items)) return result;
  const name = (v: unknown) => (typeof v === 'object' && v !== null ? String((v as Rec).name ?? (v as Rec).uri ?? (v as Rec).uriTemplate ?? '') : '');
  return { ...result, [key]: [...items].sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0)) };
}

/**
 * A 2025 upstream's answer as a 2026 client gets it. The members that steer the client's protocol
 * layer are the gateway's alone: a `resultType` other than "complete" would open a round (a form
 * or a sampling no decision saw as such) or name a task no handle reaches, so it is refused; a
 * cacheable answer is private with no ttl (it was decided for this principal); the serverInfo
 * stamp is the gateway's own. The answer was decided and recorded before this (its seq is named).
 */
function ownEnvelope(method: string, result: Rec): Rec {
  const { resultType, ttlMs: _ttl, cacheScope: _scope, ...rest } = result;
  const meta = typeof rest._meta === 'object' && rest._meta !== null ? (rest._meta as Rec) : undefined;
  // The members only a 2026 round or a task has: the SDK v2 client on the 2025 era drops a
  // `resultType` it does not expect, so the rest of such an answer is refused by its shape too.
  const shaped = ['inputRequests', 'requestState', 'task'].some((k) => k in rest);
  if ((resultType !== undefined && resultType !== 'complete') || shaped) {
    throw new GatewayError(JSONRPC.internalError, `the upstream answered ${method} with a resultType other than "complete": a 2025 server cannot ask the client for input or open a task through the gateway; nothing was forwarded`, { code: 'ERR_UPSTREAM_RESULT', ...(meta && typeof meta[SEQ_META] === 'number' && { seq: meta[SEQ_META] }) });
  }
  if (meta && SERVER_INFO_META in meta) {
    const { [SERVER_INFO_META]: _claimed, ...own } = meta;
    rest._meta = own;
  }
  return CACHEABLE.has(method) ? { ...rest, ...MODERN_LIST_CACHE } : rest;
}

/**
 * `run` under a signal that follows `outer` only until `run` settles. The SDK v2 aborts a request's
 * signal when its exchange ends (its HTTP entry, once the answer is written); the v1 client relaying
 * it would then send a late notifications/cancelled upstream for a request already answered.
 */
function scoped<T>(outer: AbortSignal, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const inner = new AbortController();
  const follow = () => inner.abort(outer.reason);
  if (outer.aborted) follow();
  else outer.addEventListener('abort', follow, { once: true });
  return run(inner.signal).finally(() => outer.removeEventListener('abort', follow));
}

function callOf(ctx: ServerContext): ModernCall {
  const envelope = (ctx.mcpReq.envelope ?? {}) as Rec;
  const v = envelope[ENVELOPE_META.protocolVersion];
  const clientInfo = claimedClientOf(envelope[ENVELOPE_META.clientInfo]);
  return {
    extra: { signal: ctx.mcpReq.signal, requestId: ctx.mcpReq.id, sendNotification: (n) => ctx.mcpReq.notify(n as never) },
    ...(clientInfo && { clientInfo }),
    ...(typeof v === 'string' && { protocolVersion: v }),
  };
}

/** One v2 Server over the gateway's core: what a 2026 client connects to (stdio) or each request is served by (HTTP). */
export function modernGatewayServer(core: ModernCore): Server {
  const server = new Server(core.serverInfo, { capabilities: core.capabilities as never, instructions: core.instructions });
  for (const method of core.methods) {
    server.setRequestHandler(method, { params: ANY_PARAMS }, async (params: Rec, ctx: ServerContext) => {
      try {
        const call = callOf(ctx);
        if (MRTR_METHODS.has(method)) return (await bridged(core, method, params, ctx, call)) as never;
        const result = ownEnvelope(method, await scoped(ctx.mcpReq.signal, (signal) => core.relay(method, params, { ...call, extra: { ...call.extra, signal } })));
        return (LISTS.has(method) ? sorted(method, result) : result) as never;
      } catch (e) {
        throw framed(e);
      }
    });
  }
  return server;
}

/**
 * One round of a call that may need input: a first request starts the relay; a retry (its
 * `requestState` a handle the gateway minted) brings the answers of the last round. Either way the
 * client gets the next thing: the result, or the requests the upstream made since.
 */
async function bridged(core: ModernCore, method: string, params: Rec, ctx: ServerContext, call: ModernCall): Promise<Rec> {
  const state = ctx.mcpReq.requestState<unknown>();
  const binding = bindingOf(method, params);
  let bridgedCall;
  if (state !== undefined) {
    if (typeof state !== 'string' || state.length > MAX_REQUEST_STATE) throw new GatewayError(JSONRPC.invalidParams, 'Invalid or expired requestState: it is not one this gateway issued', { code: 'ERR_REQUEST_STATE' });
    bridgedCall = core.bridge.resume(state, core.owner, binding);
    bridgedCall.answer(ctx.mcpReq.inputResponses);
  } else {
    const capabilities = ((ctx.mcpReq.envelope ?? {}) as Rec)[ENVELOPE_META.clientCapabilities];
    const caps = typeof capabilities === 'object' && capabilities !== null ? (capabilities as Rec) : {};
    // The upstream request lives as long as the call, not as this round's exchange: under the call's
    // own signal (aborted only when the call is given up or a waiting round is cancelled), not scoped again.
    const opened = core.bridge.open(core.owner, binding, caps, (signal) => core.relay(method, params, { ...call, extra: { ...call.extra, signal }, onAuthorized: (seq) => (opened.seq = seq) }));
    bridgedCall = opened;
  }
  const next = await bridgedCall.next(ctx.mcpReq.signal);
  if ('result' in next) return ownEnvelope(method, next.result);
  const requestState = core.bridge.park(bridgedCall);
  const inputRequests = Object.fromEntries(next.asked.map((a) => [a.key, { method: a.method, params: a.params }]));
  return { resultType: 'input_required', inputRequests, requestState };
}

/** A request the client sent, refused before the SDK saw it: the JSON-RPC error it gets instead. */
export type Refusal = { code: number; message: string; data?: unknown };

/**
 * The client side of a 2026 stdio connection, with `subscriptions/listen` decided before the SDK
 * opens the stream (the SDK answers it itself, so no handler of ours would see it): allowed, the
 * request goes on as the chain left its params; denied or unrecorded, the client gets the error.
 * Messages keep their order: each waits for the decision before it.
 */
export function gateListen(inner: Transport, decide: (params: Rec) => Promise<Rec | Refusal>): Transport {
  let queue: Promise<unknown> = Promise.resolve();
  const outer: Transport = {
    start: () => inner.start(),
    send: (m, o) => inner.send(m, o),
    close: () => inner.close(),
    get sessionId() {
      return inner.sessionId;
    },
    setProtocolVersion: (v: string) => inner.setProtocolVersion?.(v),
  };
  inner.onclose = () => outer.onclose?.();
  inner.onerror = (e) => outer.onerror?.(e);
  inner.onmessage = (message, extra) => {
    const m = message as { id?: string | number; method?: string; params?: unknown };
    if (m.method !== 'subscriptions/listen' || m.id === undefined) {
      queue = queue.then(() => outer.onmessage?.(message, extra));
      return;
    }
    queue = queue.then(async () => {
      const out = await decide(typeof m.params === 'object' && m.params !== null ? (m.params as Rec) : {});
      if ('code' in out && typeof out.code === 'number' && 'message' in out) {
        await inner.send({ jsonrpc: '2.0', id: m.id!, error: out as Refusal } as never);
      } else outer.onmessage?.({ ...message, params: out } as never, extra);
    });
  };
  return outer;
}
