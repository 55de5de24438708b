// One request across the gateway, either way: request-phase decision (durable before anything is
// sent) -> forward what was authorized -> execution entry (what went on the wire, what came back,
// drift) and response-phase decision -> the answer with its receipts in _meta, or a coded error.
import { digestJson } from '../canonical/index.js';
import type { Clock } from '../clock.js';
import { decide, directionOf, type ActivePolicy, type DecisionOutcome, type DecisionRequest } from '../decide.js';
import { DEFAULT_DRIFT_RULES, type DriftRules } from '../execution/drift-rules.js';
import { recordExecution, type ExecutionLog, type ExecutionOutcome } from '../execution/record.js';
import type { Json } from '../interceptors/types.js';
import { JSONRPC } from '../http/errors.js';
import { deniedError, errorRecord, GatewayError, peerError, unrecordedError } from './gateway-errors.js';
import { RECEIPT_META } from './interceptor-server.js';

export const SEQ_META = 'io.vouch/seq';
export const RESPONSE_RECEIPT_META = 'io.vouch/response-receipt';
export const EXECUTION_META = 'io.vouch/execution';

/** Which way the request crosses: client requests go up; sampling, elicitation, roots come down. */
export type Flow = 'client-to-server' | 'server-to-client';

type Rec = Record<string, unknown>;

export interface RelaySession {
  policy: ActivePolicy;
  log: ExecutionLog;
  clock: Clock;
  tenant: string;
  principal: string;
  roles: string[];
  /** The upstream server's name: `context.server` of every decision. */
  server: string;
  sessionId: string;
  drift?: DriftRules;
  timeoutMs: number;
  onHookError?: (interceptor: string, e: unknown) => void;
}

/** The far side of one request: `wire` is the params as handed to its transport. */
export interface Forwarded {
  wire: Rec | undefined;
  result: Promise<Rec>;
}

export interface Peer {
  /** For messages: `upstream server "everything"`, `the client`. */
  name: string;
  send(params: Rec): Forwarded;
}

function isRec(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Transport metadata (progress tokens, related tasks) is routing, not content: it stays out of decisions. */
export function splitMeta(params: unknown): { payload: Rec; meta?: Rec } {
  if (!isRec(params)) return { payload: {} };
  const { _meta, ...payload } = params;
  return isRec(_meta) ? { payload, meta: _meta } : { payload };
}

/**
 * A server-to-client request crosses the boundary the other way: its request is received from the
 * server and its answer is sent back to it, so both directions flip (recorded in each entry).
 */
export function policyFor(policy: ActivePolicy, flow: Flow): ActivePolicy {
  if (flow === 'client-to-server') return policy;
  const directions = { request: directionOf(policy, 'response'), response: directionOf(policy, 'request') };
  return { ...policy, options: { ...policy.options, directions } };
}

export async function relayRequest(s: RelaySession, flow: Flow, method: string, params: unknown, peer: Peer): Promise<Rec> {
  const policy = policyFor(s.policy, flow);
  const { payload, meta } = splitMeta(params);
  const request = await decideOrThrow(s, policy, { event: method, phase: 'request', payload, context: contextOf(s), extra: { flow } });
  if (request.effect === 'deny') throw deniedError(request);
  const intent = request.finalPayload;
  if (!isRec(intent)) throw new GatewayError(JSONRPC.internalError, `the chain left ${method} params that are not an object; nothing was forwarded`, { seq: request.appended.seq });

  let forwarded: Forwarded | undefined;
  let result: Rec;
  try {
    forwarded = peer.send(meta ? { ...intent, _meta: meta } : intent);
    result = await forwarded.result;
  } catch (e) {
    if (e instanceof GatewayError) throw e; // raised before sending (e.g. the client lacks the capability): nothing went out
    const err = peerError(peer.name, e, s.timeoutMs);
    await execute(s, request, forwarded?.wire ?? intent, errorRecord(err)).catch(() => undefined);
    throw new GatewayError(err.code, err.message, { ...err.data, seq: request.appended.seq });
  }
  const [execution, response] = await Promise.all([
    execute(s, request, forwarded.wire ?? intent, result),
    decideOrThrow(s, policy, { event: method, phase: 'response', payload: result, context: contextOf(s), extra: { flow, authorization: request.appended.seq } }),
  ]);
  if (response.effect === 'deny') throw deniedError(response);
  if (!isRec(response.finalPayload)) throw new GatewayError(JSONRPC.internalError, `the chain left a ${method} result that is not an object`, { seq: response.appended.seq });
  return withReceipts(response.finalPayload, request, response, execution);
}

function contextOf(s: RelaySession): DecisionRequest['context'] {
  return { time: s.clock.isoNow(), tenant: s.tenant, principal: s.principal, roles: s.roles, sessionId: s.sessionId, server: s.server };
}

async function decideOrThrow(s: RelaySession, policy: ActivePolicy, req: DecisionRequest): Promise<DecisionOutcome> {
  try {
    return await decide(req, { policy, log: s.log, clock: s.clock, onHookError: s.onHookError });
  } catch (e) {
    throw unrecordedError(e); // no durable entry, no forward: fail closed
  }
}

/** The execution entry: what went on the wire (without routing _meta) against the intent, and the result's digest. */
async function execute(s: RelaySession, request: DecisionOutcome, wire: Rec, result: unknown): Promise<ExecutionOutcome> {
  try {
    return await recordExecution({
      log: s.log,
      authorization: request.appended.seq,
      executed: splitMeta(wire).payload,
      resultDigest: digestJson(result),
      time: s.clock.isoNow(),
      tenant: s.tenant,
      principal: s.principal,
      session: s.sessionId,
      drift: s.drift ?? DEFAULT_DRIFT_RULES,
    });
  } catch (e) {
    throw unrecordedError(e);
  }
}

function withReceipts(result: Rec, request: DecisionOutcome, response: DecisionOutcome, execution: ExecutionOutcome): Rec {
  const meta = isRec(result._meta) ? result._meta : {};
  return {
    ...result,
    _meta: {
      ...meta,
      [RECEIPT_META]: request.receipt,
      [SEQ_META]: request.appended.seq,
      [RESPONSE_RECEIPT_META]: response.receipt,
      [EXECUTION_META]: { seq: execution.seq, drift: (execution.drift?.severity ?? null) as Json },
    },
  };
}
