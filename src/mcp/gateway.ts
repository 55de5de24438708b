// The MCP gateway over any SDK transports: an SDK v2 Client to the upstream server (either MCP
// era: gateway-upstream.ts), an SDK v1 Server for the client. Every message that crosses, either
// way, goes through the chain of its way and is signed: requests and their answers
// (gateway-relay.ts), notifications, progress and cancellation (gateway-notify.ts), and the
// upstream's initialize answer or 2026 discover result (its name and instructions).
import type { Transport as UpstreamTransport } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Implementation, RequestId, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { systemClock, type Clock } from '../clock.js';
import type { ActivePolicy, Wait } from '../decide/index.js';
import type { DriftRules, ExecutionLog } from '../execution/index.js';
import { clientPeer, isLateProgress, tapWire, upstreamPeer, type ClientCapability, type HandlerExtra, type PeerDeps } from './gateway-peers.js';
import { unavailableError } from './gateway-errors.js';
import { decideInitialize, gateNotification } from './gateway-notify.js';
import { relayRequest, type RelaySession } from './gateway-relay.js';
import { SessionPins, type ToolPins } from './tool-pins.js';
import { connectFailure, createUpstreamClient, currentCall, DEFAULT_UPSTREAM_ERA, listenForListChanges, type EraMemo, type UpstreamClient, type UpstreamEra } from './gateway-upstream.js';

export { GATEWAY_CLIENT_OPTIONS } from './gateway-upstream.js';

export const DEFAULT_GATEWAY_TIMEOUT_MS = 300_000;

export interface GatewayOptions {
  /** What each forwarded request's decisions wait for (gateway-relay.ts): "durable" or "signed" (default). */
  wait?: Wait;
  /** Transport to the upstream MCP server (not yet started). */
  upstream: UpstreamTransport;
  /** Which MCP era to speak upstream (default auto: probe with server/discover, else 2025 initialize). */
  upstreamEra?: UpstreamEra;
  /** With `auto` over stdio: how long the server/discover probe waits (gateway-upstream.ts). */
  probeTimeoutMs?: number;
  /** The era this run's upstream was found to speak: a session after the first connects without a probe. */
  eraMemo?: EraMemo;
  /** Transport to the client (not yet started). */
  downstream: Transport;
  /** The upstream's name for policy (`context.server`) and entries. */
  serverName: string;
  /** The chain for client requests; `serverPolicy` its mirror for server requests (see gateway-policy.ts). */
  policy: ActivePolicy;
  serverPolicy: ActivePolicy;
  /** The tenant's log: appends, and reads back the authorization an execution entry links to. */
  log: ExecutionLog;
  tenant: string;
  principal: string;
  roles?: string[];
  clock?: Clock;
  sessionId?: string;
  drift?: DriftRules;
  /** Per forwarded request, reset by progress (default 300 s). */
  timeoutMs?: number;
  /** Structured diagnostics (never on stdout: over stdio, stdout is the protocol). */
  onLine?: (line: Record<string, unknown>) => void;
  /** Pinned tool definitions of this upstream (tool-pins.ts); absent: no pinning. */
  toolPins?: ToolPins;
}

export interface Gateway {
  serverName: string;
  sessionId: string;
  /** What the upstream said about itself, and the capabilities offered to the client. */
  upstreamInfo?: Implementation;
  capabilities: ServerCapabilities;
  client: UpstreamClient;
  server: Server;
  isUpstreamOpen(): boolean;
  /** Settles when the client side closes (or close() was called). */
  closed: Promise<void>;
  /** Close both sides and wait for requests in flight to finish recording. */
  close(): Promise<void>;
}

/** Client requests forwarded for each upstream capability; anything else the gateway does not relay. */
export const FORWARDED: [Exclude<keyof ServerCapabilities, 'tasks'>, string[]][] = [
  ['tools', ['tools/list', 'tools/call']],
  ['prompts', ['prompts/list', 'prompts/get']],
  ['resources', ['resources/list', 'resources/templates/list', 'resources/read']],
  ['completions', ['completion/complete']],
  ['logging', ['logging/setLevel']],
];
export const SERVER_REQUESTS: [string, ClientCapability][] = [
  ['sampling/createMessage', 'sampling'],
  ['elicitation/create', 'elicitation'],
  ['roots/list', 'roots'],
];

// Loose request schemas: the SDK would strip params fields it does not know; a proxy must not.
const anyRequest = (method: string) => z.object({ method: z.literal(method), params: z.unknown().optional() }).passthrough();
const ANY_PARAMS = z.looseObject({});
const ANY_RESULT = z.looseObject({});

