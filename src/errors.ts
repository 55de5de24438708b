// Every error code vouch raises, in one place. A deny is a value, never an error:
// these are for bad input, failed verification, broken stores and misconfiguration.
// HTTP, JSON-RPC and the CLI each map `code` through one table (see http/, mcp/, cli/).

export type ErrorCode =
  // untrusted input
  | 'ERR_INPUT'
  | 'ERR_JSON_PARSE'
  | 'ERR_NOT_CANONICAL'
  | 'ERR_TOO_LARGE'
  | 'ERR_TOO_DEEP'
  | 'ERR_UNSUPPORTED_MEDIA_TYPE'
  | 'ERR_UNKNOWN_INTERCEPTOR'
  | 'ERR_UNKNOWN_EVENT'
  | 'ERR_UNKNOWN_METHOD'
  // MCP 2026-07-28 on HTTP: a header that disagrees with the body, a protocol version not served
  | 'ERR_HEADER_MISMATCH'
  | 'ERR_UNSUPPORTED_PROTOCOL_VERSION'
  // a bundle past its caps (sizes, lines, files, ratio), or holding what bundles never hold (links, devices)
  | 'ERR_BUNDLE_LIMIT'
  | 'ERR_BUNDLE_FILE'
  // crypto
  | 'ERR_KEY_FORMAT'
  | 'ERR_KEY_PERMISSIONS'
  | 'ERR_KEY_EXISTS'
  // a data directory's log signed by a key whose file is missing from keys/, or by keys keys/ does not hold (another instance's)
  | 'ERR_KEY_MISSING'
  | 'ERR_KEY_MISMATCH'
  | 'ERR_SIGN_FAILED'
  // verification
  | 'ERR_VERIFY_SIGNATURE'
  | 'ERR_VERIFY_PROOF'
  | 'ERR_VERIFY_CHECKPOINT'
  | 'ERR_VERIFY_NOTE'
  | 'ERR_VERIFY_ENTRY'
  | 'ERR_VERIFY_RECEIPT'
  /** An RFC 3161 time-stamp token that does not hold: other bytes, another TSA, altered (timestamp/token.ts). */
  | 'ERR_VERIFY_TIMESTAMP'
  /** `vouch log verify`'s reading thread failed to load or stopped before the end (store/verify-thread.ts): `--threads 1` verifies without it. */
  | 'ERR_VERIFY_THREAD'
  /** A time-stamping authority's answer that is no valid token for the request (down, refused, garbage). */
  | 'ERR_TSA'
  | 'ERR_LOG_FORK'
  // a checkpoint signed by a key outside its time: revoked after a size, or retired by a rotation (log/key-window.ts)
  | 'ERR_KEY_REVOKED'
  | 'ERR_KEY_RETIRED'
  // store
  | 'ERR_STORE'
  | 'ERR_STORE_INCONSISTENT'
  | 'ERR_STORE_CLOSED'
  // checkpoint signing fell behind the coverage bound: decisions stop until it catches up
  | 'ERR_STORE_BEHIND'
  // a decision made under a policy that was replaced while it ran: refused, nothing recorded (send it again)
  | 'ERR_POLICY_CHANGED'
  | 'ERR_NOT_FOUND'
  // a log entry longer than a tlog-tiles entry bundle can frame (uint16 length prefix)
  | 'ERR_TILE_ENTRY_TOO_LARGE'
  // a tile archive file differs from what the log says it must hold (store/archive-*.ts): never overwritten
  | 'ERR_ARCHIVE_MISMATCH'
  // a pruned entry's archive tile is gone (store/sealed-tiles.ts): restore the archive from its backup
  | 'ERR_ARCHIVE_MISSING'
  // meta pruned_below is above what the archive holds, signed and read back (store/archive-prune.ts)
  | 'ERR_ARCHIVE_WATERMARK'
  // policy and chain
  | 'ERR_POLICY'
  | 'ERR_CHAIN_TIMEOUT'
  | 'ERR_INTERCEPTOR_FAILED'
  // a policy names an interceptor server off the operator's allow-list (policy/remote-allow.ts)
  | 'ERR_REMOTE_NOT_ALLOWED'
  // an interceptor server's answer vouch cannot take (2026-07-28: a resultType other than complete)
  | 'ERR_REMOTE_MALFORMED'
  // configuration and access
  | 'ERR_CONFIG'
  | 'ERR_UNAUTHENTICATED'
  | 'ERR_FORBIDDEN'
  /** A write asked of a server attached read-only to a data directory another process writes. */
  | 'ERR_READ_ONLY'
  | 'ERR_INTERNAL';

/** One problem with one field of an input: `path` is a JSON Pointer into the input. */
export interface Issue {
  path: string;
  message: string;
}

export class VouchError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** Untrusted input that does not parse; `issues` lists every bad field, not the first. */
export class InputError extends VouchError {
  readonly issues: Issue[];
  constructor(code: ErrorCode, message: string, issues: Issue[] = [], options?: { cause?: unknown }) {
    super(code, message, options);
    this.issues = issues;
  }
}

export class CryptoError extends VouchError {}
export class VerificationError extends VouchError {}
export class StoreError extends VouchError {}
export class PolicyError extends VouchError {}
export class ConfigError extends InputError {}
export class AccessError extends VouchError {}

export function isVouchError(e: unknown): e is VouchError {
  return e instanceof VouchError;
}

/**
 * The tile archive's own refusal to serve a pruned entry or node (its file missing or changed,
 * store/sealed-tiles.ts): it names the file and the fix, so a check that reads through it passes
 * it on rather than rewording it as an altered log.
 */
export function isArchiveRefusal(e: unknown): boolean {
  const code = isVouchError(e) ? e.code : undefined;
  return code === 'ERR_ARCHIVE_MISSING' || code === 'ERR_ARCHIVE_MISMATCH' || code === 'ERR_ARCHIVE_WATERMARK';
}

/** The code of any thrown value; unknown throwables are internal errors. */
export function codeOf(e: unknown): ErrorCode {
  return isVouchError(e) ? e.code : 'ERR_INTERNAL';
}

/** A message safe to put on the wire: never a stack, never a cause. */
export function publicMessage(e: unknown): string {
  return isVouchError(e) ? e.message : 'internal error';
}
