// One decision from executeChain-shaped params, for both entry points (/mcp executeChain and
// REST /v1/authorize): the event and unknown-interceptor checks, the caller's own principal (acting
// for someone else needs the delegate role: onBehalfOf), the per-call timeout (recorded, since it
// shapes the decision), vouch's prechecks (co-signature, authorization link, drift), decide,
// and the receipt with the caller's signature when it verified.
import { withRead } from '../lazy-property.js';
import { decide, type ActivePolicy, type AnyOutcome, type DecisionOutcome, type Wait } from './decide.js';
import type { LogWriter } from '../log/index.js';
import type { DecisionExtras } from '../entries/index.js';
import { AccessError, InputError, VouchError } from '../errors.js';
import { assertKnownEvent, MAX_CLIENT_FIELD, traceContextOf, type ClaimedClient } from '../protocol/index.js';
import { recordedLabel } from '../interceptors/builtin/recorded-text.js';
import type { Guard } from './guards.js';
import type { Precheck, PrecheckRequest } from './precheck.js';
import type { Json } from '../interceptors/types.js';
import type { Receipt } from '../receipt/index.js';
import type { ChainContextParams, ExecuteChainParams } from './params.js';

/** The role that lets a caller act on behalf of another principal (recorded as onBehalfOf). */
export const DELEGATE_ROLE = 'delegate';

export interface Asker {
  principal: string;
  tenant: string;
  roles: string[];
}

export interface DecideParamsDeps {
  policy: ActivePolicy;
  log: LogWriter;
  now(): Date;
  clock?: { monotonic(): number };
  precheck?(req: PrecheckRequest): Promise<Precheck>;
  /** REST carries the caller's signature in a header. */
  callerSignatureHeader?: string;
  /** The request's MCP protocol version (/mcp: the 2026 envelope's, or the MCP-Protocol-Version header), recorded in the entry. */
  protocolVersion?: string;
  /** The MCP client as it names itself (2026 `_meta` clientInfo): recorded, never decided on, never identity. */
  clientInfo?: ClaimedClient;
  /** What the adapter refused before the chain (HTTP headers that disagree with the body): a guard that denies, recorded. */
  guards?: Guard[];
  /** What the answer waits for (decide.ts): the signed receipt (default) or only durability. */
  wait?: Wait;
  /** With wait "durable": false when nothing will read the outcome's `signed` (decide.ts followSigned). */
  followSigned?: boolean;
}

export function assertKnownInterceptors(policy: ActivePolicy, names: string[] | undefined): void {
  if (!names) return;
  const unknown = names.filter((n) => !policy.interceptors.some((i) => i.descriptor.name === n));
  if (unknown.length) throw new VouchError('ERR_UNKNOWN_INTERCEPTOR', `unknown interceptor(s): ${unknown.map((n) => JSON.stringify(n)).join(', ')}`);
}

/**
 * Whom the caller acts for, if anyone else: `context.onBehalfOf`, or a legacy `context.principal`
 * that is not the caller's. The principal itself is always the authenticated caller; acting for
 * another needs the delegate role (403 ERR_FORBIDDEN otherwise, before anything is decided or logged).
 */
export function onBehalfOf(ctx: ChainContextParams | undefined, who: Asker): string | undefined {
  const legacy = ctx?.principal !== undefined && ctx.principal !== who.principal ? ctx.principal : undefined;
  if (legacy !== undefined && ctx?.onBehalfOf !== undefined && legacy !== ctx.onBehalfOf) {
    throw new InputError('ERR_INPUT', 'context.principal and context.onBehalfOf name different principals', [{ path: '/context/principal', message: 'differs from onBehalfOf' }]);
  }
  const other = ctx?.onBehalfOf ?? legacy;
  if (other === undefined || other === who.principal) return undefined;
  if (!who.roles.includes(DELEGATE_ROLE)) throw new AccessError('ERR_FORBIDDEN', `acting on behalf of another principal needs the ${DELEGATE_ROLE} role`);
  return other;
}