export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  const line = opts.onLine ?? (() => undefined);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_GATEWAY_TIMEOUT_MS;
  const sessionId = opts.sessionId ?? opts.downstream.sessionId ?? crypto.randomUUID();
  const inflight = new Set<Promise<unknown>>();
  const clientRequests = new Set<RequestId>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    inflight.add(p);
    p.then(() => inflight.delete(p), () => inflight.delete(p));
    return p;
  };
  const session: RelaySession = {
    policy: opts.policy,
    serverPolicy: opts.serverPolicy,
    log: opts.log,
    clock: opts.clock ?? systemClock,
    tenant: opts.tenant,
    principal: opts.principal,
    roles: opts.roles ?? [],
    server: opts.serverName,
    sessionId,
    drift: opts.drift,
    wait: opts.wait,
    timeoutMs,
    onHookError: (name, e) => line({ msg: 'commit hook failed', interceptor: name, error: String(e) }),
    background: (what, p) => void track(p).catch((e) => line({ msg: `${what} could not be recorded`, error: String(e) })),
    // Decisions the upstream asked for: the receipts stay here (in the log), the operator sees the seqs.
    onDecided: (d) => line({ msg: d.denied ? 'denied, not forwarded' : 'decided for the upstream', ...d }),
  };
  const gate =
    (flow: 'client-to-server' | 'server-to-client') =>
    (method: string, params: unknown, deliver?: (params: Record<string, unknown>) => Promise<unknown>) =>
      track(gateNotification(session, flow, method, params, deliver));
  const onError = (e: unknown) => line({ msg: 'gateway notification failed', error: String(e) });

  // ---- upstream: the gateway is its client, offering what a client can (forwarded only if the real client can)
  const era = opts.upstreamEra ?? DEFAULT_UPSTREAM_ERA;
  const client = createUpstreamClient(era, opts.upstream, opts.probeTimeoutMs);
  let upstreamOpen = true;
  let clientInitialized!: () => void;
  const initialized = new Promise<void>((r) => (clientInitialized = r));
  let server: Server | undefined;
  // Upstream side: what it sends comes down (server-to-client); what we send it goes up. Client side: the reverse.
  const upDeps: PeerDeps = { wire: tapWire(opts.upstream, gate('client-to-server')), timeoutMs, onError, gate: gate('server-to-client') };
  const downDeps: PeerDeps = { wire: tapWire(opts.downstream, gate('server-to-client')), timeoutMs, onError, gate: gate('client-to-server') };
  const related = () => (clientRequests.size === 1 ? [...clientRequests][0] : undefined);

  // One handler each, for both eras: a 2025 server's own request, and each input request of a 2026
  // server's input_required result (the SDK's driver calls the same handler, then retries the call).
  for (const [method, capability] of SERVER_REQUESTS) {
    client.setRequestHandler(method, { params: ANY_PARAMS }, (params, ctx) => {
      const call = currentCall(); // the client call this request was made for, when known
      // Its own signal: a 2026 round's asks share one (up to MAX_INPUT_REQUESTS listeners on it otherwise).
      const extra: HandlerExtra = { signal: AbortSignal.any([ctx.mcpReq.signal]), requestId: ctx.mcpReq.id, sendNotification: (n) => ctx.mcpReq.notify(n as never) };
      const relatedTo = () => call?.requestId ?? related();
      return track(
        (async () => {
          await waitFor(initialized, extra.signal); // the upstream may ask before the client finished initializing
          return relayRequest(session, 'server-to-client', method, params, clientPeer(server!, method, capability, extra, relatedTo, downDeps), call?.seq);
        })(),
      );
    });
  }
  let closing: Promise<void> | undefined;
  client.onclose = () => {
    upstreamOpen = false;
    if (!closing) line({ msg: 'upstream closed', server: opts.serverName });
  };
  client.onerror = (e) => isLateProgress(e) || line({ msg: 'upstream transport error', server: opts.serverName, error: e.message });
  if (opts.toolPins) session.pins = new SessionPins(opts.toolPins, () => listUpstreamTools(client, timeoutMs), sessionId);
  // The protocol version the upstream negotiated: every decision records it (compat skipping).
  const setProtocolVersion = opts.upstream.setProtocolVersion?.bind(opts.upstream);
  opts.upstream.setProtocolVersion = (v: string) => {
    session.protocolVersion = v;
    setProtocolVersion?.(v);
  };
  try {
    await client.connect(opts.upstream, { timeout: Math.min(timeoutMs, 60_000), prior: opts.eraMemo?.prior });
    opts.eraMemo?.remember(client);
  } catch (e) {
    await client.close().catch(() => undefined);
    throw unavailableError(`upstream server "${opts.serverName}"`, `cannot connect: ${connectFailure(era, e)}`);
  }
  session.protocolVersion ??= client.getNegotiatedProtocolVersion();

  // ---- the upstream's initialize answer crosses too: its name and instructions (text the client's
  // model reads) are decided and redacted like any answer, before the client sees them.
  let welcome: { capabilities: ServerCapabilities; serverInfo?: Implementation; instructions?: string };
  try {
    // From initialize (2025) or server/discover (2026): what the client is told at its initialize either way.
    welcome = await decideInitialize(session, { capabilities: client.getServerCapabilities() as ServerCapabilities | undefined, serverInfo: client.getServerVersion() as Implementation | undefined, instructions: client.getInstructions() });
  } catch (e) {
    await client.close().catch(() => undefined);
    throw e;
  }
  // ---- downstream: the upstream's own capabilities, name and instructions, minus what is not relayed
  const { tasks: _tasks, ...capabilities } = welcome.capabilities;
  const upstreamInfo = welcome.serverInfo;
  const name = upstreamInfo?.name ?? opts.serverName;
  server = new Server(
    { name, version: upstreamInfo?.version ?? '0.0.0', title: `${upstreamInfo?.title ?? name} (via vouch gateway)` },
    { capabilities, instructions: welcome.instructions },
  );
  const methods = FORWARDED.flatMap(([cap, ms]) => (capabilities[cap] ? ms : []));
  if (capabilities.resources?.subscribe) methods.push('resources/subscribe', 'resources/unsubscribe');
  for (const method of methods) {
    server.setRequestHandler(anyRequest(method), (req, extra) => {
      if (!upstreamOpen) throw unavailableError(`upstream server "${opts.serverName}"`, 'it has exited or closed the connection');
      clientRequests.add(extra.requestId);
      const p = relayRequest(session, 'client-to-server', method, req.params, upstreamPeer(client, opts.serverName, method, extra as HandlerExtra, upDeps));
      return track(p).finally(() => clientRequests.delete(extra.requestId)) as never;
    });
  }
  server.oninitialized = () => clientInitialized();
  // Notifications (logging, list_changed, resources/updated, roots/list_changed) are decided on the
  // chain of their way and forwarded as the chain left them; a denied one is dropped (and recorded).
  const toClient = gate('server-to-client');
  const toUpstream = gate('client-to-server');
  client.fallbackNotificationHandler = async (n) => {
    if (n.method === 'notifications/tools/list_changed') session.pins?.invalidate(); // the next call re-lists
    const relatedRequestId = related();
    await toClient(n.method, n.params, (params) => server!.notification({ method: n.method, params } as never, { relatedRequestId }).catch(onError));
  };
  server.fallbackNotificationHandler = async (n) => {
    await toUpstream(n.method, n.params, async (params) => {
      if (upstreamOpen) await client.notification({ method: n.method, params } as never).catch(onError);
    });
  };

  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const shutdown = async () => {
    await null; // let `closing` be set before the transports' onclose call back into close()
    await server!.close().catch(onError);
    await client.close().catch(onError);
    await Promise.allSettled([...inflight]);
    resolveClosed();
  };
  const close = () => (closing ??= shutdown());
  server.onclose = () => void close();
  server.onerror = (e) => isLateProgress(e) || line({ msg: 'client transport error', error: e.message });
  try {
    await server.connect(opts.downstream);
  } catch (e) {
    await client.close().catch(() => undefined); // no client side: do not leave the upstream running
    throw e;
  }
  line({ msg: 'gateway session open', server: opts.serverName, session: sessionId, upstream: upstreamInfo?.name, protocolVersion: session.protocolVersion, methods });
  // 2026: list changes come only on a listen stream (closed with the client); a refusal is a diagnostic.
  void listenForListChanges(client).catch((e) => line({ msg: 'upstream refused subscriptions/listen: list changes will not reach the client', server: opts.serverName, error: String(e) }));

  return { serverName: opts.serverName, sessionId, upstreamInfo, capabilities, client, server, isUpstreamOpen: () => upstreamOpen, closed, close };
}

/** Every page of the upstream's tools/list, as sent (loose schema: the digest is of what the server said). */
async function listUpstreamTools(client: UpstreamClient, timeoutMs: number): Promise<Record<string, unknown>[]> {
  const tools: Record<string, unknown>[] = [];
  let cursor: unknown;
  for (let page = 0; page < 1000; page++) {
    const r = (await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } } as never, ANY_RESULT, { timeout: timeoutMs })) as Record<string, unknown>;
    if (Array.isArray(r.tools)) tools.push(...(r.tools as Record<string, unknown>[]));
    cursor = r.nextCursor;
    if (typeof cursor !== 'string') return tools;
  }
  throw new Error('the upstream tools/list did not end after 1000 pages');
}

function waitFor(p: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    p.then(resolve);
  });
}
