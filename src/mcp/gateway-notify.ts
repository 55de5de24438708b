// The gateway's messages that are not request/answer pairs: notifications either way (log
// messages, progress, cancellation, list changes), each decided on the chain of its way before it
// is forwarded, and the upstream's initialize answer (its name and instructions), decided before
// the client sees it. Both are signed decisions like any other; a deny drops or fails closed.
import type { Implementation, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { decide, type DecisionOutcome } from '../decide/index.js';
import { codeOf, publicMessage } from '../errors.js';
import { deniedError } from './gateway-errors.js';
import { decideOrThrow } from './gateway-decision.js';
import { withoutVouchMeta } from './gateway-meta.js';
import { contextOf, type Flow, type RelaySession } from './gateway-session.js';

type Rec = Record<string, unknown>;

function isRec(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A notification crossing the gateway (`flow` says which way): decided on the chain of that way,
 * phase request, and recorded like any message. Returns the params to forward (as the chain left
 * them), or undefined when it is denied or cannot be recorded: then it is not forwarded (fail closed).
 * Decisions and deliveries of one way are made in arrival order, so notifications keep their order,
 * and an answer waits for the notifications its peer sent before it (relayRequest).
 */
export function gateNotification(s: RelaySession, flow: Flow, method: string, params: unknown, deliver?: (params: Rec) => Promise<unknown>): Promise<Rec | undefined> {
  const policy = flow === 'client-to-server' ? s.policy : s.serverPolicy;
  const run = async (): Promise<Rec | undefined> => {
    const out = await decideNotification();
    if (out && deliver) await deliver(flow === 'server-to-client' ? withoutVouchMeta(out) : out);
    return out;
  };
  const decideNotification = async (): Promise<Rec | undefined> => {
    const payload = isRec(params) ? params : {};
    let outcome: DecisionOutcome;
    try {
      outcome = await decide({ event: method, phase: 'request', payload, context: contextOf(s), extra: { flow } }, { policy, log: s.log, clock: s.clock, onHookError: s.onHookError });
    } catch (e) {
      s.onDecided?.({ method, flow, denied: true, error: `not recorded (${codeOf(e)}): ${publicMessage(e)}` });
      return undefined;
    }
    if (outcome.effect === 'deny' || !isRec(outcome.finalPayload)) {
      s.onDecided?.({ method, flow, request: outcome.appended.seq, denied: true });
      return undefined;
    }
    return outcome.finalPayload;
  };
  const queues = (s.notificationQueues ??= {});
  const next = (queues[flow] ?? Promise.resolve()).then(run, run);
  queues[flow] = next.catch(() => undefined);
  return next;
}

export interface Welcome {
  capabilities: ServerCapabilities;
  serverInfo?: Implementation;
  instructions?: string;
}

/**
 * The upstream's initialize result as a response-phase decision (event `initialize`, client chain):
 * what the client will be told (capabilities, name, instructions), as the chain left it. A deny,
 * or a decision that cannot be recorded, fails the session: nothing of the upstream reaches the client.
 */
export async function decideInitialize(s: RelaySession, init: { capabilities?: ServerCapabilities; serverInfo?: Implementation; instructions?: string }): Promise<Welcome> {
  const payload: Rec = { capabilities: init.capabilities ?? {} };
  if (init.serverInfo) payload.serverInfo = init.serverInfo;
  if (init.instructions !== undefined) payload.instructions = init.instructions;
  const outcome = await decideOrThrow(s, s.policy, { event: 'initialize', phase: 'response', payload, context: contextOf(s), extra: { flow: 'client-to-server' } });
  if (outcome.effect === 'deny') throw deniedError(outcome);
  const out = isRec(outcome.finalPayload) ? outcome.finalPayload : {};
  return {
    capabilities: isRec(out.capabilities) ? (out.capabilities as ServerCapabilities) : {},
    serverInfo: isRec(out.serverInfo) && typeof out.serverInfo.name === 'string' ? (out.serverInfo as Implementation) : undefined,
    instructions: typeof out.instructions === 'string' ? out.instructions : undefined,
  };
}
