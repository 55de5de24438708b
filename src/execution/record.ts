// Execution entries (DESIGN.md section 5): what an app reports it ran, linked to the decision
// that authorized it, with the drift between the two. An execution that no allowed decision
// covers is recorded all the same, flagged `unauthorized`: evidence is never dropped.
import { canonicalBytes, digestBytes, type Digest } from '../canonical/index.js';
import type { Json } from '../interceptors/types.js';
import type { Appended, Attachment, EntryBody } from '../log/index.js';
import { buildReceipt, type Receipt } from '../receipt/index.js';
import { computeDrift, type DriftReport } from './drift.js';
import { DEFAULT_DRIFT_RULES, type DriftRules } from './drift-rules.js';
import { loadAuthorization, type LogReader } from './link.js';

export type ExecutionFlag = 'unauthorized' | 'intent-erased' | 'principal-mismatch' | 'session-mismatch' | 'drift-suspicious' | 'drift-critical';

export interface ExecutionLog extends LogReader {
  append(body: EntryBody, attachments?: Attachment[]): Promise<Appended>;
}

export interface ExecutionInput {
  log: ExecutionLog;
  /** Seq of the decision that authorized this execution, as the caller names it. */
  authorization: number | null;
  /** The parameters that actually ran (same shape as the authorized payload). */
  executed: unknown;
  resultDigest?: Digest;
  /** RFC 3339, from the caller's clock port (the core never reads the clock). */
  time: string;
  tenant: string;
  principal: string;
  /** Who reported the execution (the authenticated caller). */
  caller?: string;
  /** Whom the caller acted for (delegate role), recorded beside the principal. */
  onBehalfOf?: string;
  session?: string;
  trace?: string;
  /** The event, when no authorization names it. */
  event?: string;
  drift?: DriftRules;
}

export interface ExecutionOutcome {
  seq: number;
  drift: DriftReport | null;
  flags: ExecutionFlag[];
  body: EntryBody;
  appended: Appended;
  receipt: Receipt;
}

/** The drift as recorded in an entry: counts and items, without the per-severity table. */
export function driftRecord(d: DriftReport): Json {
  const r: Record<string, Json> = { severity: d.severity, count: d.count, items: d.items as unknown as Json };
  if (d.truncated) r.truncated = true;
  return r;
}

export async function recordExecution(input: ExecutionInput): Promise<ExecutionOutcome> {
  // Hash first: this also rejects what JCS cannot represent (and bounds the depth drift walks).
  const executedBytes = canonicalBytes(input.executed);
  const executedDigest = digestBytes(executedBytes);
  const auth = await loadAuthorization(input.log, input.authorization, input.tenant);
  const flags: ExecutionFlag[] = [];
  let drift: DriftReport | null = null;
  if (!auth.ok) flags.push('unauthorized');
  else {
    if (!auth.intentAvailable) flags.push('intent-erased');
    else drift = computeDrift(auth.intent, input.executed, input.drift ?? DEFAULT_DRIFT_RULES);
    if (auth.entry.principal !== undefined && auth.entry.principal !== input.principal) flags.push('principal-mismatch');
    if (input.session !== undefined && auth.entry.session !== undefined && auth.entry.session !== input.session) flags.push('session-mismatch');
    if (drift?.severity === 'suspicious') flags.push('drift-suspicious');
    if (drift?.severity === 'critical') flags.push('drift-critical');
  }
  const body: Record<string, Json | undefined> = {
    type: 'execution',
    time: input.time,
    tenant: input.tenant,
    principal: input.principal,
    caller: input.caller,
    onBehalfOf: input.onBehalfOf,
    session: input.session,
    trace: input.trace,
    event: auth.ok ? (auth.entry.event as Json) : input.event,
    authorization: auth.ok ? auth.seq : null,
    intent: auth.ok ? { digest: auth.intentDigest } : null,
    executed: { digest: executedDigest },
    result: input.resultDigest ? { digest: input.resultDigest } : undefined,
    drift: drift ? driftRecord(drift) : null,
    flags,
  };
  // An unauthorized execution keeps the seq it claimed and why it did not count, for the auditor.
  if (!auth.ok) body.claimed = { authorization: input.authorization, reason: auth.reason };
  for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
  const appended = await input.log.append(body as EntryBody, [{ digest: executedDigest, bytes: executedBytes }]);
  return { seq: appended.seq, drift, flags, body: body as EntryBody, appended, receipt: buildReceipt(appended) };
}
