// The decisions of a relayed message: decide() on the session's log, failing closed (no durable
// entry, no forward), waiting for what the session's `wait` says; a deny's signed receipt awaited.
import { decide, type ActivePolicy, type DecisionOutcome, type DecisionRequest, type DurableOutcome } from '../decide/index.js';
import type { LogWriter } from '../log/index.js';
import type { Receipt } from '../receipt/index.js';
import { unrecordedError } from './gateway-errors.js';
import type { RelaySession } from './gateway-session.js';

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
export async function decideRelayed(s: RelaySession, policy: ActivePolicy, req: DecisionRequest, queued?: () => void): Promise<RelayOutcome> {
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

export type RelayOutcome = DecisionOutcome | (DurableOutcome & { ready?: Receipt });

/** A deny carries its signed receipt: wait for it (denies are rare; the evidence is the point). */
export async function signedOf(o: RelayOutcome): Promise<DecisionOutcome> {
  if (o.receipt) return o;
  try {
    return { ...o, appended: o.appended as DecisionOutcome['appended'], receipt: await o.signed };
  } catch (e) {
    throw unrecordedError(e);
  }
}
