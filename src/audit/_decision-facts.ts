// The facts a replay needs from one decision entry (what decide() recorded), checked field by
// field: an entry from a bundle is untrusted input until its leaf and root have been verified.
import { isDigest, type Digest } from '../canonical/index.js';
import { InputError, type Issue } from '../errors.js';
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

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Throws InputError (ERR_INPUT) naming every field that is not what decide() writes. */
export function parseDecisionFacts(e: Entry): DecisionFacts {
  const issues: Issue[] = [];
  const bad = (path: string, message: string) => issues.push({ path, message });
  const str = (k: string): string | undefined => {
    const v = e[k];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') bad(`/${k}`, 'must be a string');
    return typeof v === 'string' ? v : undefined;
  };
  if (typeof e.event !== 'string' || e.event === '') bad('/event', 'must be a non-empty string');
  if (e.phase !== 'request' && e.phase !== 'response') bad('/phase', 'must be request or response');
  const [sessionId, traceId, principal, tenant, server, direction, onBehalfOf, protocolVersion] = ['session', 'trace', 'principal', 'tenant', 'server', 'direction', 'onBehalfOf', 'protocolVersion'].map(str);
  if (e.roles !== undefined && !isStringList(e.roles)) bad('/roles', 'must be a list of strings');
  if (e.only !== undefined && !isStringList(e.only)) bad('/only', 'must be a list of strings');
  if (e.ran !== undefined && !isStringList(e.ran)) bad('/ran', 'must be a list of strings');
  const p = e.policy;
  if (!isRecord(p) || !isDigest(p.chain) || !isDigest(p.policySet)) bad('/policy', 'must name the chain and policy-set digests');
  else if (!isRecord(p.engines) || !Object.values(p.engines).every((v) => typeof v === 'string')) bad('/policy/engines', 'must map engine names to versions');
  const input = e.input;
  if (!isRecord(input) || !(isDigest(input.digest) || input.rejected === true)) bad('/input', 'must be {digest} or {rejected: true}');
  const intent = e.intent;
  if (intent !== null && intent !== undefined && !(isRecord(intent) && isDigest(intent.digest))) bad('/intent', 'must be null or {digest}');
  const d = e.decision;
  if (!isRecord(d) || (d.effect !== 'allow' && d.effect !== 'deny')) bad('/decision/effect', 'must be allow or deny');
  if (e.state !== undefined && !isRecord(e.state)) bad('/state', 'must be an object');
  if (e.target !== undefined && (typeof e.target !== 'string' || e.target === '')) bad('/target', 'must be a non-empty string');
  if (issues.length > 0) throw new InputError('ERR_INPUT', `decision entry ${e.seq} is malformed: ${issues.map((i) => i.path).join(', ')}`, issues);

  const context: ChainContext = { time: e.time };
  if (sessionId !== undefined) context.sessionId = sessionId;
  if (traceId !== undefined) context.traceId = traceId;
  if (principal !== undefined) context.principal = principal;
  if (onBehalfOf !== undefined) context.onBehalfOf = onBehalfOf;
  if (tenant !== undefined) context.tenant = tenant;
  if (e.roles !== undefined) context.roles = [...(e.roles as string[])];
  if (server !== undefined) context.server = server;
  if (protocolVersion !== undefined) context.protocolVersion = protocolVersion;
  const pol = p as Record<string, Json>;
  return {
    seq: e.seq,
    event: e.event as string,
    phase: e.phase as Phase,
    direction,
    context,
    only: e.only as string[] | undefined,
    ran: e.ran as string[] | undefined,
    policy: { chain: pol.chain as Digest, policySet: pol.policySet as Digest, engines: pol.engines as Record<string, string> },
    inputDigest: isRecord(input) && isDigest(input.digest) ? input.digest : undefined,
    intentDigest: isRecord(intent) ? (intent.digest as Digest) : null,
    decision: d as Json,
    effect: (d as Record<string, unknown>).effect as 'allow' | 'deny',
    state: (e.state ?? {}) as Record<string, Json>,
    ...(typeof e.target === 'string' && { target: e.target }),
  };
}
