// One request across the gateway, either way: request-phase decision (durable before anything is
// sent) -> forward what was authorized -> response-phase decision -> the answer, or a coded error;
// then the execution entry (what went on the wire, what came back, drift). Receipts go to the party
// that asked for the decision (the client), never back to the upstream. Notifications and the
// upstream's initialize answer are decided in gateway-notify.ts.
import { digestJson } from '../canonical/index.js';
import type { Clock } from '../clock.js';
import { decide, elicitationAnswerGuard, keptElicitationAnswer, type ActivePolicy, type DecisionOutcome, type DecisionRequest, type DurableOutcome, type Guard, type Wait } from '../decide/index.js';
import { computeDrift, DEFAULT_DRIFT_RULES, driftRecord, recordExecution, type DriftRules, type DurableExecution, type ExecutionLog, type ExecutionOutcome } from '../execution/index.js';
import { JSONRPC, traceContextOf } from '../protocol/index.js';
import { deniedError, errorRecord, GatewayError, peerError, unrecordedError } from './gateway-errors.js';
import { RECEIPT_META } from '../http/mcp-server.js';
import { DURABLE_META, durableAnswer } from '../http/wait.js';
import type { LogWriter } from '../log/index.js';
import type { Receipt } from '../receipt/index.js';
import type { SessionPins } from './tool-pins.js';
import { outputSchemaVerdict, PROVENANCE_FACTS } from '../interceptors/builtin/index.js';
import { recordedLabel } from '../interceptors/builtin/recorded-text.js';
import type { Json } from '../interceptors/types.js';
import { ENRICHMENT_META, isEnricher } from '../interceptors/chain.js';
import { receiptPointers, takeAttachRequest, type ReceiptEvidence } from './gateway-evidence.js';


/** JSON-RPC's own codes and MCP's request timeout: what the upstream may learn of a client's error answer. */
const STANDARD_CODES: ReadonlySet<number> = new Set([JSONRPC.parseError, JSONRPC.invalidRequest, JSONRPC.methodNotFound, JSONRPC.invalidParams, JSONRPC.internalError, JSONRPC.timeout]);

export const SEQ_META = 'io.vouch/seq';
export const RESPONSE_RECEIPT_META = 'io.vouch/response-receipt';
/** With a durable answer whose signed receipt was not ready: the committed response-phase entry. */
export const RESPONSE_DURABLE_META = 'io.vouch/response-durable';

/** Which way the request crosses: client requests go up; sampling, elicitation, roots come down. */
export type Flow = 'client-to-server' | 'server-to-client';

type Rec = Record<string, unknown>;

export interface RelaySession {
  /** The chain for client requests (and their responses). */
  policy: ActivePolicy;
  /** The chain for server requests: the mirror, directions swapped (gateway-policy.ts). */
  serverPolicy: ActivePolicy;
  log: ExecutionLog;
  clock: Clock;
  tenant: string;
  principal: string;
  roles: string[];
  /** The upstream server's name: `context.server` of every decision. */
  server: string;
  sessionId: string;
  /** The MCP protocol version negotiated with the upstream (set once initialize is answered). */
  protocolVersion?: string;
  drift?: DriftRules;
  timeoutMs: number;
  onHookError?: (interceptor: string, e: unknown) => void;
  /**
   * Where the execution entry's append goes when it need not delay the answer: the gateway tracks
   * it (shutdown waits for it) and reports its failure. Absent: the answer waits for it.
   */
  background?: (what: string, p: Promise<unknown>) => void;
  /** Decisions the upstream asked for (their receipts stay on this side): seqs, for diagnostics. */
  onDecided?: (d: { method: string; flow: Flow; request?: number; response?: number; denied?: boolean; error?: string }) => void;
  /** The tail of each way's notification decisions (gateNotification keeps their order). */
  notificationQueues?: Partial<Record<Flow, Promise<unknown>>>;
  /** Pinned tool definitions (tool-pins.ts): tools/list hides changed tools, tools/call of one is denied. */
  pins?: SessionPins;
  /**
   * What a relayed request's decisions wait for: "durable" forwards once the entry is committed
   * and attaches signed receipts where ready (the rest are at GET /v1/entries/:seq); default "signed".
   */
  wait?: Wait;
  /** Where answers say their receipts are, and whether every answer carries them (gateway-evidence.ts). */
  evidence?: ReceiptEvidence;
}

