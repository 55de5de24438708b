// The gateway's contract: what startGateway is given (GatewayOptions) and what it hands back
// (Gateway), apart from how it is built (gateway.ts), so its users import only the types.
import type { Transport as UpstreamTransport } from '@modelcontextprotocol/client';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Server as ModernServer } from '@modelcontextprotocol/server';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Implementation, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Clock } from '../clock.js';
import type { ActivePolicy, DecisionOutcome, Guard, Wait } from '../decide/index.js';
import type { DriftRules, ExecutionLog } from '../execution/index.js';
import type { DownstreamEra } from './gateway-era.js';
import type { ReceiptEvidence } from './gateway-evidence.js';
import type { Refusal } from './gateway-modern.js';
import type { EraMemo, UpstreamClient, UpstreamEra } from './gateway-upstream.js';
import type { ToolPins } from './tool-pins.js';

export interface GatewayOptions {
  /** What each forwarded request's decisions wait for (gateway-relay.ts): "durable" or "signed" (default). */
  wait?: Wait;
  /** Where answers say their receipts are, and whether every answer carries them (gateway-evidence.ts). */
  evidence?: ReceiptEvidence;
  /** Transport to the upstream MCP server (not yet started). */
  upstream: UpstreamTransport;
  /** Which MCP era to speak upstream (default auto: probe with server/discover, else 2025 initialize). */
  upstreamEra?: UpstreamEra;
  /** With `auto` over stdio: how long the server/discover probe waits (gateway-upstream.ts). */
  probeTimeoutMs?: number;
  /** The era this run's upstream was found to speak: a session after the first connects without a probe. */
  eraMemo?: EraMemo;
  /**
   * Transport to the client (not yet started): its first message tells the era (gateway-era.ts),
   * unless `era` says. Absent: no connection of its own; 2026 requests are served one by one
   * through `modernServer()` (the HTTP listener does that).
   */
  downstream?: Transport;
  /** The downstream era when it is known before the first message (an HTTP session opened by initialize). */
  era?: DownstreamEra;
  /** The upstream's name for policy (`context.server`) and entries. */
  serverName: string;
  /** The chain for client requests; `serverPolicy` its mirror for server requests (see gateway-policy.ts). */
  policy: ActivePolicy;
  serverPolicy: ActivePolicy;
  /** The tenant's log: appends, and reads back the authorization an execution entry links to. */
  log: ExecutionLog;
  tenant: string;
  principal: string;
  roles?: string[];
  clock?: Clock;
  sessionId?: string;
  drift?: DriftRules;
  /** Per forwarded request, reset by progress (default 300 s). */
  timeoutMs?: number;
  /** Structured diagnostics (never on stdout: over stdio, stdout is the protocol). */
  onLine?: (line: Record<string, unknown>) => void;
  /** Pinned tool definitions of this upstream (tool-pins.ts); absent: no pinning. */
  toolPins?: ToolPins;
}

export interface Gateway {
  serverName: string;
  sessionId: string;
  /** What the upstream said about itself, and the capabilities offered to the client. */
  upstreamInfo?: Implementation;
  capabilities: ServerCapabilities;
  client: UpstreamClient;
  /** The era the downstream speaks, once its first message arrived (legacy: `server` is the SDK v1 Server). */
  era(): DownstreamEra | undefined;
  server?: Server;
  /** A 2026-07-28 server over this gateway (one per HTTP request, or the stdio connection's). */
  modernServer(): ModernServer;
  /** subscriptions/listen, decided (the SDK would answer it itself): the params to go on with, or the error to answer. */
  decideListen(params: Record<string, unknown>): Promise<Record<string, unknown> | Refusal>;
  /** Where the upstream's decided notifications go for 2026 callers without a connection of their own (the HTTP listener's event bus). */
  setNotificationSink(sink: (method: string, params: Record<string, unknown>) => void): void;
  /** A client request refused before the chain (a header that disagrees with the body): a signed deny that names the guard. */
  refuse(method: string, params: unknown, guard: Guard): Promise<DecisionOutcome>;
  isUpstreamOpen(): boolean;
  /** 2026 calls in flight or parked for the client's retry (gateway-bridge.ts). */
  pendingCalls(): number;
  /** Settles when the client side closes (or close() was called). */
  closed: Promise<void>;
  /** Close both sides and wait for requests in flight to finish recording. */
  close(): Promise<void>;
}
