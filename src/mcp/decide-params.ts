// One decision from executeChain-shaped params, for both entry points (/mcp executeChain and
// REST /v1/authorize): the unknown-interceptor check, the per-call timeout (recorded, since it
// shapes the decision), vouch's prechecks (co-signature, authorization link, drift), decide,
// and the receipt with the caller's signature when it verified.
import { decide, type ActivePolicy, type DecisionOutcome, type LogWriter } from '../decide.js';
import { VouchError } from '../errors.js';
import type { Precheck, PrecheckRequest } from '../execution/index.js';
import type { Json } from '../interceptors/types.js';
import type { Receipt } from '../receipt/index.js';
import type { ExecuteChainParams } from './params.js';

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
}

export function assertKnownInterceptors(policy: ActivePolicy, names: string[] | undefined): void {
  if (!names) return;
  const unknown = names.filter((n) => !policy.interceptors.some((i) => i.descriptor.name === n));
  if (unknown.length) throw new VouchError('ERR_UNKNOWN_INTERCEPTOR', `unknown interceptor(s): ${unknown.map((n) => JSON.stringify(n)).join(', ')}`);
}

export async function decideParams(p: ExecuteChainParams, who: Asker, deps: DecideParamsDeps): Promise<{ outcome: DecisionOutcome; receipt: Receipt }> {
  const { policy } = deps;
  assertKnownInterceptors(policy, p.interceptors);
  const extra: Record<string, Json> = { caller: who.principal };
  if (p.timeoutMs !== undefined) extra.timeoutMs = p.timeoutMs;
  const pre = deps.precheck
    ? await deps.precheck({ event: p.event, phase: p.phase, payload: p.payload, meta: p.meta, sessionId: p.context?.sessionId, traceId: p.context?.traceId, ...(deps.callerSignatureHeader !== undefined && { callerSignatureHeader: deps.callerSignatureHeader }) })
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
        principal: p.context?.principal ?? who.principal,
        roles: who.roles,
        sessionId: p.context?.sessionId,
        traceId: p.context?.traceId,
        server: p.context?.server,
      },
      extra,
      guards: pre?.guards,
      attachments: pre?.attachments,
    },
    { policy: effective, log: deps.log, clock: deps.clock },
  );
  pre?.after({ effect: outcome.effect, seq: outcome.appended.seq });
  const receipt = pre?.callerSignature ? { ...outcome.receipt, callerSignature: pre.callerSignature } : outcome.receipt;
  return { outcome, receipt };
}
