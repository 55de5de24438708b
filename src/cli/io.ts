// What a command may touch of the process: its output streams and the exit-code table.
// Commands return an exit code; they never call process.exit themselves.
import { codeOf, publicMessage, type ErrorCode } from '../errors.js';

export interface Io {
  out(line: string): void;
  err(line: string): void;
}

export const processIo: Io = {
  out: (l) => process.stdout.write(l + '\n'),
  err: (l) => process.stderr.write(l + '\n'),
};

/** Exit codes: 0 ok, 1 a check found problems, 2 usage, 3 bad input/config, 4 store or key trouble, 5 internal. */
export const EXIT = { ok: 0, findings: 1, usage: 2, input: 3, store: 4, internal: 5 } as const;

const EXIT_BY_CODE: Partial<Record<ErrorCode, number>> = {
  ERR_INPUT: EXIT.input,
  ERR_JSON_PARSE: EXIT.input,
  ERR_NOT_CANONICAL: EXIT.input,
  ERR_TOO_LARGE: EXIT.input,
  ERR_TOO_DEEP: EXIT.input,
  ERR_BUNDLE_LIMIT: EXIT.input,
  ERR_BUNDLE_FILE: EXIT.input,
  ERR_CONFIG: EXIT.input,
  ERR_POLICY: EXIT.input,
  ERR_REMOTE_NOT_ALLOWED: EXIT.input,
  ERR_KEY_FORMAT: EXIT.store,
  ERR_KEY_PERMISSIONS: EXIT.store,
  ERR_KEY_EXISTS: EXIT.store,
  ERR_KEY_MISSING: EXIT.store,
  ERR_KEY_MISMATCH: EXIT.store,
  ERR_STORE: EXIT.store,
  ERR_STORE_INCONSISTENT: EXIT.store,
  ERR_STORE_CLOSED: EXIT.store,
  ERR_NOT_FOUND: EXIT.input,
  ERR_VERIFY_SIGNATURE: EXIT.findings,
  ERR_VERIFY_PROOF: EXIT.findings,
  ERR_VERIFY_CHECKPOINT: EXIT.findings,
  ERR_VERIFY_NOTE: EXIT.findings,
  ERR_KEY_REVOKED: EXIT.findings,
  ERR_KEY_RETIRED: EXIT.findings,
  ERR_VERIFY_ENTRY: EXIT.findings,
  ERR_VERIFY_RECEIPT: EXIT.findings,
  ERR_ARCHIVE_MISMATCH: EXIT.findings,
  ERR_ARCHIVE_MISSING: EXIT.findings,
  ERR_ARCHIVE_WATERMARK: EXIT.findings,
  ERR_LOG_FORK: EXIT.findings,
};

export function exitCodeFor(e: unknown): number {
  return EXIT_BY_CODE[codeOf(e)] ?? EXIT.internal;
}

/** One line for a failed command: the code and a message safe to show (never a stack). */
export function describeError(e: unknown): string {
  return `error ${codeOf(e)}: ${publicMessage(e)}`;
}

export class UsageError extends Error {}
