// The `execution` entry (DESIGN.md section 5): what an app reports it ran, linked to the decision
// that authorized it, with the drift and the flags. One writer (execution/record.ts), one reader.
import type { Digest, Json } from '../canonical/index.js';
import type { Entry, EntryBody } from '../log/index.js';
import { checkerFor, compact, isRecord, type Rec, type FieldSpec } from './_check.js';

export type ExecutionFlag = 'unauthorized' | 'repeated' | 'intent-erased' | 'principal-mismatch' | 'session-mismatch' | 'drift-suspicious' | 'drift-critical';

export interface ExecutionFields {
  time: string;
  tenant: string;
  principal: string;
  /** Who reported the execution (the authenticated caller). */
  caller?: string;
  onBehalfOf?: string;
  session?: string;
  trace?: string;
  /** The authorization's event, else the one the caller named. */
  event?: string;
  /** The authorization's target (tool, prompt, resource), so the entry reads on its own. */
  target?: string;
  /** The decision it claims and that counted; null: none did (see `claimed`). */
  authorization: number | null;
  intent: { digest: Digest } | null;
  executed: { digest: Digest };
  result?: { digest: Digest };
  /** Counts and items (execution/record.ts driftRecord); null when not computed. */
  drift: Json | null;
  flags: ExecutionFlag[];
  /** Why each flag was raised, in words. */
  why?: Partial<Record<ExecutionFlag, string>>;
  /** An unauthorized execution's claimed seq and why it did not count. */
  claimed?: { authorization: number | null; reason: string };
}

export type ExecutionEntry = ExecutionFields & { type: 'execution'; v: 1; log: string; seq: number; prev: string };

export const EXECUTION_FIELDS: FieldSpec<ExecutionFields> = { time: 'required', tenant: 'required', principal: 'required', caller: 'optional', onBehalfOf: 'optional', session: 'optional', trace: 'optional', event: 'optional', target: 'optional', authorization: 'required', intent: 'required', executed: 'required', result: 'optional', drift: 'required', flags: 'required', why: 'optional', claimed: 'optional' };
export const EXECUTION_FLAGS: readonly ExecutionFlag[] = ['unauthorized', 'repeated', 'intent-erased', 'principal-mismatch', 'session-mismatch', 'drift-suspicious', 'drift-critical'];

export function executionEntryBody(f: ExecutionFields): EntryBody {
  return compact({ ...(f as unknown as Rec), why: f.flags.length ? f.why : undefined, type: 'execution' }) as unknown as EntryBody;
}

/** Throws InputError (ERR_INPUT) naming every field that is not what executionEntryBody writes. */
export function readExecutionEntry(e: Entry): ExecutionEntry {
  const c = checkerFor(e, 'execution');
  for (const k of ['tenant', 'principal'] as const) c.name(k);
  for (const k of ['caller', 'onBehalfOf', 'session', 'trace', 'event', 'target'] as const) c.str(k);
  c.seqOrNull('authorization');
  c.digestRef('intent', { nullable: true });
  c.digestRef('executed');
  c.digestRef('result', { optional: true });
  if (e.drift !== null && !(isRecord(e.drift) && typeof e.drift.severity === 'string')) c.bad('/drift', 'must be null or {severity, count, items}');
  if (!Array.isArray(e.flags) || !e.flags.every((f) => (EXECUTION_FLAGS as readonly unknown[]).includes(f))) c.bad('/flags', `must be a list of ${EXECUTION_FLAGS.join(', ')}`);
  if (e.why !== undefined && !(isRecord(e.why) && Object.values(e.why).every((v) => typeof v === 'string'))) c.bad('/why', 'must map flags to reasons');
  if (e.claimed !== undefined && !(isRecord(e.claimed) && typeof e.claimed.reason === 'string')) c.bad('/claimed', 'must be {authorization, reason}');
  c.done('execution');
  return e as unknown as ExecutionEntry;
}