export async function decideParams(p: ExecuteChainParams, who: Asker, deps: DecideParamsDeps & { wait?: 'signed' }): Promise<{ outcome: DecisionOutcome; receipt: Receipt }>;
export async function decideParams(p: ExecuteChainParams, who: Asker, deps: DecideParamsDeps): Promise<{ outcome: AnyOutcome; receipt?: Receipt; signed?: Promise<Receipt> }>;
export async function decideParams(p: ExecuteChainParams, who: Asker, deps: DecideParamsDeps): Promise<{ outcome: AnyOutcome; receipt?: Receipt; signed?: Promise<Receipt> }> {
  const { policy } = deps;
  assertKnownEvent(p.event, policy.events);
  assertKnownInterceptors(policy, p.interceptors);
  const delegateFor = onBehalfOf(p.context, who);
  const extra: DecisionExtras = { caller: who.principal };
  if (p.timeoutMs !== undefined) extra.timeoutMs = p.timeoutMs;
  // As claimed, as a recorded label: credentials redacted first, then cut (issue 35).
  if (deps.clientInfo !== undefined) extra.clientInfo = { name: recordedLabel(deps.clientInfo.name, MAX_CLIENT_FIELD - 1), version: recordedLabel(deps.clientInfo.version, MAX_CLIENT_FIELD - 1) };
  // W3C trace context (_meta traceparent and tracestate, either era; the HTTP headers are copied
  // there by the transport): recorded, so an exporter continues the caller's trace with the
  // vendors' state, and replay sees the same traceId. Baggage is not recorded (traceparent.ts).
  const tp = traceContextOf(p.meta);
  if (tp) extra.traceparent = tp.header;
  if (tp?.tracestate !== undefined) extra.tracestate = tp.tracestate;
  const traceId = p.context?.traceId ?? tp?.traceId;
  const pre = deps.precheck
    ? await deps.precheck({ event: p.event, phase: p.phase, payload: p.payload, meta: p.meta, sessionId: p.context?.sessionId, traceId, ...(delegateFor !== undefined && { onBehalfOf: delegateFor }), ...(deps.callerSignatureHeader !== undefined && { callerSignatureHeader: deps.callerSignatureHeader }) })
    : undefined;
  if (pre) Object.assign(extra, pre.extra);
  const effective = p.timeoutMs ? { ...policy, options: { ...policy.options, chainTimeoutMs: Math.min(p.timeoutMs, policy.options.chainTimeoutMs ?? p.timeoutMs) } } : policy;
  const outcome = await decide(
    {
      event: p.event,
      phase: p.phase,
      payload: p.payload,
      only: p.interceptors,
      context: {
        time: deps.now().toISOString(),
        tenant: who.tenant,
        principal: who.principal,
        onBehalfOf: delegateFor,
        roles: who.roles,
        sessionId: p.context?.sessionId,
        traceId,
        server: p.context?.server,
        ...(deps.protocolVersion !== undefined && { protocolVersion: deps.protocolVersion }),
      },
      extra,
      guards: deps.guards ? [...deps.guards, ...(pre?.guards ?? [])] : pre?.guards,
      attachments: pre?.attachments,
      wait: deps.wait,
      ...(deps.followSigned === false && { followSigned: false }),
    },
    { policy: effective, log: deps.log, clock: deps.clock },
  );
  pre?.after({ effect: outcome.effect, seq: outcome.appended.seq });
  const cosigned = (r: Receipt): Receipt => (pre?.callerSignature ? { ...r, callerSignature: pre.callerSignature } : r);
  if (outcome.receipt) return { outcome, receipt: cosigned(outcome.receipt) };
  // A durable answer need not wait for it: built for a caller that asks (decide.ts).
  let signed: Promise<Receipt> | undefined;
  const durable = outcome;
  // withRead, not a literal's getter: that kept each decision alive past scavenges (lazy-property.ts).
  return withRead({ outcome }, 'signed', () => {
    if (!signed) (signed = durable.signed!.then(cosigned)).catch(() => undefined);
    return signed;
  });
}
