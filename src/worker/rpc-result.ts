// Errors across Durable Object RPC: the runtime keeps only an error's name and message, so the
// object returns a result envelope and the Worker rethrows the same coded error (its HTTP status
// and JSON-RPC code depend on `code`). Stacks and causes stay in the object.
import { AccessError, ConfigError, CryptoError, InputError, isVouchError, PolicyError, StoreError, VerificationError, VouchError, type ErrorCode, type Issue } from '../errors.js';

export interface WireError {
  name: string;
  code: ErrorCode;
  message: string;
  issues?: Issue[];
}

export type RpcResult<T> = { ok: true; value: T } | { ok: false; error: WireError };

/** Object side: run fn, turn any throw into a coded error value. */
export async function toResult<T>(fn: () => T | Promise<T>): Promise<RpcResult<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    if (isVouchError(e)) {
      const issues = (e as { issues?: Issue[] }).issues;
      return { ok: false, error: { name: e.name, code: e.code, message: e.message, ...(issues?.length ? { issues } : {}) } };
    }
    return { ok: false, error: { name: 'Error', code: 'ERR_INTERNAL', message: e instanceof Error ? e.message : String(e) } };
  }
}

type Coded = new (code: ErrorCode, message: string) => VouchError;
type WithIssues = new (code: ErrorCode, message: string, issues: Issue[]) => VouchError;

const CODED: Record<string, Coded> = { VouchError, CryptoError, VerificationError, StoreError, PolicyError, AccessError };
const WITH_ISSUES: Record<string, WithIssues> = { InputError, ConfigError };

/** Worker side: the value, or the object's error rethrown as the same class and code. */
export function unwrapResult<T>(r: RpcResult<T>): T {
  if (r.ok) return r.value;
  const { name, code, message, issues } = r.error;
  if (code === 'ERR_INTERNAL') throw new Error(message); // stays internal: never on the wire
  const withIssues = WITH_ISSUES[name];
  if (withIssues) throw new withIssues(code, message, issues ?? []);
  throw new (CODED[name] ?? VouchError)(code, message);
}
