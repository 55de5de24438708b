// The SEP-2624 interceptor server over the MCP SDK: interceptors/list, interceptor/invoke and
// interceptor/executeChain, whose handlers (runList, runInvoke, runExecuteChain) every era's
// server shares (mcp-modern.ts for 2026-07-28). Every executeChain is a decision: logged, signed,
// and answered with its receipt in _meta["io.vouch/receipt"]. Transport-agnostic: the HTTP layer connects it.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { canonicalBytes, toBase64 } from '../canonical/index.js';
import { INVOKE_RESULT_CONTEXT, INVOKE_RESULT_CONTEXT_NAME } from '../crypto/index.js';
import type { LogWriter } from '../log/index.js';
import { directionOf, VOUCH_ENGINE_VERSION, type ActivePolicy, type AnyOutcome, decideParams, type Guard, parseExecuteChainParams, parseInvokeParams, parseListParams, type Precheck, type PrecheckRequest } from '../decide/index.js';
import { VouchError, codeOf, publicMessage } from '../errors.js';
import { assertKnownEvent, claimedClientOf, ENVELOPE_META, MCP_EVENTS, SEP_EVENTS, PROTOCOL_VERSION, JSONRPC, rpcCodeOf, type ClaimedClient } from '../protocol/index.js';
import { invokeInterceptor } from '../interceptors/invoke.js';
import { DURABLE_META, durableAnswer, WAIT_META, waitOf } from './wait.js';
import { listInterceptors } from '../interceptors/list.js';

export const INTERCEPTORS_EXTENSION = 'io.modelcontextprotocol/interceptors';
export const RECEIPT_META = 'io.vouch/receipt';
/** Every event a decision can be asked for (protocol/events.ts), plus custom events a config declares. */
export const SUPPORTED_EVENTS = [...MCP_EVENTS, ...SEP_EVENTS, '*'];
/** What every era advertises (initialize, server/discover): the interceptors extension. */
export const SERVER_CAPABILITIES = { extensions: { [INTERCEPTORS_EXTENSION]: { supportedEvents: SUPPORTED_EVENTS } } };
/** The server's name and version, as initialize and 2026 results (`_meta` serverInfo) give them. */
export const SERVER_INFO = { name: 'vouch', version: VOUCH_ENGINE_VERSION };

export interface InterceptorSession {
  principal: string;
  tenant: string;
  roles: string[];
  policy: ActivePolicy;
  log: LogWriter;
  now(): Date;
  clock?: { monotonic(): number };
  /** Signs the JCS of an invoke result for the SEP's reserved `signature` field, under `context` (FIPS 204). */
  signResult?(bytes: Uint8Array, context: Uint8Array): Promise<{ alg: string; keyId: string; signature: Uint8Array }>;
  onDecision?(outcome: AnyOutcome): void;
  /** vouch's own checks from the request _meta (co-signature, authorization link, drift): see decide/precheck.ts. */
  precheck?(params: PrecheckRequest): Promise<Precheck>;
}

const anyParams = (method: string) => z.object({ method: z.literal(method), params: z.unknown().optional() }).passthrough();
// Built once: zod compiles a fast path the first time a schema parses, so a schema made per
// request (one Server per request) paid that compile on every call: measured as the top cost.
const LIST = anyParams('interceptors/list');
const INVOKE = anyParams('interceptor/invoke');
const EXECUTE = anyParams('interceptor/executeChain');

/** A JSON-RPC error as the SDK sends it ({code, message, data}); McpError would prefix the message. */
class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly data: Record<string, unknown>) {
    super(message);
  }
}

/** Wrap a handler so every failure is a coded JSON-RPC error, never a stack. */
function rpc<T>(fn: () => Promise<T>): Promise<T> {
  return fn().catch((e) => {
    if (e instanceof McpError) throw e;
    const issues = (e as { issues?: unknown }).issues;
    throw new RpcError(rpcCodeOf(e), publicMessage(e), { code: codeOf(e), ...(Array.isArray(issues) && issues.length ? { issues } : {}) });
  });
}

/**
 * The SDK builds an Ajv instance per Server unless given a validator: measured at a few ms per
 * request, it dominated the per-request cost. This server sends no elicitation, so it validates
 * no client schema at all.
 */
export const NO_SCHEMAS = {
  getValidator: () => () => ({ valid: false as const, data: undefined, errorMessage: 'the interceptor server validates no client schemas' }),
};

/** What a request handler learns about its caller: the SDK passes it along with the request. */
export type SessionOf = (extra: { authInfo?: { extra?: Record<string, unknown> } }) => InterceptorSession;

/** Where a shared server finds the caller's session: authInfo.extra[SESSION_KEY] of the request. */
export const SESSION_KEY = 'io.vouch/session';

export const sessionFromAuthInfo: SessionOf = (extra) => {
  const session = extra.authInfo?.extra?.[SESSION_KEY];
  if (!session) throw new VouchError('ERR_INTERNAL', 'request reached the interceptor server without a caller');
  return session as InterceptorSession;
};

/**
 * The interceptor server. With a session, it serves that one caller (one Server per request);
 * with `sessionFromAuthInfo`, one Server serves every caller, each request carrying its own.
 */
