// The gateway's client to the upstream server (SDK v2): which MCP era it speaks (the 2025
// `initialize` handshake or 2026-07-28 `server/discover`, chosen at connect), the link from each
// embedded input request of a 2026 `input_required` result to the client call it belongs to, and
// the bounds on what such a result may make the gateway echo back upstream.
import { AsyncLocalStorage } from 'node:async_hooks';
import { Client, type ClientOptions, type PriorDiscovery, type RequestOptions, type Transport, type VersionNegotiationOptions } from '@modelcontextprotocol/client';
import { VOUCH_ENGINE_VERSION } from '../decide/index.js';
import { InputError } from '../errors.js';
import { JSONRPC } from '../protocol/index.js';
import { GatewayError } from './gateway-errors.js';

/** `--upstream-era`: probe and take what the server speaks, 2025 only, or 2026-07-28 only. */
export type UpstreamEra = 'auto' | 'legacy' | '2026-07-28';
export const UPSTREAM_ERAS: readonly UpstreamEra[] = ['auto', 'legacy', '2026-07-28'];
export const DEFAULT_UPSTREAM_ERA: UpstreamEra = 'auto';

/**
 * How long `auto` waits for a stdio server to answer the `server/discover` probe before taking it
 * for a 2025 server. The SDK's default is the connect timeout (60 s here): a 2025 server that never
 * answers unknown requests before `initialize` would hold the gateway's start that long (once a
 * run: EraMemo). The probe runs on a sibling process the SDK spawns for it, so this covers that
 * process's start-up too: server-everything answers in about 0.5 s, a `docker run` or a server
 * under tsx on a loaded machine takes seconds, and a 2026 server slower than this is taken for a
 * 2025 one (then served as such, or refused with a hint to pin). Over HTTP silence is an outage,
 * not a 2025 signal, and the connect timeout applies.
 */
export const DEFAULT_STDIO_PROBE_MS = 10_000;

/**
 * The most `requestState` a 2026 upstream may hand the gateway to echo back: the SDK's driver
 * copies it byte for byte into the retry, so without a bound a hostile server makes the gateway
 * carry (and hold) whatever it likes on every round. 64 KiB is far above what a signed state token
 * needs (the SDK's own codec mints a few hundred bytes).
 */
export const MAX_REQUEST_STATE_BYTES = 64 * 1024;
/** The most embedded requests one round may carry: each is a decision and a request to the client. */
export const MAX_INPUT_REQUESTS = 16;

/** The client call an embedded input request belongs to: its request-phase decision, and its id on the client side. */
export interface CallLink {
  seq: number;
  requestId: string | number;
}

export function parseUpstreamEra(v: string): UpstreamEra {
  if ((UPSTREAM_ERAS as readonly string[]).includes(v)) return v as UpstreamEra;
  throw new InputError('ERR_INPUT', `upstream era ${JSON.stringify(v)}: use ${UPSTREAM_ERAS.join(', ')}`, [{ path: '/upstreamEra', message: `one of ${UPSTREAM_ERAS.join(', ')}` }]);
}

/** The SDK's stdio transport (the one it probes on a sibling process for): it has a child pid. */
const isStdio = (t: Transport) => 'pid' in t && 'stderr' in t;

export function versionNegotiationOf(era: UpstreamEra, transport: Transport, probeMs = DEFAULT_STDIO_PROBE_MS): VersionNegotiationOptions | undefined {
  if (era === 'legacy') return undefined; // the plain 2025 handshake, byte for byte
  if (era === 'auto') return { mode: 'auto', probe: isStdio(transport) ? { timeoutMs: probeMs } : {} };
  return { mode: { pin: era } }; // no fallback: a 2025-only server fails the connect
}

/**
 * The era one gateway run found its upstream to speak: probed once, then every later session (a
 * new child of the same command, or the same URL) connects with the verdict and pays no probe (the
 * SDK's gateway recipe, docs/advanced/gateway.md). Per run only, so a restart probes again: a
 * server upgraded meanwhile is found then. Every session connects with the same (absent)
 * credentials, so one verdict is every session's.
 */
export class EraMemo {
  private verdict?: PriorDiscovery;
  get prior(): PriorDiscovery | undefined {
    return this.verdict;
  }
  remember(client: Client): void {
    if (this.verdict || client.getProtocolEra() === undefined) return;
    const discover = client.getDiscoverResult();
    this.verdict = discover ? { kind: 'modern', discover } : { kind: 'legacy' };
  }
}

/** What the gateway offers the upstream as its client (a server lists some tools only to clients that can sample). */
export const GATEWAY_CLIENT_OPTIONS = { capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } } };

// Per-call context for the handlers the SDK's driver calls: it runs them from the upstream's
// answer (a transport callback), where nothing says which call that answer was for.
const callContext = new AsyncLocalStorage<CallLink>();
const callOf = new WeakMap<object, CallLink>();

/** The call whose embedded input request (or, over HTTP, whose response stream) is being handled, if one is known. */
export function currentCall(): CallLink | undefined {
  return callContext.getStore();
}

