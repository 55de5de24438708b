// The wire vocabulary vouch shares with MCP and SEP-2624: event names, interceptor declarations
// (hooks, phases, compat), JSON-RPC error codes, W3C trace context, and the MCP 2026-07-28
// envelope and mirrored headers. Below policy and interceptors.
export { assertKnownEvent, caseVariantOf, isKnownEvent, MCP_EVENTS, SEP_EVENTS } from './events.js';
export { parseCompat, parseDeclaration, PROTOCOL_VERSION, type Bad } from './declaration.js';
export { JSONRPC, rpcCodeOf } from './jsonrpc.js';
export { ROLE_META } from './types.js';
export type { Compat, Direction, Hook, InterceptorDescriptor, InterceptorType, Mode, Phase, PriorityHint, Role, Severity } from './types.js';
export { parseTraceparent, traceContextOf, traceparentOf, type TraceContext, type TraceParent } from './traceparent.js';
export { parseTracestate, MAX_TRACESTATE_CHARS, MAX_TRACESTATE_MEMBERS } from './tracestate.js';
export { claimedClientOf, envelopeClaimOf, ENVELOPE_META, FIRST_MODERN_PROTOCOL_VERSION, isModernProtocolVersion, LEGACY_PROTOCOL_VERSIONS, liftEnvelope, MAX_CLIENT_FIELD, MODERN_PROTOCOL_VERSIONS, SERVED_PROTOCOL_VERSIONS, SERVER_INFO_META, type ClaimedClient } from './mcp-2026.js';
export { decodeMirroredValue, mcpHeaderMismatch, type HeaderMismatch, type McpRequestHeaders, type MirroredHeader } from './mcp-headers.js';
