// One table from error code to JSON-RPC error code, for every JSON-RPC surface (/mcp, the gateway).
// Messages that cross the wire are the error's public message: never a stack, never a cause.
import { codeOf, type ErrorCode } from '../errors.js';

export const JSONRPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  timeout: -32000,
  unauthorized: -32001,
  unavailable: -32002,
  // Defined by MCP 2026-07-28 (basic/index.mdx "Error Codes"), from the range the spec reserves.
  headerMismatch: -32020,
  unsupportedProtocolVersion: -32022,
} as const;

const RPC_CODE: Partial<Record<ErrorCode, number>> = {
  ERR_JSON_PARSE: JSONRPC.parseError,
  ERR_INPUT: JSONRPC.invalidParams,
  ERR_NOT_CANONICAL: JSONRPC.invalidParams,
  ERR_TOO_DEEP: JSONRPC.invalidParams,
  ERR_TOO_LARGE: JSONRPC.invalidRequest,
  ERR_UNSUPPORTED_MEDIA_TYPE: JSONRPC.invalidRequest,
  ERR_UNKNOWN_INTERCEPTOR: JSONRPC.invalidParams,
  ERR_UNKNOWN_EVENT: JSONRPC.invalidParams,
  ERR_UNKNOWN_METHOD: JSONRPC.methodNotFound,
  ERR_HEADER_MISMATCH: JSONRPC.headerMismatch,
  ERR_UNSUPPORTED_PROTOCOL_VERSION: JSONRPC.unsupportedProtocolVersion,
  ERR_INTERCEPTOR_FAILED: JSONRPC.internalError,
  ERR_CHAIN_TIMEOUT: JSONRPC.timeout,
  ERR_UNAUTHENTICATED: JSONRPC.unauthorized,
  ERR_FORBIDDEN: JSONRPC.unauthorized,
  ERR_REMOTE_NOT_ALLOWED: JSONRPC.unauthorized,
  ERR_STORE: JSONRPC.unavailable,
  ERR_STORE_CLOSED: JSONRPC.unavailable,
  ERR_STORE_BEHIND: JSONRPC.unavailable,
  ERR_POLICY_CHANGED: JSONRPC.unavailable,
  ERR_STORE_INCONSISTENT: JSONRPC.unavailable,
  ERR_KEY_MISSING: JSONRPC.unavailable,
  ERR_KEY_MISMATCH: JSONRPC.unavailable,
  ERR_SIGN_FAILED: JSONRPC.unavailable,
};

export function rpcCodeOf(e: unknown): number {
  return RPC_CODE[codeOf(e)] ?? JSONRPC.internalError;
}
