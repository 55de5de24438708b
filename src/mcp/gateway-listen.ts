// subscriptions/listen decided before the SDK opens the stream (the SDK would answer it itself):
// the params to go on with, or the refusal to answer, signed either way.
import type { ActivePolicy } from '../decide/index.js';
import { JSONRPC } from '../protocol/index.js';
import { decideOrThrow } from './gateway-decision.js';
import { deniedError, type GatewayError } from './gateway-errors.js';
import type { Refusal } from './gateway-modern.js';
import { contextOf, type RelaySession } from './gateway-session.js';

export async function decideListen(session: RelaySession, policy: ActivePolicy, params: Record<string, unknown>): Promise<Record<string, unknown> | Refusal> {
  try {
    const out = await decideOrThrow(session, policy, { event: 'subscriptions/listen', phase: 'request', payload: params, context: contextOf(session), extra: { flow: 'client-to-server' }, wait: 'signed' });
    if (out.effect === 'deny' || typeof out.finalPayload !== 'object' || out.finalPayload === null) {
      const e = deniedError(out);
      return { code: e.code, message: e.message, data: e.data };
    }
    return out.finalPayload as Record<string, unknown>;
  } catch (e) {
    const g = e as GatewayError;
    return { code: g.code ?? JSONRPC.internalError, message: g.message, data: g.data };
  }
}
