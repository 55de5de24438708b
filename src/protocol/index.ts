// The wire vocabulary vouch shares with MCP and SEP-2624: event names, interceptor declarations
// (hooks, phases, compat), JSON-RPC error codes and W3C trace context. Below policy and interceptors.
export { assertKnownEvent, caseVariantOf, isKnownEvent, MCP_EVENTS, SEP_EVENTS } from './events.js';
export { parseCompat, parseDeclaration, PROTOCOL_VERSION, type Bad } from './declaration.js';
export { JSONRPC, rpcCodeOf } from './jsonrpc.js';
export type { Compat, Direction, Hook, InterceptorDescriptor, InterceptorType, Mode, Phase, PriorityHint, Severity } from './types.js';
export { parseTraceparent, traceparentOf, type TraceParent } from './traceparent.js';
