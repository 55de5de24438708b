// Remote interceptors: any SEP-2624 interceptor server reachable over MCP (Streamable HTTP),
// listed once with `interceptors/list` and merged into the local chain (the SEP's M+N promise).
// The network call lives in prepare(): its answer is recorded state, so replay never calls out.
// The MCP SDK (v2: both eras) and zod load on the first connect, not with this module: decide/
// imports it on every start-up, and the SDK's modules take longer to load than the decision path.
import type { Client, VersionNegotiationOptions } from '@modelcontextprotocol/client';
import { VouchError } from '../errors.js';
import type { BaseContext } from './_context.js';
import { cloneJson, describeError, isPlainObject } from './_json.js';
import { parseDeclaration } from '../protocol/index.js';
import type { RemoteEra } from '../policy/index.js';
import type { Interceptor, InterceptorDescriptor, Json, Outcome } from './types.js';

export interface RemoteOptions {
  /** The interceptor server's MCP endpoint, e.g. https://guard.example/mcp */
  url: string;
  /** Sent with every request (e.g. Authorization). */
  headers?: Record<string, string>;
  /** Use only these remote interceptors (each must exist); default: all listed. */
  names?: string[];
  /** Per-request timeout of the MCP client; the chain's own deadlines still apply. */
  timeoutMs?: number;
  /** Which MCP era to speak (policy REMOTE_ERAS); default `auto`. */
  era?: RemoteEra;
}

export interface RemoteInterceptors {
  interceptors: Interceptor[];
  /**
   * The interceptors whose latest call failed (the server went away, timed out, answered with
   * no result), each with the reason: every decision that needs one is denied until a call
   * succeeds again. For /healthz: the service cannot decide as configured meanwhile.
   */
  failing(): { name: string; reason: string }[];
  close(): Promise<void>;
}

export const DEFAULT_REMOTE_TIMEOUT_MS = 5_000;
const MAX_LIST_PAGES = 100;

/**
 * The fetch the transport calls. On Cloudflare Workers an I/O object belongs to the request it
 * was made in, and the transport attaches its one AbortSignal (made when it connected, in the
 * first request of an isolate) to every fetch: from any later request workerd refuses that fetch
 * ("Cannot perform I/O on behalf of a different request"). There each fetch goes without it; the
 * client's per-request timeout and the chain's deadline still bound every call, and what is in
 * flight ends with its request. Elsewhere (Node) the SDK's own fetch, signal and all.
 */
