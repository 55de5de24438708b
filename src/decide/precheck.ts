// What vouch checks itself before a decision's chain runs, from the request's _meta (or REST
// header): the caller's co-signature, and on a response the link to the request decision that
// authorized it and the drift of what ran from that intent. Each outcome is recorded (entry
// fields and guard state), so replay needs neither the keys nor the in-memory link index.
import { canonicalBytes, digestBytes } from '../canonical/index.js';
import type { PublicKeyEntry } from '../crypto/index.js';
import type { Guard } from './guards.js';
import { elicitationAnswerGuard } from './elicitation-answer.js';
import { InputError } from '../errors.js';
import type { Json, Phase } from '../interceptors/types.js';
import type { Attachment } from '../log/index.js';
import type { DecisionExtras } from '../entries/index.js';
import { checkCallerSignature, parseCallerSignatureClaim, parseCallerSignatureHeader, CALLER_SIGNATURE_META, type CallerSignature } from '../receipt/index.js';
import { computeDrift, driftRecord, loadAuthorization, type DriftRules, type LinkOwner, type LogReader, type RecentAuthorizations } from '../execution/index.js';

export const AUTHORIZATION_META = 'io.vouch/authorization';
export const EXECUTED_META = 'io.vouch/executed';

export interface PrecheckRequest {
  event: string;
  phase: Phase;
  payload: unknown;
  meta?: Record<string, unknown>;
  sessionId?: string;
  traceId?: string;
  /** Whom the caller acts for (delegate role, checked before): a link may name that principal's decision. */
  onBehalfOf?: string;
  /** REST: the X-Vouch-Caller-Signature header, when sent. */
  callerSignatureHeader?: string;
}

export interface PrecheckDeps {
  tenant: string;
  /** The authenticated caller: a link is followed only to its own decisions (execution/link.ts). */
  principal: string;
  log: LogReader;
  /** The tenant's trusted caller keys (kid = the keyId callers sign with). */
  callerKeys?: () => Promise<PublicKeyEntry[]>;
  drift: DriftRules;
  /** The fallback link index (see link-index.ts); without it only the _meta link is used. */
  recent?: RecentAuthorizations;
  /** Co-signing required: a request (request phase) without a caller signature is a recorded deny. */
  requireCallerSignature?: boolean;
}

export interface Precheck {
  extra: DecisionExtras;
  guards: Guard[];
  attachments: Attachment[];
  /** For the receipt, when the caller's signature verified. */
  callerSignature?: CallerSignature;
  /** Call once the decision is durable: an allowed request becomes the fallback link target, a denied one clears it. */
  after(outcome: { effect: 'allow' | 'deny'; seq: number }): void;
}

export async function runPrechecks(req: PrecheckRequest, deps: PrecheckDeps): Promise<Precheck> {
  const out: Precheck = { extra: {}, guards: [], attachments: [], after: () => {} };
  await checkCaller(req, deps, out);
  if (req.phase === 'response') await checkExecution(req, deps, out);
  else if (deps.recent) {
    const recent = deps.recent;
    const owner = ownerOf(req, deps);
    out.after = (o) => {
      if (o.effect === 'allow') recent.remember(owner, req.sessionId, req.traceId, o.seq);
      else recent.forget(owner, req.sessionId, req.traceId);
    };
  }
  return out;
}

function ownerOf(req: PrecheckRequest, deps: PrecheckDeps): LinkOwner {
  return { tenant: deps.tenant, principal: deps.principal, ...(req.onBehalfOf !== undefined && { onBehalfOf: req.onBehalfOf }) };
}

