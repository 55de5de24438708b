// Remote interceptors: any SEP-2624 interceptor server reachable over MCP (Streamable HTTP),
// listed once with `interceptors/list` and merged into the local chain (the SEP's M+N promise).
// The network call lives in prepare(): its answer is recorded state, so replay never calls out.
// The MCP SDK and zod load on the first connect, not with this module: decide/ imports it on
// every start-up, and the SDK's modules take longer to load than the rest of the decision path.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { VouchError } from '../errors.js';
import type { BaseContext } from './_context.js';
import { cloneJson, describeError, isPlainObject } from './_json.js';
import { parseDeclaration } from '../protocol/index.js';
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
function transportFetch(): typeof fetch | undefined {
  if ((globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent !== 'Cloudflare-Workers') return undefined;
  return (input, init) => fetch(input, { ...init, signal: undefined });
}

// Thin handshake schemas (the SDK needs one per request); parseDeclaration and the chain's
// outcome check do the real validation of this untrusted input. Built with the SDK, on first use.
interface Sdk {
  Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
  ListResultSchema: ReturnType<typeof listResultSchema>;
  InvokeResultSchema: ReturnType<typeof invokeResultSchema>;
}
const listResultSchema = (z: typeof import('zod')) => z.looseObject({ interceptors: z.array(z.unknown()), nextCursor: z.string().optional() });
const invokeResultSchema = (z: typeof import('zod')) => z.looseObject({ type: z.string(), phase: z.string() });
let sdk: Promise<Sdk> | undefined;
function loadSdk(): Promise<Sdk> {
  return (sdk ??= (async () => {
    const [client, http, z] = await Promise.all([import('@modelcontextprotocol/sdk/client/index.js'), import('@modelcontextprotocol/sdk/client/streamableHttp.js'), import('zod')]);
    return { Client: client.Client, StreamableHTTPClientTransport: http.StreamableHTTPClientTransport, ListResultSchema: listResultSchema(z), InvokeResultSchema: invokeResultSchema(z) };
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
  const client = new Client({ name: 'vouch', version: '0.1.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(opts.url), { requestInit: { headers: { ...opts.headers } }, fetch: transportFetch() });
  try {
    await client.connect(transport, { timeout });
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
    const res = await client.request({ method: 'interceptors/list', params }, (await loadSdk()).ListResultSchema, { timeout });
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
        const res = await client.request({ method: 'interceptor/invoke', params }, (await loadSdk()).InvokeResultSchema, { signal, timeout });
        const { _meta: _ignored, ...result } = res as Record<string, unknown>;
        record(name, undefined);
        return cloneJson(result);
      } catch (e) {
        const error = describeError(e);
        // A call its own request gave up on (the caller went away, the chain's deadline) says nothing of the server.
        if (!ctx.signal?.aborted) record(name, error);
        return { error };
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
  if (answer.type === undefined) throw new Error(`interceptor server: ${typeof answer.error === 'string' ? answer.error : 'no answer'}`);
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
