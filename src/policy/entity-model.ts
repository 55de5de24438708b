// How an MCP message becomes a Cedar request: principal User::"<id>" in Role::"<role>",
// action Action::"<event>", resource by event (Tool, Prompt, Resource, Sampling, Elicitation,
// Server) with attribute `name` (`uri` for Resource), context {arguments, server, sessionId,
// time, roles, tenant}. See fixtures/config/README.md.
import type { Json } from '../interceptors/types.js';
import type { AuthzRequest, EntityRef } from './types.js';

/** The facts about the caller and session that go into every request (a subset of InterceptorContext). */
export interface RequestFacts {
  principal?: string;
  roles?: string[];
  tenant?: string;
  server?: string;
  sessionId?: string;
  time: string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A payload is the request params; a whole JSON-RPC message (`params.<key>`) is read too. */
function field(payload: unknown, key: string): unknown {
  if (!isRecord(payload)) return undefined;
  if (payload[key] !== undefined) return payload[key];
  return isRecord(payload.params) ? payload.params[key] : undefined;
}

/** What the message acts on, or why that cannot be told (which the caller turns into a deny). */
export function resourceOf(event: string, payload: unknown, server: string | undefined): { ok: true; resource: EntityRef } | { ok: false; reason: string } {
  const named = (type: string, key: 'name' | 'uri') => {
    const v = field(payload, key);
    return typeof v === 'string' ? { ok: true as const, resource: { type, id: v } } : { ok: false as const, reason: `payload has no ${key} for ${event}` };
  };
  switch (event) {
    case 'tools/call':
      return named('Tool', 'name');
    case 'prompts/get':
      return named('Prompt', 'name');
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      return named('Resource', 'uri');
    case 'sampling/createMessage':
      return { ok: true, resource: { type: 'Sampling', id: server ?? '' } };
    case 'elicitation/create':
      return { ok: true, resource: { type: 'Elicitation', id: server ?? '' } };
    default:
      // Lists and custom events act on the server as a whole; an unresolved server is "".
      return { ok: true, resource: { type: 'Server', id: server ?? '' } };
  }
}

/** The arguments a policy sees as context.arguments: params.arguments for calls, the params otherwise. */
export function argumentsOf(event: string, payload: unknown): Json {
  if (event === 'tools/call' || event === 'prompts/get') {
    const a = field(payload, 'arguments');
    return (a ?? {}) as Json;
  }
  return (payload ?? {}) as Json;
}

/** The Cedar request for (event, resource, arguments) by the caller in `facts`; undefined principal -> undefined. */
export function buildAuthzRequest(event: string, resource: EntityRef, args: Json, facts: RequestFacts): AuthzRequest | undefined {
  if (facts.principal === undefined || facts.principal === '') return undefined;
  const roles = [...new Set(facts.roles ?? [])].sort();
  const context: { [k: string]: Json } = { arguments: args, time: facts.time, roles };
  if (facts.server !== undefined) context.server = facts.server;
  if (facts.sessionId !== undefined) context.sessionId = facts.sessionId;
  if (facts.tenant !== undefined) context.tenant = facts.tenant;
  return {
    principal: { type: 'User', id: facts.principal },
    action: { type: 'Action', id: event },
    resource,
    resourceAttrs: { [resource.type === 'Resource' ? 'uri' : 'name']: resource.id },
    context,
    principalParents: roles.map((id) => ({ type: 'Role', id })),
  };
}

/** For a list event: the call action each listed item stands for, and the item's resource. */
export const LIST_TO_CALL: Readonly<Record<string, { key: 'tools' | 'prompts' | 'resources'; action: string; type: string; id: 'name' | 'uri' }>> = {
  'tools/list': { key: 'tools', action: 'tools/call', type: 'Tool', id: 'name' },
  'prompts/list': { key: 'prompts', action: 'prompts/get', type: 'Prompt', id: 'name' },
  'resources/list': { key: 'resources', action: 'resources/read', type: 'Resource', id: 'uri' },
};
