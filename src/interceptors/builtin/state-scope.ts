// Whose live state a message reads and writes (issue 36 "State without sessions", issue 38): the
// tenant and the authenticated principal always, and the conversation the caller named under
// them. MCP 2026-07-28 has no session, so a missing session never falls back to a value shared
// by other callers: the principal alone is then the conversation.
import type { InterceptorContext } from '../types.js';

/** The context fields a scope is made of: each is recorded in the decision entry, so replay sees the same scope. */
export type ScopeContext = Pick<InterceptorContext, 'tenant' | 'principal' | 'onBehalfOf' | 'sessionId'>;

/**
 * The principal's scope: tenant, principal, and whom it acts for (delegate role). What a listing
 * is remembered under (schema-guard): a filtered list is the caller's own, and another caller's
 * listing must neither loosen nor tighten the schema this caller's calls are checked against.
 */
export function principalScopeOf(ctx: ScopeContext): string {
  // JSON of a fixed-length array: injective whatever the ids contain (no separator to forge).
  return JSON.stringify([ctx.tenant ?? null, ctx.principal ?? null, ctx.onBehalfOf ?? null]);
}

/**
 * The conversation's scope: the principal's, narrowed by the session the caller named (a 2025
 * session: the gateway's own session id, or executeChain's `context.sessionId`). Without one
 * (2026 requests, REST without a session) it is the principal's whole activity, which is the
 * fail-closed reading: the taint of every earlier call of this principal applies. A trace id
 * is not a conversation (a new one per request would empty the taint), so it plays no part.
 */
export function conversationScopeOf(ctx: ScopeContext): string {
  return JSON.stringify([ctx.tenant ?? null, ctx.principal ?? null, ctx.onBehalfOf ?? null, ctx.sessionId ?? null]);
}
