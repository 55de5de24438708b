// SEP-2624 interceptor wire types (with the SEP-1763 seed extras: executeChain, observability).
// Output shapes omit defaults so two results compare byte-equal after JCS.

import type { Json } from '../canonical/index.js';
import type { Direction, InterceptorDescriptor, InterceptorType, Phase, Severity } from '../protocol/index.js';

// The declaration vocabulary lives in protocol/ (config and chain share it), Json in canonical/.
export type { Compat, Direction, Hook, InterceptorDescriptor, InterceptorType, Mode, Phase, PriorityHint, Severity } from '../protocol/index.js';
export type { Json };

export interface Message {
  message: string;
  severity: Severity;
  path?: string;
}

export interface ValidationResult {
  interceptor: string;
  type: 'validation';
  phase: Phase;
  valid: boolean;
  severity?: Severity; // present when valid is false
  messages?: Message[];
  info?: Record<string, unknown>;
  durationMs?: number;
}

export interface MutationResult {
  interceptor: string;
  type: 'mutation';
  phase: Phase;
  modified: boolean;
  payload: unknown;
  info?: Record<string, unknown>;
  durationMs?: number;
}

export interface ObservabilityResult {
  interceptor: string;
  type: 'observability';
  phase: Phase;
  observed: boolean;
  metrics?: Record<string, number>;
  info?: Record<string, unknown>;
  durationMs?: number;
}

export type InterceptorResult = ValidationResult | MutationResult | ObservabilityResult;

export type ChainStatus = 'success' | 'validation_failed' | 'mutation_failed' | 'timeout' | 'error';

export interface AbortedAt {
  interceptor: string;
  reason: string;
  type: InterceptorType;
}

export interface ValidationSummary {
  errors: number;
  warnings: number;
  infos: number;
}

export interface ChainResult {
  status: ChainStatus;
  event: string;
  phase: Phase;
  results: InterceptorResult[];
  finalPayload: unknown;
  validationSummary: ValidationSummary;
  totalDurationMs?: number;
  abortedAt?: AbortedAt;
}

// ---- the implementation contract (not on the wire) ----

/** JSON data that can be recorded in an entry and replayed. */

/**
 * What an interceptor may know about the message besides its payload. Everything here is an
 * input to the decision and is recorded in the entry, so replay can give it back unchanged.
 * Interceptors never read the clock, randomness or the network: `time` is the decision time.
 */
export interface InterceptorContext {
  event: string;
  phase: Phase;
  direction: Direction;
  /** Decision time, RFC 3339 UTC, chosen by the caller of the chain and recorded. */
  time: string;
  sessionId?: string;
  traceId?: string;
  principal?: string;
  /** Who the authenticated principal acts for (needs the delegate role); never replaces `principal`. */
  onBehalfOf?: string;
  tenant?: string;
  roles?: string[];
  /** Which MCP server this message belongs to (see interceptors/server-of.ts). */
  server?: string;
  /** The negotiated MCP protocol version of the session, when known (recorded). */
  protocolVersion?: string;
  /** Interceptor-specific recorded state: what `prepare` returned (live) or the entry held (replay). */
  state?: Json;
  /** Only for an enricher (the enrichment band, _enrich-band.ts): what the gates decided before it. */
  enrichment?: EnrichmentInputs;
  signal: AbortSignal;
}

/**
 * What an enricher may know beyond the result: the results of the gates that ran before it (a
 * redactor's counts) and vouch's own recorded checks of the call (`facts`: the guards' records,
 * e.g. the tool pin). Both are recorded in the entry, so a built-in enricher stays a pure function.
 */
export interface EnrichmentInputs {
  results: readonly InterceptorResult[];
  facts: Record<string, Json>;
}

export type ValidationOutcome = Pick<ValidationResult, 'valid' | 'severity' | 'messages' | 'info'>;
export type MutationOutcome = Pick<MutationResult, 'modified' | 'payload' | 'info'>;
export type ObservabilityOutcome = Pick<ObservabilityResult, 'observed' | 'metrics' | 'info'>;
export type Outcome = ValidationOutcome | MutationOutcome | ObservabilityOutcome;

/**
 * A runnable interceptor. `run` must be a pure function of (payload, ctx).
 * `prepare` is the only place allowed to touch the outside world (counters, session taint,
 * a remote interceptor server). It runs only live; its JSON result is recorded in the entry's
 * `state[name]` and handed to `run` as `ctx.state`, live and in replay alike.
 */
export interface Interceptor {
  readonly descriptor: InterceptorDescriptor;
  /**
   * Counts as an authorization interceptor: while active it covers the (event, phase) it hooks, so
   * that traffic is not default-denied as uncovered (see decide.ts). Built-ins that authorize set it.
   */
  authorizes?: boolean;
  /** The config marked it `optional: true`: a caller's `interceptors` list may leave it out. Else it always runs. */
  optional?: boolean;
  /**
   * prepare() and commit() get the payload as the chain received it, before any mutator: what
   * crossed the boundary, not what a redactor left of it (the cross-boundary guard's taint and
   * matches). run() still decides on the payload as the log keeps it, from the recorded state.
   */
  readsReceived?: boolean;
  /** May answer synchronously (a built-in whose state store does): then no deadline timer is armed for it (_attempt.ts). */
  prepare?(payload: unknown, ctx: Omit<InterceptorContext, 'state'>): Promise<Json> | Json;
  run(payload: unknown, ctx: InterceptorContext): Promise<Outcome> | Outcome;
  /** Live-only follow-up after the decision is durable (e.g. record taint from a response). */
  commit?(finalPayload: unknown, ctx: Omit<InterceptorContext, 'state'>): Promise<void> | void;
}
