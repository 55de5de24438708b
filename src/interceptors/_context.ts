// The caller's view of a message's context (ChainContext) and how each interceptor gets its
// own InterceptorContext from it: only defined fields are copied, so replay rebuilds it exactly.
import type { Direction, InterceptorContext, Phase } from './types.js';

export interface ChainContext {
  /** Decision time, RFC 3339 UTC, chosen by the caller and recorded. */
  time: string;
  sessionId?: string;
  traceId?: string;
  principal?: string;
  /** Who the principal acts for (delegate role), recorded; never the principal itself. */
  onBehalfOf?: string;
  tenant?: string;
  roles?: string[];
  server?: string;
  /** Negotiated MCP protocol version (initialize / MCP-Protocol-Version), recorded; drives compat skipping. */
  protocolVersion?: string;
}

export type BaseContext = Omit<InterceptorContext, 'state' | 'signal'>;

export const DEFAULT_DIRECTIONS: { request: Direction; response: Direction } = { request: 'sending', response: 'receiving' };

export function baseContext(ctx: ChainContext, event: string, phase: Phase, direction: Direction): BaseContext {
  const out: BaseContext = { event, phase, direction, time: ctx.time };
  if (ctx.sessionId !== undefined) out.sessionId = ctx.sessionId;
  if (ctx.traceId !== undefined) out.traceId = ctx.traceId;
  if (ctx.principal !== undefined) out.principal = ctx.principal;
  if (ctx.onBehalfOf !== undefined) out.onBehalfOf = ctx.onBehalfOf;
  if (ctx.tenant !== undefined) out.tenant = ctx.tenant;
  if (ctx.roles !== undefined) out.roles = [...ctx.roles];
  if (ctx.server !== undefined) out.server = ctx.server;
  if (ctx.protocolVersion !== undefined) out.protocolVersion = ctx.protocolVersion;
  return out;
}
