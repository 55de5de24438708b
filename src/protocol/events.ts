// The event names a decision may be asked for: the MCP methods and notifications of the protocol
// versions vouch speaks (2024-10-07 .. 2026-07-28), the SEP events, and what a config declares.
// Anything else (a case or suffix variant like `tools/Call`, `tools/call/x`) is bad input, never a decision.
import { InputError } from '../errors.js';

/** MCP requests and notifications, as the SDK (protocol 2025-11-25 and earlier) names them. */
export const MCP_EVENTS: readonly string[] = Object.freeze([
  'initialize', 'ping',
  'tools/list', 'tools/call',
  'prompts/list', 'prompts/get',
  'resources/list', 'resources/templates/list', 'resources/read', 'resources/subscribe', 'resources/unsubscribe',
  'logging/setLevel', 'completion/complete',
  'sampling/createMessage', 'elicitation/create', 'roots/list',
  'tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel',
  // MCP 2026-07-28: discovery, subscriptions, and the tasks extension's input (issue 36). None is allowed by default.
  'server/discover', 'subscriptions/listen', 'tasks/update', 'notifications/subscriptions/acknowledged',
  'notifications/initialized', 'notifications/cancelled', 'notifications/progress', 'notifications/message',
  'notifications/resources/updated', 'notifications/resources/list_changed', 'notifications/tools/list_changed',
  'notifications/prompts/list_changed', 'notifications/roots/list_changed', 'notifications/elicitation/complete',
  'notifications/tasks/status',
]);

/** Events the interceptor SEPs define beyond MCP's own methods. */
export const SEP_EVENTS: readonly string[] = Object.freeze(['llm/completion']);

const BUILT_IN = new Set<string>([...MCP_EVENTS, ...SEP_EVENTS]);

/** Exact match only: no case folding, no prefixes, no wildcards (`*` hooks every event but is not one). */
export function isKnownEvent(name: string, declared: readonly string[] = []): boolean {
  return BUILT_IN.has(name) || declared.includes(name);
}

/** The built-in event that `name` differs from only by letter case, if any (a config must not shadow it). */
export function caseVariantOf(name: string): string | undefined {
  if (BUILT_IN.has(name)) return undefined;
  const lower = name.toLowerCase();
  for (const e of BUILT_IN) if (e.toLowerCase() === lower) return e;
  return undefined;
}

/** Throws InputError ERR_UNKNOWN_EVENT unless `name` is an event this config can decide on. */
export function assertKnownEvent(name: string, declared: readonly string[] = []): void {
  if (typeof name === 'string' && isKnownEvent(name, declared)) return;
  const shown = typeof name === 'string' ? JSON.stringify(name.length > 200 ? `${name.slice(0, 200)}…` : name) : typeof name;
  throw new InputError('ERR_UNKNOWN_EVENT', `unknown event ${shown}: not an MCP method or notification, a SEP event, or an event the config declares`, [
    { path: '/event', message: 'unknown event' },
  ]);
}
