// One request across the gateway, either way: request-phase decision (durable before anything is
// sent) -> forward what was authorized -> response-phase decision -> the answer, or a coded error;
// then the execution entry (what went on the wire, what came back, drift). Receipts go to the party
// that asked for the decision (the client), never back to the upstream. Notifications and the
// upstream's initialize answer are decided in gateway-notify.ts.
import { elicitationAnswerGuard } from '../decide/index.js';
import { isEnricher } from '../interceptors/chain.js';
import { JSONRPC, traceContextOf } from '../protocol/index.js';
import { decideRelayed, signedOf, type RelayOutcome } from './gateway-decision.js';
import { deniedError, errorRecord, GatewayError, peerError } from './gateway-errors.js';
import { takeAttachRequest } from './gateway-evidence.js';
import { execute, settle } from './gateway-execution.js';
import { isRec, splitProgress, withoutVouchMeta, withProgress } from './gateway-meta.js';
import { withReceipts } from './gateway-receipts.js';
import { driftGuard, keptAnswer, pinFilter, pinGuard, provenanceGuard } from './gateway-relay-guards.js';
import { contextOf, type Flow, type Forwarded, type Peer, type RelaySession } from './gateway-session.js';

type Rec = Record<string, unknown>;

/** JSON-RPC's own codes and MCP's request timeout: what the upstream may learn of a client's error answer. */
const STANDARD_CODES: ReadonlySet<number> = new Set([JSONRPC.parseError, JSONRPC.invalidRequest, JSONRPC.methodNotFound, JSONRPC.invalidParams, JSONRPC.internalError, JSONRPC.timeout]);

/**
 * `call`: for a server's request (sampling, elicitation, roots), the request-phase decision of the
 * client call it was made for, where the gateway knows it (a 2026 input request; a 2025 request on
 * that call's HTTP stream). Both of its decisions record it, so an auditor follows one thread.
 * `more`: what an entry records of this request beside the session's (a 2026 client's claimed clientInfo and era).
 */
