// The `decision` entry (DESIGN.md section 5): what decide() recorded about one message. One writer
// (decide.ts calls it) and one validating reader (replay, what-if, the console, the bundle verifier).
// Extra facts (caller, co-signature, links) are named fields: none can take a core field's place.
import { isDigest, type Digest, type Json } from '../canonical/index.js';
import { VouchError } from '../errors.js';
import type { Entry, EntryBody } from '../log/index.js';
import type { ClaimedClient, Direction, Phase } from '../protocol/index.js';
import { checkerFor, isRecord, type Rec, type FieldSpec } from './_check.js';

/** What decide() knows of the call: the entry's core fields. */
export interface DecisionCore {
  time: string;
  tenant?: string;
  principal?: string;
  onBehalfOf?: string;
  roles?: string[];
  event: string;
  phase: Phase;
  direction?: Direction;
  session?: string;
  trace?: string;
  server?: string;
  protocolVersion?: string;
  /** The tool, prompt or resource the call is about (never its arguments). */
  target?: string;
  /** The optional interceptors the caller asked for. */
  only?: string[];
  /** The interceptors the chain ran (absent in entries written before mandatory chains). */
  ran?: string[];
  policy: { chain: Digest; policySet: Digest; engines: Record<string, string> };
  /** `{rejected: true}` when decide() refused the payload itself (it could not be hashed). */
  input: { digest: Digest } | { rejected: true };
  /** The authorized intent; null on a deny. */
  intent: { digest: Digest } | null;
  /** The chain's result without timings (decisionRecord): effect, status, results, abortedAt. */
  decision: { effect: 'allow' | 'deny' } & Record<string, Json>;
  state: Record<string, Json>;
}

/** Facts the adapters and prechecks add: each named, so no caller-side key can replace a core field. */
export interface DecisionExtras {
  /** The authenticated caller (REST, /mcp). */
  caller?: string;
  /** The per-call chain timeout the caller asked for (it shapes the decision). */
  timeoutMs?: number;
  /** W3C trace context the caller sent. */
  traceparent?: string;
  /** The W3C tracestate that came with it: validated, normalized, at most 512 characters (protocol/tracestate.ts). */
  tracestate?: string;
  /** The caller co-signature check, and the key that verified. */
  callerSignature?: Json;
  callerKey?: string;
  /** The request decision a response answers (precheck link, gateway relay); null: none found. */
  authorization?: number | null;
  /** The executed parameters the host reported (digest; the bytes are an attachment). */
  executed?: { digest: Digest };
  /** The gateway's direction of the relayed message. */
  flow?: string;
  /** A server's request to the client (sampling, elicitation, roots): the request-phase decision of the client call it was made for. */
  call?: number;
  /**
   * The MCP client software as it names itself (2026-07-28 `_meta` clientInfo): name and version,
   * bounded. Self-reported: shown to an auditor, never an input to the decision, never identity.
   */
  clientInfo?: ClaimedClient;
  /**
   * The gateway's client side, where its era differs from the upstream's (`protocolVersion`): the
   * revision the client spoke (2026-07-28 in front of a 2025 server).
   */
  clientProtocolVersion?: string;
}

export type DecisionEntry = DecisionCore & DecisionExtras & { type: 'decision'; v: 1; log: string; seq: number; prev: string };

/** Every field a decision entry may hold, core and extra (the JSON Schema in docs/ is tested against these lists). */
export const DECISION_CORE_FIELDS: FieldSpec<DecisionCore> = { time: 'required', tenant: 'optional', principal: 'optional', onBehalfOf: 'optional', roles: 'optional', event: 'required', phase: 'required', direction: 'optional', session: 'optional', trace: 'optional', server: 'optional', protocolVersion: 'optional', target: 'optional', only: 'optional', ran: 'optional', policy: 'required', input: 'required', intent: 'required', decision: 'required', state: 'required' };
export const DECISION_EXTRA_FIELDS: FieldSpec<DecisionExtras> = { caller: 'optional', timeoutMs: 'optional', traceparent: 'optional', tracestate: 'optional', callerSignature: 'optional', callerKey: 'optional', authorization: 'optional', executed: 'optional', flow: 'optional', call: 'optional', clientInfo: 'optional', clientProtocolVersion: 'optional' };