async function checkCaller(req: PrecheckRequest, deps: PrecheckDeps, out: Precheck): Promise<void> {
  const inMeta = req.meta?.[CALLER_SIGNATURE_META];
  if (inMeta !== undefined && req.callerSignatureHeader !== undefined) {
    throw new InputError('ERR_INPUT', 'caller signature given twice (header and _meta)', [{ path: `/_meta/${CALLER_SIGNATURE_META}`, message: 'duplicate' }]);
  }
  if (inMeta === undefined && req.callerSignatureHeader === undefined) {
    // Required: the deny is a guard like a bad signature, so it is decided, signed and recorded.
    if (deps.requireCallerSignature && req.phase === 'request') {
      out.guards.push({
        name: 'callerSignature',
        record: { ok: false, keyId: null, required: true },
        deny: `a caller signature is required: sign the JCS bytes of the payload and send it in _meta["${CALLER_SIGNATURE_META}"] (or the X-Vouch-Caller-Signature header)`,
      });
    }
    return;
  }
  const claim = inMeta !== undefined ? parseCallerSignatureClaim(inMeta, `/_meta/${CALLER_SIGNATURE_META}`) : parseCallerSignatureHeader(req.callerSignatureHeader!);
  const check = checkCallerSignature(claim, req.payload, deps.callerKeys ? await deps.callerKeys() : []);
  out.extra.callerSignature = check.record as unknown as Json;
  if (check.ok) out.extra.callerKey = claim.keyId;
  out.guards.push({ name: 'callerSignature', record: { ok: check.ok, keyId: claim.keyId }, deny: check.reason });
  if (check.ok) out.callerSignature = check.receipt;
}

function claimedSeq(meta: Record<string, unknown> | undefined): number | undefined {
  const v = meta?.[AUTHORIZATION_META];
  if (v === undefined) return undefined;
  if (!Number.isSafeInteger(v) || (v as number) < 0) throw new InputError('ERR_INPUT', `${AUTHORIZATION_META} must be the seq of the request decision`, [{ path: `/_meta/${AUTHORIZATION_META}`, message: 'not a non-negative integer' }]);
  return v as number;
}

/**
 * Response phase: link to the request decision (the _meta seq, else the fallback index), and
 * when the host reports the executed parameters, their drift from the authorized intent. With
 * drift.failOnCritical a critical drift, or executed parameters nothing authorized, is a deny.
 */
async function checkExecution(req: PrecheckRequest, deps: PrecheckDeps, out: Precheck): Promise<void> {
  const claimed = claimedSeq(req.meta);
  const hasExecuted = req.meta !== undefined && Object.hasOwn(req.meta, EXECUTED_META);
  const owner = ownerOf(req, deps);
  const fallback = claimed === undefined ? deps.recent?.lookup(owner, req.sessionId, req.traceId) : undefined;
  const seq = claimed ?? fallback;
  if (seq === undefined && !hasExecuted) return;
  const auth = await loadAuthorization(deps.log, seq ?? null, owner);
  const record: Record<string, Json> = { via: claimed !== undefined ? 'meta' : fallback !== undefined ? 'session-trace' : 'none', authorization: auth.ok ? auth.seq : null };
  if (!auth.ok) record.problem = auth.reason;
  out.extra.authorization = auth.ok ? auth.seq : null;
  let deny: string | undefined;
  if (hasExecuted) {
    const executed = req.meta![EXECUTED_META];
    const bytes = canonicalBytes(executed);
    const digest = digestBytes(bytes);
    out.attachments.push({ digest, bytes });
    out.extra.executed = { digest };
    record.executed = digest;
    if (auth.ok && auth.intentAvailable) {
      const drift = computeDrift(auth.intent, executed, deps.drift);
      record.intent = auth.intentDigest;
      record.drift = driftRecord(drift);
      if (deps.drift.failOnCritical && drift.severity === 'critical') {
        const paths = drift.items.filter((i) => i.severity === 'critical').slice(0, 5).map((i) => `${i.path} (${i.op})`);
        deny = `executed parameters drift critically from authorization #${auth.seq}: ${paths.join(', ')}${drift.counts.critical > paths.length ? ', …' : ''}`;
      }
    } else if (deps.drift.failOnCritical) {
      // Fail closed: what cannot be compared with an intent cannot be shown not to drift.
      deny = auth.ok ? `executed parameters cannot be compared: the intent of authorization #${auth.seq} was erased` : `executed parameters have no authorization: ${auth.reason}`;
    }
  }
  out.guards.push({ name: 'execution', record, deny });
  // An elicitation's answer, linked to its request: only the fields the request asked for (as the gateway checks).
  if (req.event === 'elicitation/create' && auth.ok && auth.intentAvailable) out.guards.push(elicitationAnswerGuard(auth.intent, req.payload));
}
