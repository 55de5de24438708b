// The execution entry of a relayed request (what went on the wire against what was authorized,
// the result's digest), and where its append goes: the session's background, or awaited.
import { digestJson } from '../canonical/index.js';
import { DEFAULT_DRIFT_RULES, recordExecution, type DurableExecution, type ExecutionOutcome } from '../execution/index.js';
import type { RelayOutcome } from './gateway-decision.js';
import { unrecordedError } from './gateway-errors.js';
import { splitProgress } from './gateway-meta.js';
import type { RelaySession } from './gateway-session.js';

type Rec = Record<string, unknown>;

/** Hand the execution entry's append to the session's background, or wait for it. */
export async function settle(s: RelaySession, p: Promise<unknown>): Promise<void> {
  if (s.background) s.background('execution entry', p);
  else await p;
}

/**
 * The execution entry: what went on the wire (but the progress token) against the intent, and the
 * result's digest. A durable session waits for its commit only, so that it does not ask for a
 * signature sooner than its decisions do (the pace of a durable log, pacing.ts).
 */
export async function execute(s: RelaySession, request: RelayOutcome, wire: Rec, result: unknown): Promise<ExecutionOutcome | DurableExecution> {
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