export async function relayRequest(s: RelaySession, flow: Flow, method: string, params: unknown, peer: Peer, call?: number, more?: Rec): Promise<Rec> {
  const policy = flow === 'client-to-server' ? s.policy : s.serverPolicy;
  const toUpstream = flow === 'server-to-client';
  const split = splitProgress(params);
  const token = split.token;
  // The caller's "attach the signed receipts" is for this hop, taken out before anything is decided.
  const { payload, attach } = toUpstream ? { payload: split.payload, attach: false } : takeAttachRequest(split.payload);
  // W3C trace context the message carries (_meta traceparent and tracestate, either era): recorded
  // on both of its decisions (trace, traceparent, tracestate). Baggage is not recorded (traceparent.ts).
  const tp = traceContextOf(isRec(payload._meta) ? payload._meta : undefined);
  const ctxOf = () => (tp ? { ...contextOf(s), traceId: tp.traceId } : contextOf(s));
  const traced: Rec = tp ? { traceparent: tp.header, ...(tp.tracestate !== undefined && { tracestate: tp.tracestate }), ...more } : { ...more };
  if (call !== undefined) traced.call = call;
  const pinned = s.pins && !toUpstream && method === 'tools/call' ? [await pinGuard(s.pins, payload)] : undefined;
  const request = await decideRelayed(s, policy, { event: method, phase: 'request', payload, context: ctxOf(), extra: { flow, ...traced }, guards: pinned });
  // The upstream asked for a server request (sampling...); the decision's receipt is the client side's, not its.
  if (request.effect === 'deny') {
    if (toUpstream) s.onDecided?.({ method, flow, request: request.appended.seq, denied: true });
    throw deniedError(await signedOf(request), { receipt: !toUpstream });
  }
  const intent = request.finalPayload;
  if (!isRec(intent)) throw new GatewayError(JSONRPC.internalError, `the chain left ${method} params that are not an object; nothing was forwarded`, { seq: request.appended.seq });

  let forwarded: Forwarded | undefined;
  let result: Rec;
  try {
    forwarded = peer.send(withProgress(toUpstream ? withoutVouchMeta(intent) : intent, token), request.appended.seq);
    result = await forwarded.result;
  } catch (e) {
    // Raised before sending (e.g. the client lacks the capability): nothing went out. Once sent, a
    // GatewayError is the peer's answer too (a 2026 input request of this call denied): recorded below.
    if (e instanceof GatewayError && forwarded === undefined) throw e;
    const err = peerError(peer.name, e, s.timeoutMs);
    await settle(s, execute(s, request, forwarded?.wire ?? intent, errorRecord(err))).catch(() => undefined); // the peer's error is the answer
    // The client's error answer to a server's request (elicitation, sampling, roots) goes upstream as
    // a fixed text and a standard code: its message and data are the client's free text, a channel
    // past the chain that no response decision judged (issue 35).
    if (toUpstream) throw new GatewayError(STANDARD_CODES.has(err.code) ? err.code : JSONRPC.internalError, `the client did not answer ${method}`, { peer: peer.name });
    throw new GatewayError(err.code, err.message, { ...err.data, seq: request.appended.seq });
  }
  const wire = forwarded.wire ?? intent;
  // Progress and log messages the peer sent before its answer reach the caller before it.
  await s.notificationQueues?.[toUpstream ? 'client-to-server' : 'server-to-client'];
  // A listing shows only tools whose definitions match their pins (the hidden ones are recorded as a guard).
  const listed = s.pins && !toUpstream && method === 'tools/list' ? await pinFilter(s.pins, result) : undefined;
  // An elicitation's answer may carry only the fields its authorized request asked for.
  const answered = method === 'elicitation/create' ? [elicitationAnswerGuard(intent, result)] : [];
  // Recorded only where an enricher may read it: other entries stay as they were.
  const provenance = !toUpstream && method === 'tools/call' && policy.interceptors.some(isEnricher) ? [provenanceGuard(s, intent, result, more)] : [];
  const guards = [...(driftGuard(s, request, intent, wire) ?? []), ...(listed?.guards ?? []), ...answered, ...provenance];
  // The execution entry is appended right behind the response decision (the answer's own
  // evidence): queued as soon as that entry is, so both usually commit in one transaction, one
  // fsync (issue 36: a commit of its own cost each call an fsync and blocked the event loop once
  // the answer had gone). It never enters the log before the response decision.
  let executed: Promise<unknown> | undefined;
  const recordExecuted = () => (executed ??= execute(s, request, wire, result));
  let response: RelayOutcome;
  try {
    response = await decideRelayed(s, policy, { event: method, phase: 'response', payload: listed?.result ?? result, context: ctxOf(), extra: { flow, authorization: request.appended.seq, ...traced }, guards: guards.length ? guards : undefined }, recordExecuted);
  } catch (e) {
    if (executed) await settle(s, executed).catch(() => undefined); // its batch failed too, or it is recorded: not left unwatched
    throw e;
  }
  await settle(s, recordExecuted());
  if (response.effect === 'deny') {
    if (toUpstream) s.onDecided?.({ method, flow, request: request.appended.seq, response: response.appended.seq, denied: true });
    throw deniedError(await signedOf(response), { receipt: !toUpstream, reason: !toUpstream });
  }
  if (!isRec(response.finalPayload)) throw new GatewayError(JSONRPC.internalError, `the chain left a ${method} result that is not an object`, { seq: response.appended.seq });
  if (toUpstream) {
    const answer = method === 'elicitation/create' ? keptAnswer(intent, response.finalPayload) : response.finalPayload;
    s.onDecided?.({ method, flow, request: request.appended.seq, response: response.appended.seq });
    return answer;
  }
  return withReceipts(s, response.finalPayload, request, response, attach || s.evidence?.attachAll === true);
}
