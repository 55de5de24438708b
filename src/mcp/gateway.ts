// The MCP gateway over any SDK transports: an SDK v2 Client to the upstream server (either MCP
// era: gateway-upstream.ts), an SDK v1 Server for the client. Every message that crosses, either
// way, goes through the chain of its way and is signed: requests and their answers
// (gateway-relay.ts), notifications, progress and cancellation (gateway-notify.ts), and the
// upstream's initialize answer or 2026 discover result (its name and instructions).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Server as ModernServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Implementation, RequestId, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { systemClock } from '../clock.js';
import { recordedLabel } from '../interceptors/builtin/recorded-text.js';
import { MAX_CLIENT_FIELD, PROTOCOL_VERSION } from '../protocol/index.js';
import { InputBridge } from './gateway-bridge.js';
import { decideOrThrow } from './gateway-decision.js';
import { routeByEra, type DownstreamEra } from './gateway-era.js';
import { unavailableError } from './gateway-errors.js';
import { decideListen } from './gateway-listen.js';
import { ANY_PARAMS, anyRequest, FORWARDED, SERVER_REQUESTS } from './gateway-methods.js';
import { gateListen, modernGatewayServer, type ModernCall, type ModernCore } from './gateway-modern.js';
import { decideInitialize, gateNotification } from './gateway-notify.js';
import { clientPeer, isLateProgress, tapWire, upstreamPeer, type HandlerExtra, type PeerDeps } from './gateway-peers.js';
import { relayRequest } from './gateway-relay.js';
import { contextOf, type Peer, type RelaySession } from './gateway-session.js';
import { listUpstreamTools } from './gateway-tools-list.js';
import type { Gateway, GatewayOptions } from './gateway-types.js';
import { connectFailure, createUpstreamClient, currentCall, DEFAULT_UPSTREAM_ERA, listenForListChanges } from './gateway-upstream.js';
import { waitFor } from './gateway-wait-for.js';
import { SessionPins } from './tool-pins.js';

export { GATEWAY_CLIENT_OPTIONS } from './gateway-upstream.js';

export const DEFAULT_GATEWAY_TIMEOUT_MS = 300_000;

