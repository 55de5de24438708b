// One table from error code to HTTP status (the JSON-RPC table is protocol/jsonrpc.ts). Messages
// that cross the wire are the error's public message: never a stack, never a cause.
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
  ERR_HEADER_MISMATCH: 400,
  ERR_UNSUPPORTED_PROTOCOL_VERSION: 400,
  ERR_CONFIG: 400,
  ERR_POLICY: 400,
  ERR_NOT_FOUND: 404,
  ERR_UNAUTHENTICATED: 401,
  ERR_FORBIDDEN: 403,
  ERR_READ_ONLY: 409,
  ERR_REMOTE_NOT_ALLOWED: 403,
  ERR_VERIFY_SIGNATURE: 400,
  ERR_VERIFY_RECEIPT: 400,
  ERR_STORE: 503,
  ERR_STORE_INCONSISTENT: 503,
  ERR_KEY_MISSING: 503,
  ERR_KEY_MISMATCH: 503,
  ERR_STORE_CLOSED: 503,
  ERR_STORE_BEHIND: 503,
  ERR_ARCHIVE_MISMATCH: 500,
  ERR_ARCHIVE_MISSING: 500,
  ERR_ARCHIVE_WATERMARK: 500,
  ERR_POLICY_CHANGED: 503,
  ERR_SIGN_FAILED: 503,
  ERR_CHAIN_TIMEOUT: 504,
};

export function httpStatusOf(e: unknown): number {
  return HTTP_STATUS[codeOf(e)] ?? 500;
}

export function errorJson(e: unknown): { error: { code: ErrorCode; message: string; issues?: unknown } } {
  const issues = (e as { issues?: unknown }).issues;
  return { error: { code: codeOf(e), message: publicMessage(e), ...(Array.isArray(issues) && issues.length ? { issues } : {}) } };
}
