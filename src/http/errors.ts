// One table from error code to HTTP status and to JSON-RPC error code. Messages that cross
// the wire are the error's public message: never a stack, never a cause.
import { codeOf, publicMessage, type ErrorCode } from '../errors.js';

const HTTP_STATUS: Partial<Record<ErrorCode, number>> = {
  ERR_INPUT: 400,
  ERR_JSON_PARSE: 400,
  ERR_NOT_CANONICAL: 400,
  ERR_TOO_DEEP: 400,
  ERR_TOO_LARGE: 413,
  ERR_UNSUPPORTED_MEDIA_TYPE: 415,
  ERR_UNKNOWN_INTERCEPTOR: 400,
  ERR_UNKNOWN_EVENT: 400,
  ERR_UNKNOWN_METHOD: 404,
  ERR_CONFIG: 400,
  ERR_POLICY: 400,
  ERR_NOT_FOUND: 404,
  ERR_UNAUTHENTICATED: 401,
  ERR_FORBIDDEN: 403,
  ERR_VERIFY_SIGNATURE: 400,
  ERR_VERIFY_RECEIPT: 400,
  ERR_STORE: 503,
  ERR_STORE_INCONSISTENT: 503,
  ERR_STORE_CLOSED: 503,
  ERR_SIGN_FAILED: 503,
  ERR_CHAIN_TIMEOUT: 504,
};

export function httpStatusOf(e: unknown): number {
  return HTTP_STATUS[codeOf(e)] ?? 500;
}

export const JSONRPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  timeout: -32000,
  unauthorized: -32001,
  unavailable: -32002,
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
  ERR_INTERCEPTOR_FAILED: JSONRPC.internalError,
  ERR_CHAIN_TIMEOUT: JSONRPC.timeout,
  ERR_UNAUTHENTICATED: JSONRPC.unauthorized,
  ERR_FORBIDDEN: JSONRPC.unauthorized,
  ERR_STORE: JSONRPC.unavailable,
  ERR_STORE_CLOSED: JSONRPC.unavailable,
  ERR_STORE_INCONSISTENT: JSONRPC.unavailable,
  ERR_SIGN_FAILED: JSONRPC.unavailable,
};

export function rpcCodeOf(e: unknown): number {
  return RPC_CODE[codeOf(e)] ?? JSONRPC.internalError;
}

export function errorJson(e: unknown): { error: { code: ErrorCode; message: string; issues?: unknown } } {
  const issues = (e as { issues?: unknown }).issues;
  return { error: { code: codeOf(e), message: publicMessage(e), ...(Array.isArray(issues) && issues.length ? { issues } : {}) } };
}