interface InputRequiredValue {
  inputRequests?: Record<string, unknown>;
  requestState?: unknown;
}

/** A hostile round refused before anything of it is fulfilled or echoed. */
function screenRound(round: InputRequiredValue, method: string): void {
  const count = Object.keys(round.inputRequests ?? {}).length;
  if (count > MAX_INPUT_REQUESTS) {
    throw new GatewayError(JSONRPC.internalError, `the upstream answered ${method} with ${count} input requests in one round, over the gateway's bound of ${MAX_INPUT_REQUESTS}; none was fulfilled`, { code: 'ERR_TOO_LARGE', limit: MAX_INPUT_REQUESTS });
  }
  const state = round.requestState;
  // UTF-8 takes at least one byte per UTF-16 unit: most oversized states are refused before encoding.
  if (typeof state === 'string' && (state.length > MAX_REQUEST_STATE_BYTES || new TextEncoder().encode(state).byteLength > MAX_REQUEST_STATE_BYTES)) {
    throw new GatewayError(JSONRPC.internalError, `the upstream answered ${method} with a requestState over the gateway's bound of ${MAX_REQUEST_STATE_BYTES} bytes; it was not echoed, and nothing was fulfilled`, { code: 'ERR_TOO_LARGE', limit: MAX_REQUEST_STATE_BYTES });
  }
}

const isInputRequired = (v: unknown): v is InputRequiredValue => typeof v === 'object' && v !== null && (v as { resultType?: unknown }).resultType === 'input_required';

/**
 * The SDK v2 Client, plus the two things a gateway needs of its multi-round driver: every round
 * screened (screenRound), and the handlers it calls run knowing the call (currentCall).
 */
export class UpstreamClient extends Client {
  /** `request`, for a relayed client call: what it makes the upstream ask is linked to `link`. */
  requestForCall<T>(link: CallLink, send: (options: RequestOptions) => T, options: RequestOptions): T {
    callOf.set(options, link);
    // Over HTTP the answer (and a 2025 server's requests on its stream) arrive in this context.
    return callContext.run(link, () => send(options));
  }

  protected override _resolveNonCompleteResult(decoded: { kind: 'input_required'; inputRequests: Record<string, unknown>; requestState?: string }, flow: { request: { method: string }; options?: object; retry(params: unknown, legOptions: unknown): Promise<unknown> }): Promise<unknown> {
    try {
      screenRound(decoded, flow.request.method);
    } catch (e) {
      return Promise.reject(e);
    }
    // Later rounds come back through the retry (the driver loops on it): screened the same way.
    const retry = async (params: unknown, legOptions: unknown) => {
      const next = await flow.retry(params, legOptions);
      if (isInputRequired(next)) screenRound(next, flow.request.method);
      return next;
    };
    const run = () => super._resolveNonCompleteResult(decoded, { ...flow, retry } as never);
    const link = flow.options && callOf.get(flow.options);
    return link ? callContext.run(link, run) : run();
  }
}

/**
 * Why a connect failed, for the operator: a 2026-only server refusing the 2025 handshake `auto` fell
 * back to (it did not answer the probe in time) is told to be pinned.
 */
export function connectFailure(era: UpstreamEra, e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  const supported = (e as { data?: { supported?: unknown } })?.data?.supported;
  const modern = Array.isArray(supported) ? supported.filter((v): v is string => typeof v === 'string' && v >= '2026') : [];
  if (era !== 'auto' || !modern.length) return message;
  return `${message} (it speaks ${modern.join(', ')} only and did not answer the server/discover probe in time: pass --upstream-era ${modern[0]})`;
}

/**
 * A 2026 server tells list changes only on a `subscriptions/listen` stream it is asked for (2025
 * servers send them unsolicited). The gateway opens one for each list the server says changes, so
 * a 2025 client still hears of them, and pinned tools are listed again: the notifications reach
 * the gateway's fallback handler like a 2025 server's, and are decided there. Nothing to do on 2025.
 */
export async function listenForListChanges(client: Client): Promise<{ close(): Promise<void> } | undefined> {
  if (client.getProtocolEra() !== 'modern') return undefined;
  const caps = client.getServerCapabilities() ?? {};
  const filter = {
    ...(caps.tools?.listChanged && { toolsListChanged: true }),
    ...(caps.prompts?.listChanged && { promptsListChanged: true }),
    ...(caps.resources?.listChanged && { resourcesListChanged: true }),
  };
  if (!Object.keys(filter).length) return undefined;
  return client.listen(filter);
}

export function createUpstreamClient(era: UpstreamEra, transport: Transport, probeMs?: number, name = 'vouch-gateway'): UpstreamClient {
  const options: ClientOptions = { ...GATEWAY_CLIENT_OPTIONS, versionNegotiation: versionNegotiationOf(era, transport, probeMs) };
  return new UpstreamClient({ name, version: VOUCH_ENGINE_VERSION }, options);
}
