// The guards a relayed request's response decision records beside the chain: pin checks, drift
// from the authorization, the provenance facts an enricher reads, and the elicitation answer kept.
import { elicitationAnswerGuard, keptElicitationAnswer, type Guard } from '../decide/index.js';
import { computeDrift, DEFAULT_DRIFT_RULES, driftRecord } from '../execution/index.js';
import { outputSchemaVerdict, PROVENANCE_FACTS } from '../interceptors/builtin/index.js';
import { recordedLabel } from '../interceptors/builtin/recorded-text.js';
import type { Json } from '../interceptors/types.js';
import { JSONRPC } from '../protocol/index.js';
import type { RelayOutcome } from './gateway-decision.js';
import { GatewayError, unrecordedError } from './gateway-errors.js';
import { splitProgress } from './gateway-meta.js';
import type { RelaySession } from './gateway-session.js';
import type { SessionPins } from './tool-pins.js';

type Rec = Record<string, unknown>;

/**
 * The elicitation answer the upstream gets: the one the chain left, checked again (a mutating
 * interceptor ran after the guard) and rebuilt from the allow-list, never the filler's object.
 */
export function keptAnswer(intent: Rec, answer: Rec): Rec {
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
export function provenanceGuard(s: RelaySession, intent: Rec, result: Rec, more: Rec | undefined): Guard {
  const tool = typeof intent.name === 'string' ? intent.name : undefined;
  const record: Record<string, Json> = { pin: s.pins ? 'matched' : 'not pinned', outputSchema: outputSchemaVerdict(tool === undefined ? undefined : s.pins?.outputSchemaOf(tool), result) };
  if (tool !== undefined) record.tool = recordedLabel(tool);
  if (typeof more?.clientProtocolVersion === 'string') record.clientProtocolVersion = more.clientProtocolVersion;
  return { name: PROVENANCE_FACTS, record };
}

/** Pin checks that cannot be recorded fail closed, like a decision that cannot be recorded. */
export async function pinGuard(pins: SessionPins, payload: Rec): Promise<Guard> {
  try {
    return await pins.callGuard(payload);
  } catch (e) {
    throw unrecordedError(e);
  }
}

export async function pinFilter(pins: SessionPins, result: Rec): Promise<{ result: Rec; guards: Guard[] }> {
  try {
    return await pins.filterList(result);
  } catch (e) {
    throw unrecordedError(e);
  }
}

/**
 * With drift.failOnCritical, what went on the wire must not drift critically from what was
 * authorized: checked before the answer is released, recorded as the response decision's guard.
 */
export function driftGuard(s: RelaySession, request: RelayOutcome, intent: Rec, wire: Rec): Guard[] | undefined {
  const rules = s.drift ?? DEFAULT_DRIFT_RULES;
  if (!rules.failOnCritical) return undefined;
  const drift = computeDrift(intent, splitProgress(wire).payload, rules);
  const record = { via: 'gateway', authorization: request.appended.seq, drift: driftRecord(drift) };
  const critical = drift.items.filter((i) => i.severity === 'critical').map((i) => i.path);
  return [{ name: 'execution', record, deny: critical.length ? `forwarded parameters drift critically from authorization #${request.appended.seq}: ${critical.slice(0, 5).join(', ')}` : undefined }];
}