export function createInterceptorServer(who: InterceptorSession | SessionOf): Server {
  const server = new Server({ ...SERVER_INFO }, { capabilities: SERVER_CAPABILITIES as never, jsonSchemaValidator: NO_SCHEMAS });
  const sessionOf: SessionOf = typeof who === 'function' ? who : () => who;

  server.setRequestHandler(LIST, (req, extra) => runList(() => sessionOf(extra), req.params) as never);
  server.setRequestHandler(INVOKE, (req, extra) => runInvoke(() => sessionOf(extra), req.params) as never);
  server.setRequestHandler(EXECUTE, (req, extra) => runExecuteChain(() => sessionOf(extra), req.params, { protocolVersion: protocolVersionOf(extra) }) as never);
  return server;
}

/** interceptors/list: the caller tenant's chain, in the order it runs. Both eras' servers and the lean paths. */
export function runList(sessionOf: () => InterceptorSession, params: unknown): Promise<{ interceptors: unknown[] }> {
  return rpc(async () => listInterceptors(sessionOf().policy.interceptors, parseListParams(params).event) as { interceptors: unknown[] });
}

/** interceptor/invoke: one interceptor, outside any decision (nothing is logged). */
export function runInvoke(sessionOf: () => InterceptorSession, params: unknown): Promise<unknown> {
  return rpc(async () => {
    const session = sessionOf();
    const { policy } = session;
    const p = parseInvokeParams(params);
    assertKnownEvent(p.event, policy.events);
    const ic = policy.interceptors.find((i) => i.descriptor.name === p.name);
    if (!ic) throw new VouchError('ERR_UNKNOWN_INTERCEPTOR', `unknown interceptor ${JSON.stringify(p.name)}`);
    const ctx = { time: session.now().toISOString(), principal: session.principal, tenant: session.tenant, roles: session.roles };
    const result = await invokeInterceptor(ic, p, ctx, { directions: policy.options.directions, clock: session.clock, timeoutMs: policy.options.interceptorTimeoutMs });
    if (p.meta?.['io.vouch/sign'] === true && session.signResult) {
      // SEP reserved field: a signature over the JCS of the result without that field, under the
      // results' own ML-DSA context (named in the answer): the caller shapes these bytes, so they
      // must never verify as anything else the key signs (checkpoints: the empty context).
      const { durationMs: _d, ...stable } = result as unknown as Record<string, unknown>;
      const sig = await session.signResult(canonicalBytes(stable), INVOKE_RESULT_CONTEXT);
      return { ...result, signature: { alg: sig.alg, keyId: sig.keyId, value: toBase64(sig.signature), context: INVOKE_RESULT_CONTEXT_NAME, over: 'jcs(result without durationMs and signature)' } };
    }
    return result;
  });
}

/** Which era a request came over, as its entry records it: the protocol version, and (2026) the client as it claims to be. */
export interface RequestEra {
  protocolVersion?: string;
  clientInfo?: ClaimedClient;
}

/** The era of a request that carries the 2026 `_meta` envelope: its version (when a date) and the client as it names itself. */
export function eraOfEnvelope(envelope: Record<string, unknown> | undefined): RequestEra {
  const v = envelope?.[ENVELOPE_META.protocolVersion];
  const clientInfo = claimedClientOf(envelope?.[ENVELOPE_META.clientInfo]);
  return { ...(typeof v === 'string' && PROTOCOL_VERSION.test(v) && { protocolVersion: v }), ...(clientInfo && { clientInfo }) };
}

/**
 * interceptor/executeChain: one decision, answered with its receipt (or, wait "durable", its
 * committed entry). Every era's server and the endpoint's lean paths. With `refusal`, the adapter
 * has refused the request already (its HTTP headers disagree with the body): the decision is that
 * recorded deny, and no interceptor runs.
 */
export function runExecuteChain(sessionOf: () => InterceptorSession, params: unknown, era: RequestEra, refusal?: Guard): Promise<unknown> {
  return rpc(async () => {
    const session = sessionOf();
    const { policy } = session;
    const p = parseExecuteChainParams(params);
    const wait = waitOf(p.meta?.[WAIT_META], `/_meta/${WAIT_META}`);
    const { outcome, receipt } = await decideParams(p, session, {
      policy,
      log: session.log,
      now: session.now,
      clock: session.clock,
      precheck: session.precheck,
      ...(era.protocolVersion && { protocolVersion: era.protocolVersion }),
      ...(era.clientInfo && { clientInfo: era.clientInfo }),
      ...(refusal && { guards: [refusal] }),
      wait,
      followSigned: false,
    });
    session.onDecision?.(outcome);
    // wait "durable": the committed entry now, its receipt once signed (http/wait.ts).
    const evidence = receipt ? { [RECEIPT_META]: receipt } : { [DURABLE_META]: durableAnswer(outcome.appended) };
    return { ...outcome.chain, _meta: { ...evidence, 'io.vouch/seq': outcome.appended.seq, 'io.vouch/direction': directionOf(policy, p.phase) } };
  });
}

/** The MCP-Protocol-Version header of the HTTP request (Streamable HTTP), when it is a protocol version. */
function protocolVersionOf(extra: { requestInfo?: { headers?: Record<string, string | string[] | undefined> } }): string | undefined {
  const h = extra.requestInfo?.headers?.['mcp-protocol-version'];
  return protocolVersionOfHeader(Array.isArray(h) ? h[0] : h);
}

export function protocolVersionOfHeader(v: string | null | undefined): string | undefined {
  return typeof v === 'string' && PROTOCOL_VERSION.test(v) ? v : undefined;
}

export { JSONRPC };
