// The wire vocabulary vouch shares with MCP and SEP-2624: event names, interceptor declarations
// (hooks, phases, compat), and JSON-RPC error codes. Below policy and interceptors: both use it.
export { assertKnownEvent, caseVariantOf, isKnownEvent, MCP_EVENTS, SEP_EVENTS } from './events.js';
export { parseCompat, parseDeclaration, PROTOCOL_VERSION, type Bad } from './declaration.js';
export { JSONRPC, rpcCodeOf } from './jsonrpc.js';
export type { Compat, Direction, Hook, InterceptorDescriptor, InterceptorType, Mode, Phase, PriorityHint, Severity } from './types.js';
