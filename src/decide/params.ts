// Parsers for the interceptor methods' params (untrusted JSON-RPC input). Each lists every bad
// field; the wire layer turns the InputError into -32602 with the issues as data.
import { InputError, type Issue } from '../errors.js';
import type { Phase } from '../interceptors/types.js';

export const EVENT_RE = /^(\*|[a-z][A-Za-z0-9_-]*(\/[A-Za-z0-9_.-]+)+)$/;
const MAX_NAMES = 256;
const CONTEXT_KEYS = ['sessionId', 'traceId', 'principal', 'onBehalfOf', 'server'] as const;

export interface ChainContextParams {
  sessionId?: string;
  traceId?: string;
  /** Legacy: a principal other than the caller's is read as onBehalfOf (delegate role), never as the principal. */
  principal?: string;
  /** Whom the authenticated caller acts for: needs the delegate role; recorded and given to Cedar as context.onBehalfOf. */
  onBehalfOf?: string;
  server?: string;
}

export interface ExecuteChainParams {
  event: string;
  phase: Phase;
  payload: unknown;
  interceptors?: string[];
  timeoutMs?: number;
  context?: ChainContextParams;
  meta?: Record<string, unknown>;
}

export interface InvokeRpcParams {
  name: string;
  event: string;
  phase: Phase;
  payload: unknown;
  meta?: Record<string, unknown>;
}

function obj(v: unknown, path: string, issues: Issue[]): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    issues.push({ path, message: 'must be an object' });
    return {};
  }
  return v as Record<string, unknown>;
}

function str(o: Record<string, unknown>, k: string, path: string, issues: Issue[], opts: { required?: boolean; max?: number; re?: RegExp } = {}): string | undefined {
  const v = o[k];
  if (v === undefined) {
    if (opts.required) issues.push({ path: `${path}/${k}`, message: 'required' });
    return undefined;
  }
  if (typeof v !== 'string' || v.length === 0 || v.length > (opts.max ?? 512) || (opts.re && !opts.re.test(v))) {
    issues.push({ path: `${path}/${k}`, message: opts.re ? 'not a valid value' : `must be a non-empty string of at most ${opts.max ?? 512} characters` });
    return undefined;
  }
  return v;
}

function phase(o: Record<string, unknown>, issues: Issue[]): Phase {
  if (o.phase !== 'request' && o.phase !== 'response') issues.push({ path: '/phase', message: 'must be "request" or "response"' });
  return o.phase as Phase;
}

function meta(o: Record<string, unknown>, issues: Issue[]): Record<string, unknown> | undefined {
  if (o._meta === undefined) return undefined;
  return obj(o._meta, '/_meta', issues);
}

function fail(what: string, issues: Issue[]): never {
  throw new InputError('ERR_INPUT', `invalid ${what} params: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
}

export function parseExecuteChainParams(input: unknown): ExecuteChainParams {
  const issues: Issue[] = [];
  const o = obj(input, '', issues);
  // Any string: whether it names an event a decision can be asked for is decide's check (ERR_UNKNOWN_EVENT).
  const event = str(o, 'event', '', issues, { required: true, max: 200 })!;
  const ph = phase(o, issues);
  if (!('payload' in o)) issues.push({ path: '/payload', message: 'required' });
  let interceptors: string[] | undefined;
  if (o.interceptors !== undefined) {
    if (!Array.isArray(o.interceptors) || o.interceptors.length > MAX_NAMES || o.interceptors.some((n) => typeof n !== 'string')) issues.push({ path: '/interceptors', message: `must be an array of at most ${MAX_NAMES} names` });
    else interceptors = o.interceptors as string[];
  }
  if (o.config !== undefined && !(typeof o.config === 'object' && o.config !== null && Object.keys(o.config).length === 0)) {
    issues.push({ path: '/config', message: 'per-call interceptor config is not accepted: configure interceptors in the service config (so every decision is replayable from stored documents)' });
  }
  let timeoutMs: number | undefined;
  if (o.timeoutMs !== undefined) {
    if (typeof o.timeoutMs !== 'number' || !Number.isInteger(o.timeoutMs) || o.timeoutMs < 1 || o.timeoutMs > 60_000) issues.push({ path: '/timeoutMs', message: 'integer 1..60000' });
    else timeoutMs = o.timeoutMs;
  }
  let context: ChainContextParams | undefined;
  if (o.context !== undefined && o.context !== null) {
    const c = obj(o.context, '/context', issues);
    context = {};
    for (const k of Object.keys(c)) if (!CONTEXT_KEYS.includes(k as never)) issues.push({ path: `/context/${k}`, message: `unknown field (expected one of: ${CONTEXT_KEYS.join(', ')})` });
    for (const k of CONTEXT_KEYS) {
      const v = str(c, k, '/context', issues, { max: 256 });
      if (v !== undefined) context[k] = v;
    }
  }
  const m = meta(o, issues);
  if (issues.length) fail('interceptor/executeChain', issues);
  return { event, phase: ph, payload: o.payload, interceptors, timeoutMs, context, meta: m };
}

export function parseInvokeParams(input: unknown): InvokeRpcParams {
  const issues: Issue[] = [];
  const o = obj(input, '', issues);
  const name = str(o, 'name', '', issues, { required: true, max: 200 })!;
  const event = str(o, 'event', '', issues, { required: true, max: 200, re: EVENT_RE })!;
  const ph = phase(o, issues);
  if (!('payload' in o)) issues.push({ path: '/payload', message: 'required' });
  const m = meta(o, issues);
  if (issues.length) fail('interceptor/invoke', issues);
  return { name, event, phase: ph, payload: o.payload, meta: m };
}

export function parseListParams(input: unknown): { event: string | null } {
  if (input === undefined || input === null) return { event: null };
  const issues: Issue[] = [];
  const o = obj(input, '', issues);
  const event = o.event === undefined || o.event === null ? null : str(o, 'event', '', issues, { max: 200, re: EVENT_RE }) ?? null;
  if (issues.length) fail('interceptors/list', issues);
  return { event };
}
