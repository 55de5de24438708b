// The facts a replay needs from one decision entry (what decide() recorded), read through the
// decision entry's reader: an entry from a bundle is untrusted input until it has been checked.
import type { Digest } from '../canonical/index.js';
import { readDecisionEntry } from '../entries/index.js';
import type { ChainContext } from '../interceptors/chain.js';
import type { Json, Phase } from '../interceptors/types.js';
import type { Entry } from '../log/index.js';

export interface DecisionFacts {
  seq: number;
  event: string;
  phase: Phase;
  direction?: string;
  context: ChainContext;
  /** The optional interceptors the caller asked for (executeChain's `interceptors`). */
  only?: string[];
  /** The interceptors the chain ran; absent in entries written before mandatory chains (then `only` filtered all). */
  ran?: string[];
  policy: { chain: Digest; policySet: Digest; engines: Record<string, string> };
  /** undefined when decide() refused the payload itself (`input: {rejected: true}`). */
  inputDigest?: Digest;
  intentDigest: Digest | null;
  decision: Json;
  effect: 'allow' | 'deny';
  state: Record<string, Json>;
  /** The tool, prompt or resource the entry names (decide.ts `target`); absent in older entries. */
  target?: string;
}

/** Throws InputError (ERR_INPUT) naming every field that is not what decide() writes (entries/decision.ts). */
export function parseDecisionFacts(e: Entry): DecisionFacts {
  const d = readDecisionEntry(e);
  const context: ChainContext = { time: d.time };
  if (d.session !== undefined) context.sessionId = d.session;
  if (d.trace !== undefined) context.traceId = d.trace;
  if (d.principal !== undefined) context.principal = d.principal;
  if (d.onBehalfOf !== undefined) context.onBehalfOf = d.onBehalfOf;
  if (d.tenant !== undefined) context.tenant = d.tenant;
  if (d.roles !== undefined) context.roles = [...d.roles];
  if (d.server !== undefined) context.server = d.server;
  if (d.protocolVersion !== undefined) context.protocolVersion = d.protocolVersion;
  return {
    seq: d.seq,
    event: d.event,
    phase: d.phase,
    direction: d.direction,
    context,
    only: d.only,
    ran: d.ran,
    policy: { chain: d.policy.chain, policySet: d.policy.policySet, engines: d.policy.engines },
    inputDigest: 'digest' in d.input ? d.input.digest : undefined,
    intentDigest: d.intent ? d.intent.digest : null,
    decision: d.decision,
    effect: d.decision.effect,
    state: d.state,
    ...(d.target !== undefined && { target: d.target }),
  };
}