/**
 * The body decide() appends. An extra that is not a declared extra field (a core field, a header
 * field, anything unknown) is refused before anything is appended: fail closed, never overwritten.
 */
export function decisionEntryBody(core: DecisionCore, extra: DecisionExtras = {}): EntryBody {
  const stray = Object.keys(extra).filter((k) => !Object.hasOwn(DECISION_EXTRA_FIELDS, k));
  if (stray.length) throw new VouchError('ERR_INTERNAL', `decision extras may not set ${stray.map((k) => JSON.stringify(k)).join(', ')}: not an extra field`);
  // Extras first, then core fields (no extra can carry a core field's name: refused above), then
  // the type; undefined fields dropped. One pass, no intermediate spread (on the decision path).
  const out: Rec = {};
  for (const k in extra) if (Object.hasOwn(extra, k) && (extra as Rec)[k] !== undefined) out[k] = (extra as Rec)[k];
  for (const k in core) if (Object.hasOwn(core, k) && (core as unknown as Rec)[k] !== undefined) out[k] = (core as unknown as Rec)[k];
  out.type = 'decision';
  return out as unknown as EntryBody;
}

/** Throws InputError (ERR_INPUT) naming every field that is not what decisionEntryBody writes. */
export function readDecisionEntry(e: Entry): DecisionEntry {
  const c = checkerFor(e, 'decision');
  c.name('event');
  c.oneOf('phase', ['request', 'response'] as const);
  for (const k of ['session', 'trace', 'principal', 'tenant', 'server', 'onBehalfOf', 'protocolVersion', 'caller', 'traceparent', 'tracestate', 'callerKey', 'flow', 'clientProtocolVersion'] as const) c.str(k);
  c.oneOf('direction', ['sending', 'receiving'] as const, true);
  for (const k of ['roles', 'only', 'ran'] as const) c.strings(k);
  const p = e.policy;
  if (!isRecord(p) || !isDigest(p.chain) || !isDigest(p.policySet)) c.bad('/policy', 'must name the chain and policy-set digests');
  else if (!isRecord(p.engines) || !Object.values(p.engines).every((v) => typeof v === 'string')) c.bad('/policy/engines', 'must map engine names to versions');
  const input = e.input;
  if (!(isRecord(input) && (isDigest(input.digest) || input.rejected === true))) c.bad('/input', 'must be {digest} or {rejected: true}');
  c.digestRef('intent', { nullable: true });
  const d = e.decision;
  if (!isRecord(d) || (d.effect !== 'allow' && d.effect !== 'deny')) c.bad('/decision/effect', 'must be allow or deny');
  if (e.state !== undefined) c.object('state');
  if (e.target !== undefined && (typeof e.target !== 'string' || e.target === '')) c.bad('/target', 'must be a non-empty string');
  if (e.timeoutMs !== undefined && !(Number.isSafeInteger(e.timeoutMs) && (e.timeoutMs as number) > 0)) c.bad('/timeoutMs', 'must be a positive integer');
  c.seqOrNull('authorization', true);
  // The call is decided before anything it makes the server ask: its seq is always earlier.
  if (e.call !== undefined && !(Number.isSafeInteger(e.call) && (e.call as number) >= 0 && !((e.call as number) >= (e.seq as number)))) c.bad('/call', 'must be the seq of an earlier entry');
  c.digestRef('executed', { optional: true });
  const ci = e.clientInfo;
  if (ci !== undefined && !(isRecord(ci) && Object.keys(ci).length === 2 && typeof ci.name === 'string' && typeof ci.version === 'string')) c.bad('/clientInfo', 'must be {name, version}, both strings');
  c.done('decision');
  // Entries written before `state` was always recorded read as an empty state.
  return (e.state === undefined ? { ...e, state: {} } : e) as unknown as DecisionEntry;
}
