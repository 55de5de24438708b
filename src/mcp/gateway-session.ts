// What a gateway session's relayed messages share: its chains, log, identity and options
// (RelaySession), the two ways a message crosses (Flow), the far side of a request (Peer), and the
// decision context every one of its decisions records (contextOf).
import type { Clock } from '../clock.js';
import type { ActivePolicy, DecisionRequest, Wait } from '../decide/index.js';
import type { DriftRules, ExecutionLog } from '../execution/index.js';
import type { ReceiptEvidence } from './gateway-evidence.js';
import type { SessionPins } from './tool-pins.js';

type Rec = Record<string, unknown>;

/** Which way the request crosses: client requests go up; sampling, elicitation, roots come down. */
export type Flow = 'client-to-server' | 'server-to-client';

export interface RelaySession {
  /** The chain for client requests (and their responses). */
  policy: ActivePolicy;
  /** The chain for server requests: the mirror, directions swapped (gateway-policy.ts). */
  serverPolicy: ActivePolicy;
  log: ExecutionLog;
  clock: Clock;
  tenant: string;
  principal: string;
  roles: string[];
  /** The upstream server's name: `context.server` of every decision. */
  server: string;
  sessionId: string;
  /** The MCP protocol version negotiated with the upstream (set once initialize is answered). */
  protocolVersion?: string;
  drift?: DriftRules;
  timeoutMs: number;
  onHookError?: (interceptor: string, e: unknown) => void;
  /**
   * Where the execution entry's append goes when it need not delay the answer: the gateway tracks
   * it (shutdown waits for it) and reports its failure. Absent: the answer waits for it.
   */
  background?: (what: string, p: Promise<unknown>) => void;
  /** Decisions the upstream asked for (their receipts stay on this side): seqs, for diagnostics. */
  onDecided?: (d: { method: string; flow: Flow; request?: number; response?: number; denied?: boolean; error?: string }) => void;
  /** The tail of each way's notification decisions (gateNotification keeps their order). */
  notificationQueues?: Partial<Record<Flow, Promise<unknown>>>;
  /** Pinned tool definitions (tool-pins.ts): tools/list hides changed tools, tools/call of one is denied. */
  pins?: SessionPins;
  /**
   * What a relayed request's decisions wait for: "durable" forwards once the entry is committed
   * and attaches signed receipts where ready (the rest are at GET /v1/entries/:seq); default "signed".
   */
  wait?: Wait;
  /** Where answers say their receipts are, and whether every answer carries them (gateway-evidence.ts). */
  evidence?: ReceiptEvidence;
}

/** The far side of one request: `wire` is the params as handed to its transport. */
export interface Forwarded {
  wire: Rec | undefined;
  result: Promise<Rec>;
}

export interface Peer {
  /** For messages: `upstream server "everything"`, `the client`. */
  name: string;
  /** `authorization`: the request-phase decision that let `params` go (what the peer asks back is linked to it). */
  send(params: Rec, authorization?: number): Forwarded;
}

/**
 * The decision context of a relayed message. `sessionId` is the gateway's own session (one stdio
 * process, or one `Mcp-Session-Id` on --listen): the conversation the stateful guards key their
 * state by, under the tenant and principal (interceptors/builtin/state-scope.ts). A transport
 * without sessions (MCP 2026-07-28 over HTTP) must leave it out, never mint one per request: the
 * principal is then the conversation, and a fresh id per request would empty every taint.
 */
export function contextOf(s: RelaySession): DecisionRequest['context'] {
  const ctx: DecisionRequest['context'] = { time: s.clock.isoNow(), tenant: s.tenant, principal: s.principal, roles: s.roles, sessionId: s.sessionId, server: s.server };
  if (s.protocolVersion !== undefined) ctx.protocolVersion = s.protocolVersion;
  return ctx;
}