export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  const line = opts.onLine ?? (() => undefined);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_GATEWAY_TIMEOUT_MS;
  const sessionId = opts.sessionId ?? opts.downstream?.sessionId ?? crypto.randomUUID();
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
    evidence: opts.evidence,
    timeoutMs,
    onHookError: (name, e) => line({ level: 'error', msg: 'commit hook failed', interceptor: name, error: String(e) }),
    background: (what, p) => void track(p).catch((e) => line({ level: 'error', msg: `${what} could not be recorded`, error: String(e) })),
    // Decisions the upstream asked for: the receipts stay here (in the log), the operator sees the seqs.
    onDecided: (d) => line({ msg: d.denied ? 'denied, not forwarded' : 'decided for the upstream', ...d }),
  };
  const gate =
    (flow: 'client-to-server' | 'server-to-client') =>
    (method: string, params: unknown, deliver?: (params: Record<string, unknown>) => Promise<unknown>) =>
      track(gateNotification(session, flow, method, params, deliver));
  const onError = (e: unknown) => line({ level: 'warn', msg: 'gateway notification failed', error: String(e) });

  // ---- upstream: the gateway is its client, offering what a client can (forwarded only if the real client can)
  const upstreamEra = opts.upstreamEra ?? DEFAULT_UPSTREAM_ERA;
  const client = createUpstreamClient(upstreamEra, opts.upstream, opts.probeTimeoutMs);
  let upstreamOpen = true;
  let clientInitialized!: () => void;
  const initialized = new Promise<void>((r) => (clientInitialized = r));
  let server: Server | undefined;
  // Upstream side: what it sends comes down (server-to-client); what we send it goes up. Client side: the reverse.
  const upDeps: PeerDeps = { wire: tapWire(opts.upstream, gate('client-to-server')), timeoutMs, onError, gate: gate('server-to-client') };
  // The downstream's era: told by its first message (gateway-era.ts), or by the caller; none: 2026 by request.
  const router = opts.downstream && !opts.era ? routeByEra(opts.downstream) : undefined;
  const downstream = router?.transport ?? opts.downstream;
  const eraKnown: Promise<DownstreamEra> = opts.era ? Promise.resolve(opts.era) : router ? router.era : Promise.resolve('modern');
  let era: DownstreamEra | undefined;
  void eraKnown.then((e) => (era = e), () => undefined);
  const downDeps: PeerDeps | undefined = downstream && { wire: tapWire(downstream, gate('server-to-client')), timeoutMs, onError, gate: gate('client-to-server') };
  const bridge = new InputBridge(timeoutMs);
  // A 2026 client is asked only within a call: the upstream's request goes to the call it belongs to.
  const bridgePeer = (method: string): Peer => ({ name: 'the client', send: (params) => bridge.current(method).peer(method).send(params) });
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
          if ((await waitFor(eraKnown, extra.signal)) === 'modern') return relayRequest(session, 'server-to-client', method, params, bridgePeer(method), call?.seq ?? bridge.currentSeq());
          await waitFor(initialized, extra.signal); // the upstream may ask before the client finished initializing
          return relayRequest(session, 'server-to-client', method, params, clientPeer(server!, method, capability, extra, relatedTo, downDeps!), call?.seq);
        })(),
      );
    });
  }
  let closing: Promise<void> | undefined;
  client.onclose = () => {
    upstreamOpen = false;
    if (!closing) line({ level: 'warn', msg: 'upstream closed', server: opts.serverName });
  };
  client.onerror = (e) => isLateProgress(e) || line({ level: 'warn', msg: 'upstream transport error', server: opts.serverName, error: e.message });
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
    await opts.downstream?.close().catch(() => undefined);
    throw unavailableError(`upstream server "${opts.serverName}"`, `cannot connect: ${connectFailure(upstreamEra, e)}`);
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
    await opts.downstream?.close().catch(() => undefined);
    throw e;
  }
  // ---- downstream: the upstream's own capabilities, name and instructions, minus what is not relayed
  const { tasks: _tasks, ...capabilities } = welcome.capabilities;
  const upstreamInfo = welcome.serverInfo;
  const name = upstreamInfo?.name ?? opts.serverName;
  const serverInfo = { name, version: upstreamInfo?.version ?? '0.0.0', title: `${upstreamInfo?.title ?? name} (via vouch gateway)` };
  const methods = FORWARDED.flatMap(([cap, ms]) => (capabilities[cap] ? ms : []));
  if (capabilities.resources?.subscribe) methods.push('resources/subscribe', 'resources/unsubscribe');
  const upstreamGone = () => unavailableError(`upstream server "${opts.serverName}"`, 'it has exited or closed the connection');
  const toClient = gate('server-to-client');
  const toUpstream = gate('client-to-server');

  // The 2026-07-28 side (gateway-modern.ts): the same relay, the envelope's clientInfo recorded as claimed.
  const core: ModernCore = {
    serverInfo,
    capabilities,
    instructions: welcome.instructions,
    methods: methods.filter((m) => !m.startsWith('resources/') || !m.endsWith('subscribe')), // 2026: subscriptions/listen, not resources/subscribe
    owner: opts.principal,
    bridge,
    relay(method, params, call: ModernCall) {
      if (!upstreamOpen) throw upstreamGone();
      const claimed = {
        ...(call.clientInfo && { clientInfo: { name: recordedLabel(call.clientInfo.name, MAX_CLIENT_FIELD - 1), version: recordedLabel(call.clientInfo.version, MAX_CLIENT_FIELD - 1) } }),
        ...(call.protocolVersion !== undefined && PROTOCOL_VERSION.test(call.protocolVersion) && { clientProtocolVersion: call.protocolVersion }),
      };
      // call.extra.signal is the relay's own (gateway-modern.ts scopes it): aborted only to cancel upstream.
      const peer = upstreamPeer(client, opts.serverName, method, call.extra, upDeps);
      // The call's request decision: what the upstream asks during it is linked to it (`call`).
      const linked: Peer = { name: peer.name, send: (p, seq) => (seq !== undefined && call.onAuthorized?.(seq), peer.send(p, seq)) };
      return track(relayRequest(session, 'client-to-server', method, params, linked, undefined, claimed));
    },
  };
  const modernServer = () => modernGatewayServer(core);

  // ---- the 2025 side: an SDK v1 Server with the upstream's own capabilities, name and instructions, minus what is not relayed
  const legacyServer = () => {
    const s = new Server(serverInfo, { capabilities, instructions: welcome.instructions });
    for (const method of methods) {
      s.setRequestHandler(anyRequest(method), (req, extra) => {
        if (!upstreamOpen) throw upstreamGone();
        clientRequests.add(extra.requestId);
        const p = relayRequest(session, 'client-to-server', method, req.params, upstreamPeer(client, opts.serverName, method, extra as HandlerExtra, upDeps));
        return track(p).finally(() => clientRequests.delete(extra.requestId)) as never;
      });
    }
    s.oninitialized = () => clientInitialized();
    s.fallbackNotificationHandler = async (n) => {
      await toUpstream(n.method, n.params, async (params) => {
        if (upstreamOpen) await client.notification({ method: n.method, params } as never).catch(onError);
      });
    };
    return s;
  };
  // Notifications (logging, list_changed, resources/updated, roots/list_changed) are decided on the
  // chain of their way and forwarded as the chain left them; a denied one is dropped (and recorded).
  // A 2026 client gets notifications only on a request's own stream: progress and logging during a call.
  client.fallbackNotificationHandler = async (n) => {
    if (n.method === 'notifications/tools/list_changed') session.pins?.invalidate(); // the next call re-lists
    if (era === 'legacy' && server) {
      const relatedRequestId = related();
      await toClient(n.method, n.params, (params) => server!.notification({ method: n.method, params } as never, { relatedRequestId }).catch(onError));
    } else if (n.method === 'notifications/message') {
      // 2026-07-28 logging.mdx: a log message is request-scoped, sent only on the response stream of
      // a request whose _meta asked for it, never unsolicited nor on a listen stream. One that reaches
      // this handler belongs to no request (a 2025 server logs per session): decided and recorded as
      // the event it is, and not delivered, since the revision has no way to deliver it.
      await toClient(n.method, n.params, async () => line({ level: 'debug', msg: 'upstream log message not delivered: a 2026-07-28 client hears log messages only on the request that asked for them', server: opts.serverName }));
    } else {
      // A 2026 client hears notifications on its subscriptions/listen stream (the SDK routes by its filter); none open: recorded only.
      await toClient(n.method, n.params, async (params) => (sink ? sink(n.method, params) : listening?.notification({ method: n.method, params } as never).catch(onError)));
    }
  };
  let listening: ModernServer | undefined;
  let sink: ((method: string, params: Record<string, unknown>) => void) | undefined;
  const listenDecision = (params: Record<string, unknown>) => decideListen(session, opts.policy, params);

  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  let stdio: { close(): Promise<void> } | undefined;
  const shutdown = async () => {
    await null; // let `closing` be set before the transports' onclose call back into close()
    bridge.close();
    await server?.close().catch(onError);
    await stdio?.close().catch(onError);
    if (!server && !stdio) await downstream?.close().catch(onError);
    await client.close().catch(onError);
    await Promise.allSettled([...inflight]);
    resolveClosed();
  };
  const close = () => (closing ??= shutdown());
  // A 2026 upstream's list changes come only on a listen stream (closed with the client); a refusal is a diagnostic.
  void listenForListChanges(client).catch((e) => line({ msg: 'upstream refused subscriptions/listen: list changes will not reach the client', server: opts.serverName, error: String(e) }));

  // ---- the downstream connection, once its era is known (an HTTP listener's 2026 requests have none)
  const attach = async (e: DownstreamEra) => {
    if (!downstream || closing) return;
    if (e === 'legacy') {
      server = legacyServer();
      server.onclose = () => void close();
      server.onerror = (err) => isLateProgress(err) || line({ level: 'warn', msg: 'client transport error', error: err.message });
      await server.connect(downstream);
    } else {
      // subscriptions/listen is decided before the SDK opens the stream; what the upstream notifies goes to it, decided.
      const gated = gateListen(downstream, listenDecision);
      stdio = serveStdio(() => (listening = modernServer()) as never, { transport: gated as never, legacy: 'reject', onerror: (err) => line({ level: 'warn', msg: 'client transport error', error: err.message }) });
    }
    line({ msg: 'gateway session open', server: opts.serverName, session: sessionId, era: e, upstream: upstreamInfo?.name, protocolVersion: session.protocolVersion, methods });
  };
  if (opts.era && downstream) {
    try {
      await attach(opts.era);
    } catch (e) {
      await client.close().catch(() => undefined); // no client side: do not leave the upstream running
      throw e;
    }
  } else if (router) {
    void router.ended.then(() => close());
    router.era.then(attach).catch((e) => {
      line({ msg: 'client connection ended before it spoke', error: String(e) });
      void close();
    });
  }

  return {
    serverName: opts.serverName,
    sessionId,
    upstreamInfo,
    capabilities,
    client,
    era: () => era,
    get server() {
      return server;
    },
    modernServer,
    decideListen: listenDecision,
    setNotificationSink: (f) => void (sink = f),
    refuse: (method, params, guard) =>
      decideOrThrow(session, opts.policy, { event: method, phase: 'request', payload: typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {}, context: contextOf(session), extra: { flow: 'client-to-server' }, guards: [guard], wait: 'signed' }),
    isUpstreamOpen: () => upstreamOpen,
    pendingCalls: () => bridge.size(),
    closed,
    close,
  };
}