/** The far side of one request: `wire` is the params as handed to its transport. */
export interface Forwarded {
  wire: Rec | undefined;
  result: Promise<Rec>;
}

export interface Peer {
  /** For messages: `upstream server "everything"`, `the client`. */
  name: string;
  /** `authorization`: the request-phase decision that let `params` go (what the peer asks back is linked to it). */
  send(params: Rec, authorization?: number): Forwarded;
}

function isRec(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A progress token is hop-by-hop routing (the SDK puts its own on the next hop), so it stays out
 * of decisions. The rest of _meta reaches the peer: it is decided on (and redacted) like the rest.
 */
export function splitProgress(params: unknown): { payload: Rec; token?: unknown } {
  if (!isRec(params)) return { payload: {} };
  if (!isRec(params._meta) || !('progressToken' in params._meta)) return { payload: params };
  const { _meta, ...body } = params;
  const { progressToken, ...meta } = _meta as Rec;
  return { payload: Object.keys(meta).length ? { ...body, _meta: meta } : body, token: progressToken };
}

function withProgress(payload: Rec, token: unknown): Rec {
  return token === undefined ? payload : { ...payload, _meta: { ...(isRec(payload._meta) ? payload._meta : {}), progressToken: token } };
}

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

/**
 * The elicitation answer the upstream gets: the one the chain left, checked again (a mutating
 * interceptor ran after the guard) and rebuilt from the allow-list, never the filler's object.
 */
function keptAnswer(intent: Rec, answer: Rec): Rec {
  const checked = elicitationAnswerGuard(intent, answer);
  if (checked.deny) throw new GatewayError(JSONRPC.internalError, `the chain left an elicitation answer the request did not ask for (${checked.deny}); nothing was forwarded`);
  return keptElicitationAnswer(answer);
}

/**
 * What the gateway checked of a tool result, for the provenance enricher (recorded as a guard that
 * never denies): the tool the authorized call named, whether it ran under a matched pin (a call
 * whose definition did not match was denied before it was sent), the output-schema verdict, and
 * the protocol version of the client's side (a 2026 client's; the session's is the upstream's): the
 * model reads the result in the client's session, whatever era the upstream spoke.
 */
function provenanceGuard(s: RelaySession, intent: Rec, result: Rec, more: Rec | undefined): Guard {
  const tool = typeof intent.name === 'string' ? intent.name : undefined;
  const record: Record<string, Json> = { pin: s.pins ? 'matched' : 'not pinned', outputSchema: outputSchemaVerdict(tool === undefined ? undefined : s.pins?.outputSchemaOf(tool), result) };
  if (tool !== undefined) record.tool = recordedLabel(tool);
  if (typeof more?.clientProtocolVersion === 'string') record.clientProtocolVersion = more.clientProtocolVersion;
  return { name: PROVENANCE_FACTS, record };
}

/** Pin checks that cannot be recorded fail closed, like a decision that cannot be recorded. */
async function pinGuard(pins: SessionPins, payload: Rec): Promise<Guard> {
  try {
    return await pins.callGuard(payload);
  } catch (e) {
    throw unrecordedError(e);
  }
}

async function pinFilter(pins: SessionPins, result: Rec): Promise<{ result: Rec; guards: Guard[] }> {
  try {
    return await pins.filterList(result);
  } catch (e) {
    throw unrecordedError(e);
  }
}

/** Hand the execution entry's append to the session's background, or wait for it. */
async function settle(s: RelaySession, p: Promise<unknown>): Promise<void> {
  if (s.background) s.background('execution entry', p);
  else await p;
}

/**
 * The decision context of a relayed message. `sessionId` is the gateway's own session (one stdio
 * process, or one `Mcp-Session-Id` on --listen): the conversation the stateful guards key their
 * state by, under the tenant and principal (interceptors/builtin/state-scope.ts). A transport
 * without sessions (MCP 2026-07-28 over HTTP) must leave it out, never mint one per request: the
 * principal is then the conversation, and a fresh id per request would empty every taint.
 */
export function contextOf(s: RelaySession): DecisionRequest['context'] {
  const ctx: DecisionRequest['context'] = { time: s.clock.isoNow(), tenant: s.tenant, principal: s.principal, roles: s.roles, sessionId: s.sessionId, server: s.server };
  if (s.protocolVersion !== undefined) ctx.protocolVersion = s.protocolVersion;
  return ctx;
}

/** A decision answered with its signed receipt (notifications, initialize: gateway-notify.ts). */
export async function decideOrThrow(s: RelaySession, policy: ActivePolicy, req: DecisionRequest & { wait?: 'signed' }): Promise<DecisionOutcome> {
  try {
    return await decide(req, { policy, log: s.log, clock: s.clock, onHookError: s.onHookError });
  } catch (e) {
    throw unrecordedError(e); // no durable entry, no forward: fail closed
  }
}

/**
 * A relayed request's decision, waiting for what s.wait says; a durable one's signed receipt is
 * noted once ready. `queued`: called once the decision's entry is queued for its commit (only then).
 */
async function decideRelayed(s: RelaySession, policy: ActivePolicy, req: DecisionRequest, queued?: () => void): Promise<RelayOutcome> {
  let out: RelayOutcome;
  try {
    out = await decide({ ...req, wait: s.wait ?? 'signed' }, { policy, log: queued ? thenQueue(s.log, queued) : s.log, clock: s.clock, onHookError: s.onHookError });
  } catch (e) {
    throw unrecordedError(e); // no durable entry, no forward: fail closed
  }
  if (!out.receipt) out.signed.then((r) => void ((out as DurableOutcome & { ready?: Receipt }).ready = r), () => undefined);
  return out;
}

/**
 * The log as decide() writes to it, calling `next` right after the entry is handed to the log:
 * what `next` appends before the log's next commit (its appends group-commit, log/appender.ts)
 * goes in the same transaction, after this entry.
 */
function thenQueue(log: LogWriter, next: () => void): LogWriter {
  const out: LogWriter = {
    append: (body, attachments) => {
      const p = log.append(body, attachments);
      next();
      return p;
    },
  };
  if (log.appendDurable) {
    const appendDurable = log.appendDurable.bind(log);
    out.appendDurable = (body, attachments, opts) => {
      const p = appendDurable(body, attachments, opts);
      next();
      return p;
    };
  }
  return out;
}

type RelayOutcome = DecisionOutcome | (DurableOutcome & { ready?: Receipt });

/** A deny carries its signed receipt: wait for it (denies are rare; the evidence is the point). */
async function signedOf(o: RelayOutcome): Promise<DecisionOutcome> {
  if (o.receipt) return o;
  try {
    return { ...o, appended: o.appended as DecisionOutcome['appended'], receipt: await o.signed };
  } catch (e) {
    throw unrecordedError(e);
  }
}

/** The signed receipt where ready, else the committed entry (its receipt is at GET /v1/entries/:seq). */
function evidenceOf(o: RelayOutcome, receiptKey: string, durableKey: string): Rec {
  const r = o.receipt ?? o.ready;
  return r ? { [receiptKey]: r } : { [durableKey]: durableAnswer(o.appended) };
}

/**
 * The execution entry: what went on the wire (but the progress token) against the intent, and the
 * result's digest. A durable session waits for its commit only, so that it does not ask for a
 * signature sooner than its decisions do (the pace of a durable log, pacing.ts).
 */
async function execute(s: RelaySession, request: RelayOutcome, wire: Rec, result: unknown): Promise<ExecutionOutcome | DurableExecution> {
  try {
    return await recordExecution({
      log: s.log,
      authorization: request.appended.seq,
      executed: splitProgress(wire).payload,
      resultDigest: digestJson(result),
      time: s.clock.isoNow(),
      tenant: s.tenant,
      principal: s.principal,
      session: s.sessionId,
      drift: s.drift ?? DEFAULT_DRIFT_RULES,
    }, s.wait === 'durable' ? 'durable' : 'signed');
  } catch (e) {
    throw unrecordedError(e);
  }
}

/**
 * With drift.failOnCritical, what went on the wire must not drift critically from what was
 * authorized: checked before the answer is released, recorded as the response decision's guard.
 */
function driftGuard(s: RelaySession, request: RelayOutcome, intent: Rec, wire: Rec): Guard[] | undefined {
  const rules = s.drift ?? DEFAULT_DRIFT_RULES;
  if (!rules.failOnCritical) return undefined;
  const drift = computeDrift(intent, splitProgress(wire).payload, rules);
  const record = { via: 'gateway', authorization: request.appended.seq, drift: driftRecord(drift) };
  const critical = drift.items.filter((i) => i.severity === 'critical').map((i) => i.path);
  return [{ name: 'execution', record, deny: critical.length ? `forwarded parameters drift critically from authorization #${request.appended.seq}: ${critical.slice(0, 5).join(', ')}` : undefined }];
}

/** vouch's own `_meta` keys: in anything the client gets, set by the gateway alone. */
const VOUCH_META_PREFIX = 'io.vouch/';

/**
 * A message of the upstream's own (a request to the client, a notification) without the `_meta`
 * keys only the gateway sets: a made-up receipt, seq or receipt URL is no evidence the client may
 * be handed. The decision recorded what the upstream sent; what went out is the execution's wire.
 */
export function withoutVouchMeta(p: Rec): Rec {
  if (!isRec(p._meta) || !Object.keys(p._meta).some((k) => k.startsWith(VOUCH_META_PREFIX))) return p;
  return { ...p, _meta: Object.fromEntries(Object.entries(p._meta).filter(([k]) => !k.startsWith(VOUCH_META_PREFIX))) };
}

/**
 * The answer with its evidence: each decision's signed receipt where ready (with `attach`, waited
 * for: one checkpoint signature after the upstream answered), else its committed entry; both seqs
 * and where each receipt is served (gateway-evidence.ts).
 */
async function withReceipts(s: RelaySession, result: Rec, request: RelayOutcome, response: RelayOutcome, attach: boolean): Promise<Rec> {
  // The peer's answer may carry keys of ours (a receipt of another call, a made-up durable entry or
  // receipt URL): every io.vouch/ key of the answer is the gateway's, so the peer's are dropped.
  // The enrichment key is the exception when the response's enrichment band wrote it (the band
  // drops the peer's own before it writes): what the model is told about the result.
  const banded = response.chain.results.some((r) => isRec(r.info) && r.info.role === 'enricher');
  const meta = isRec(result._meta) ? Object.fromEntries(Object.entries(result._meta).filter(([k]) => !k.startsWith(VOUCH_META_PREFIX) || (banded && k === ENRICHMENT_META))) : {};
  const [req, res] = attach ? await Promise.all([signedOf(request), signedOf(response)]) : [request, response];
  return {
    ...result,
    _meta: {
      ...meta,
      ...evidenceOf(req, RECEIPT_META, DURABLE_META),
      [SEQ_META]: request.appended.seq,
      ...evidenceOf(res, RESPONSE_RECEIPT_META, RESPONSE_DURABLE_META),
      ...receiptPointers(s.evidence, request.appended.seq, response.appended.seq),
    },
  };
}

