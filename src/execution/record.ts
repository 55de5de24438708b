// Execution entries (DESIGN.md section 5): what an app reports it ran, linked to the decision
// that authorized it, with the drift between the two. An execution that no allowed decision
// covers is recorded all the same, flagged `unauthorized`: evidence is never dropped.
import { canonicalBytes, digestBytes, type Digest } from '../canonical/index.js';
import { recordedJson, recordedLabelOf } from '../interceptors/builtin/recorded-text.js';
import type { Json } from '../interceptors/types.js';
import type { Appended, Attachment, Durable, EntryBody } from '../log/index.js';
import { executionEntryBody, type ExecutionFields, type ExecutionFlag } from '../entries/index.js';
import { buildReceipt, type Receipt } from '../receipt/index.js';
import { computeDrift, type DriftReport } from './drift.js';
import { DEFAULT_DRIFT_RULES, type DriftRules } from './drift-rules.js';
import { driftValues, type DriftValue } from './drift-values.js';
import { hasSize, withExecutions } from './executed-index.js';
import { loadAuthorization, type Authorization, type LogReader } from './link.js';
import { isDigest, parseJson, utf8 } from '../canonical/index.js';


export interface ExecutionLog extends LogReader {
  append(body: EntryBody, attachments?: Attachment[]): Promise<Appended>;
  /** Append and wait only until the entry is committed (absent: `append`). */
  appendDurable?(body: EntryBody, attachments?: Attachment[]): Promise<Durable>;
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

/** What `recordExecution` waits for: the signed receipt (default), or only the commit ("durable"). */
export type ExecutionWait = 'signed' | 'durable';

/** An execution entry recorded with wait "durable": committed; `durable.signed` resolves once a checkpoint covers it. */
export interface DurableExecution {
  seq: number;
  flags: ExecutionFlag[];
  why: Partial<Record<ExecutionFlag, string>>;
  body: EntryBody;
  durable: Durable;
}

export interface ExecutionOutcome {
  seq: number;
  /** The drift, its items with the authorized and executed values (digests where a redactor acted). */
  drift: (Omit<DriftReport, 'items'> & { items: DriftValue[] }) | null;
  flags: ExecutionFlag[];
  /** Why each flag was raised, in words (also in the entry as `why`). */
  why: Partial<Record<ExecutionFlag, string>>;
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

/**
 * Record what ran. With wait "durable" (where the log can commit ahead of signing) the promise
 * resolves once the entry is committed, with no receipt and no drift values read back: for a
 * caller that answers before the entry's checkpoint (the gateway's default).
 */
export function recordExecution(input: ExecutionInput, wait: ExecutionWait): Promise<ExecutionOutcome | DurableExecution>;
export function recordExecution(input: ExecutionInput, wait?: 'signed'): Promise<ExecutionOutcome>;
export async function recordExecution(input: ExecutionInput, wait: ExecutionWait = 'signed'): Promise<ExecutionOutcome | DurableExecution> {
  // Hash first: this also rejects what JCS cannot represent (and bounds the depth drift walks).
  const executedBytes = canonicalBytes(input.executed);
  const executedDigest = digestBytes(executedBytes);
  const auth = await loadAuthorization(input.log, input.authorization, { tenant: input.tenant, principal: input.principal, onBehalfOf: input.onBehalfOf });
  // A second execution of one authorization is flagged: the index needs the log's size.
  const log = input.log;
  const go = (earlier: number | undefined) => record(input, auth, executedBytes, executedDigest, earlier, wait);
  if (auth.ok && hasSize(log)) return withExecutions(log, auth.seq, go);
  return go(undefined);
}

async function record(reported: ExecutionInput, auth: Authorization, executedBytes: Uint8Array, executedDigest: Digest, earlier: number | undefined, wait: ExecutionWait): Promise<ExecutionOutcome | DurableExecution> {
  // The reporter's ids are recorded labels, as a decision's are (decide.ts): compared and signed alike.
  const input = { ...reported, session: recordedLabelOf(reported.session), trace: recordedLabelOf(reported.trace), onBehalfOf: recordedLabelOf(reported.onBehalfOf), event: recordedLabelOf(reported.event) };
  const flags: ExecutionFlag[] = [];
  const why: Partial<Record<ExecutionFlag, string>> = {};
  const flag = (f: ExecutionFlag, reason: string) => (flags.push(f), (why[f] = reason));
  let drift: DriftReport | null = null;
  if (!auth.ok) flag('unauthorized', input.authorization === null ? auth.reason : `#${input.authorization} is no authorization: ${auth.reason}`);
  else {
    if (earlier !== undefined) flag('repeated', `authorization #${auth.seq} was already executed (entry #${earlier})`);
    if (!auth.intentAvailable) flag('intent-erased', `the intent of authorization #${auth.seq} was erased: drift cannot be computed`);
    else drift = computeDrift(auth.intent, input.executed, input.drift ?? DEFAULT_DRIFT_RULES);
    // Only a delegate acting for the authorization's principal gets here with another principal (link.ts).
    if (auth.entry.principal !== undefined && auth.entry.principal !== input.principal) flag('principal-mismatch', `authorized for ${String(auth.entry.principal)}, executed by ${input.principal}`);
    if (input.session !== undefined && auth.entry.session !== undefined && auth.entry.session !== input.session) flag('session-mismatch', `authorized in session ${String(auth.entry.session)}, executed in ${input.session}`);
    const paths = (sev: string) => drift!.items.filter((i) => i.severity === sev).slice(0, 5).map((i) => i.path).join(', ');
    if (drift?.severity === 'suspicious') flag('drift-suspicious', `changed: ${paths('suspicious')}`);
    if (drift?.severity === 'critical') flag('drift-critical', `changed: ${paths('critical')}`);
  }
  const fields: ExecutionFields = {
    time: input.time,
    tenant: input.tenant,
    principal: input.principal,
    caller: input.caller,
    onBehalfOf: input.onBehalfOf,
    session: input.session,
    trace: input.trace,
    event: auth.ok ? auth.entry.event : input.event,
    // The authorization's target name (tool, prompt, resource), so the entry reads on its own.
    target: auth.ok && typeof auth.entry.target === 'string' ? auth.entry.target : undefined,
    authorization: auth.ok ? auth.seq : null,
    intent: auth.ok ? { digest: auth.intentDigest } : null,
    executed: { digest: executedDigest },
    result: input.resultDigest ? { digest: input.resultDigest } : undefined,
    drift: drift ? driftRecord(drift) : null,
    flags,
    why,
    // An unauthorized execution keeps the seq it claimed and why it did not count, for the auditor.
    claimed: auth.ok ? undefined : { authorization: input.authorization, reason: auth.reason },
  };
  // Drift paths are the executed payload's keys, reasons quote the caller's seq and ids: no credential stays in them.
  const body = executionEntryBody({ ...fields, drift: recordedJson(fields.drift), why: recordedJson(fields.why), claimed: recordedJson(fields.claimed) });
  const attachments = [{ digest: executedDigest, bytes: executedBytes }];
  if (wait === 'durable' && input.log.appendDurable) {
    const durable = await input.log.appendDurable(body as EntryBody, attachments);
    return { seq: durable.seq, flags, why, body: body as EntryBody, durable };
  }
  const appended = await input.log.append(body as EntryBody, attachments);
  const shown = drift && auth.ok ? { ...drift, items: driftValues(drift.items, auth.intent, input.executed, await inputOf(input.log, auth)) } : null;
  return { seq: appended.seq, drift: shown, flags, why, body: body as EntryBody, appended, receipt: buildReceipt(appended) };
}

/** The authorization's input payload (before redactors), to tell where a redactor acted; undefined when erased. */
async function inputOf(log: LogReader, auth: Authorization & { ok: true }): Promise<{ value: unknown } | undefined> {
  const d = (auth.entry.input as { digest?: unknown } | undefined)?.digest;
  if (!isDigest(d)) return undefined;
  const bytes = await log.payload(d);
  if (!bytes) return undefined;
  try {
    return { value: parseJson(utf8.decode(bytes)) };
  } catch {
    return undefined;
  }
}