const onWorkers = () => (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === 'Cloudflare-Workers';
function transportFetch(): typeof fetch | undefined {
  if (!onWorkers()) return undefined;
  return (input, init) => fetch(input, { ...init, signal: undefined });
}

/**
 * The chain's signal for one call, where it can be used. On Workers the SDK v2 transport joins it
 * with its connect-time signal (AbortSignal.any), which workerd refuses from any later request:
 * there the call goes without it, bounded by the client's timeout and the chain's deadline as above.
 */
const callSignal = (signal: AbortSignal | undefined) => (onWorkers() ? {} : { signal });

/**
 * How the SDK negotiates the era. `auto` probes with `server/discover` on the connection itself
 * (HTTP: silence is an outage, not a 2025 signal, so the probe is bounded by the same timeout and
 * a server that does not answer fails the connect); a pin has no fallback.
 */
function versionNegotiationOf(era: RemoteEra, timeoutMs: number): VersionNegotiationOptions | undefined {
  if (era === 'legacy') return undefined; // the plain 2025 handshake, as the SDK v1 client sent it
  if (era === 'auto') return { mode: 'auto', probe: { timeoutMs } };
  return { mode: { pin: era } };
}

/**
 * An answer vouch cannot take as a remote interceptor's result. Over 2026-07-28 only
 * `resultType: "complete"` is one: `input_required` would make vouch fulfil a server's
 * elicitation or sampling in the middle of a decision, and a task would make it decide later on a
 * result fetched outside the chain; an answer without resultType breaks the revision's MUST.
 */
const MALFORMED = 'ERR_REMOTE_MALFORMED' as const;
const MALFORMED_SDK_CODES = new Set(['INVALID_RESULT', 'UNSUPPORTED_RESULT_TYPE', 'INPUT_REQUIRED_ROUNDS_EXCEEDED']);
function malformed(method: string, resultType: unknown): VouchError {
  return new VouchError(MALFORMED, `the interceptor server answered ${method} with resultType ${JSON.stringify(resultType)}; only "complete" is an answer (no input rounds or tasks in a decision)`);
}

/** The SDK's decode failures that mean the server's answer is malformed, as vouch's coded error. */
function classify(e: unknown, method: string): unknown {
  const code = (e as { code?: unknown })?.code;
  if (typeof code !== 'string' || !MALFORMED_SDK_CODES.has(code)) return e;
  const data = (e as { data?: { resultType?: unknown } }).data;
  return new VouchError(MALFORMED, `the interceptor server's answer to ${method} is malformed${data?.resultType === undefined ? '' : ` (resultType ${JSON.stringify(data.resultType)})`}: ${describeError(e)}`, { cause: e });
}

// Thin handshake schemas (the SDK needs one per request); parseDeclaration and the chain's
// outcome check do the real validation of this untrusted input. Built with the SDK, on first use.
interface Sdk {
  /** The SDK v2 Client, refusing every non-complete result before its multi-round driver sees it. */
  Client: new (...args: ConstructorParameters<typeof Client>) => Client;
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/client').StreamableHTTPClientTransport;
  ListResultSchema: ReturnType<typeof listResultSchema>;
  InvokeResultSchema: ReturnType<typeof invokeResultSchema>;
}
const listResultSchema = (z: typeof import('zod')) => z.looseObject({ interceptors: z.array(z.unknown()), nextCursor: z.string().optional() });
const invokeResultSchema = (z: typeof import('zod')) => z.looseObject({ type: z.string(), phase: z.string() });
let sdk: Promise<Sdk> | undefined;
function loadSdk(): Promise<Sdk> {
  return (sdk ??= (async () => {
    const [mcp, z] = await Promise.all([import('@modelcontextprotocol/client'), import('zod')]);
    class RemoteClient extends mcp.Client {
      // The SDK would fulfil an input_required answer through handlers and retry: refused instead.
      protected override _resolveNonCompleteResult(decoded: { kind: string }, flow: { request: { method: string } }): Promise<unknown> {
        return Promise.reject(malformed(flow.request.method, decoded.kind));
      }
    }
    return { Client: RemoteClient, StreamableHTTPClientTransport: mcp.StreamableHTTPClientTransport, ListResultSchema: listResultSchema(z), InvokeResultSchema: invokeResultSchema(z) };
  })());
}

/**
 * Connect, list, and return one Interceptor per remote interceptor. Names are kept as the
 * server lists them (so `names`, chain configs and `interceptor/invoke` all use one name);
 * a clash with a local interceptor makes the chain deny (duplicate name), never guess.
 */
export async function connectRemoteInterceptors(opts: RemoteOptions): Promise<RemoteInterceptors> {
  const timeout = opts.timeoutMs ?? DEFAULT_REMOTE_TIMEOUT_MS;
  const { Client, StreamableHTTPClientTransport } = await loadSdk();
  const client = new Client({ name: 'vouch', version: '0.1.0' }, { capabilities: {}, versionNegotiation: versionNegotiationOf(opts.era ?? 'auto', timeout) });
  const transport = new StreamableHTTPClientTransport(new URL(opts.url), { requestInit: { headers: { ...opts.headers } }, fetch: transportFetch() });
  try {
    await client.connect(transport, { timeout });
    // On Workers the SDK v2 transport joins every request's signal with the one it made at connect
    // (AbortSignal.any), which workerd refuses from any later request ("Cannot perform I/O on behalf
    // of a different request"). Its connect-time controller only aborts what is in flight on close,
    // and every use of it is optional: dropped there, each request carries its own signal alone.
    if (onWorkers()) (transport as unknown as { _abortController?: AbortController })._abortController = undefined;
    const descriptors = await listRemote(client, timeout);
    const picked = pick(descriptors, opts.names);
    const failed = new Map<string, string>();
    const record = (name: string, reason: string | undefined) => (reason === undefined ? failed.delete(name) : failed.set(name, reason));
    return {
      interceptors: picked.map((d) => remoteInterceptor(client, d, timeout, record)),
      failing: () => [...failed].map(([name, reason]) => ({ name, reason })),
      close: () => client.close(),
    };
  } catch (e) {
    await client.close().catch(() => undefined);
    if (e instanceof VouchError) throw e;
    throw new VouchError('ERR_INTERCEPTOR_FAILED', `interceptor server ${opts.url}: ${describeError(e)}`, { cause: e });
  }
}

async function listRemote(client: Client, timeout: number): Promise<InterceptorDescriptor[]> {
  const out: InterceptorDescriptor[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const params = cursor === undefined ? {} : { cursor };
    const res = await client.request({ method: 'interceptors/list', params }, (await loadSdk()).ListResultSchema, { timeout }).catch((e) => Promise.reject(classify(e, 'interceptors/list')));
    const base = out.length;
    res.interceptors.forEach((raw, i) => out.push(parseDeclaration(raw, `/interceptors/${base + i}`)));
    cursor = res.nextCursor;
    if (cursor === undefined) return out;
  }
  throw new VouchError('ERR_INTERCEPTOR_FAILED', `interceptors/list did not end within ${MAX_LIST_PAGES} pages`);
}

function pick(descriptors: InterceptorDescriptor[], names: string[] | undefined): InterceptorDescriptor[] {
  const seen = new Set<string>();
  for (const d of descriptors) {
    if (seen.has(d.name)) throw new VouchError('ERR_INTERCEPTOR_FAILED', `interceptor server lists ${d.name} twice`);
    seen.add(d.name);
  }
  if (names === undefined) return descriptors;
  const missing = names.filter((n) => !seen.has(n));
  if (missing.length > 0) throw new VouchError('ERR_UNKNOWN_INTERCEPTOR', `interceptor server has no ${missing.join(', ')}`);
  return descriptors.filter((d) => names.includes(d.name));
}

/** What the SEP's InvokeContext carries; the decision time goes as `timestamp`. */
function wireContext(ctx: BaseContext): Record<string, string> {
  const out: Record<string, string> = { timestamp: ctx.time };
  if (ctx.sessionId !== undefined) out.sessionId = ctx.sessionId;
  if (ctx.traceId !== undefined) out.traceId = ctx.traceId;
  if (ctx.principal !== undefined) out.principal = ctx.principal;
  return out;
}

function remoteInterceptor(client: Client, descriptor: InterceptorDescriptor, timeout: number, record: (name: string, reason: string | undefined) => void): Interceptor {
  const name = descriptor.name;
  return {
    descriptor,
    // Live only: ask the server. Success records its result; failure records {error},
    // so run() (live and replay alike) fails the interceptor with the same reason.
    async prepare(payload, ctx): Promise<Json> {
      try {
        const { signal, ...base } = ctx;
        const params = { name, event: ctx.event, phase: ctx.phase, payload: payload as Json, context: wireContext(base) };
        const res = await client.request({ method: 'interceptor/invoke', params }, (await loadSdk()).InvokeResultSchema, { ...callSignal(signal), timeout }).catch((e) => Promise.reject(classify(e, 'interceptor/invoke')));
        // resultType never reaches here: the SDK lifts it out over 2026 and drops it over 2025 (not that era's wire).
        const { _meta: _ignored, ...result } = res as Record<string, unknown>;
        record(name, undefined);
        return cloneJson(result);
      } catch (e) {
        const error = describeError(e);
        // A call its own request gave up on (the caller went away, the chain's deadline) says nothing of the server.
        if (!ctx.signal?.aborted) record(name, error);
        // The code goes with the reason when vouch knows it (a malformed answer), so the entry says why.
        const code = e instanceof VouchError ? e.code : undefined;
        return { error, ...(code && { code }) };
      }
    },
    run: (_payload, ctx) => recordedOutcome(descriptor, ctx.phase, ctx.state),
  };
}

/**
 * The outcome a recorded answer stands for (live and replay alike): a recorded failure, or an
 * answer of another type or phase than the descriptor's, fails the interceptor with its reason.
 */
function recordedOutcome(descriptor: InterceptorDescriptor, phase: string, answer: Json | undefined): Outcome {
  if (!isPlainObject(answer)) throw new Error('no recorded answer from the interceptor server');
  if (answer.type === undefined) {
    const code = typeof answer.code === 'string' ? ` (${answer.code})` : '';
    throw new Error(`interceptor server: ${typeof answer.error === 'string' ? answer.error : 'no answer'}${code}`);
  }
  if (answer.type !== descriptor.type) throw new Error(`interceptor server answered type ${String(answer.type)}, expected ${descriptor.type}`);
  if (answer.phase !== phase) throw new Error(`interceptor server answered phase ${String(answer.phase)}, expected ${phase}`);
  // The chain checks the outcome's shape; the server's own interceptor/phase/duration are dropped.
  const { interceptor: _i, type: _t, phase: _p, durationMs: _d, ...outcome } = answer;
  return outcome as unknown as Outcome;
}

/**
 * A remote interceptor whose server could not be reached when the chain was activated (a Worker
 * isolate starts on demand, so it cannot refuse to start as `vouch serve` does): every call fails
 * it with `reason`, recorded as `{error}` exactly as a live call to a server that went away, so
 * the chain fails closed (unless the descriptor says failOpen) and replay gives the same result.
 */
export function unreachableRemoteInterceptor(descriptor: InterceptorDescriptor, reason: string): Interceptor {
  return {
    descriptor,
    prepare: async (): Promise<Json> => ({ error: reason }),
    run: (_payload, ctx) => recordedOutcome(descriptor, ctx.phase, ctx.state),
  };
}
