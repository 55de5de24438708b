// rate-limit: at most `limit` calls per fixed window of `windowMs`, per principal and tool (or
// any key of principal, tool, server, session). The counter is live state: prepare() counts the
// hit and returns {count, windowStart, limit}, recorded in the entry; run() decides from the
// recorded count and window against the limit of its own config. A `session` is the caller's
// conversation (state-scope.ts): always under its principal, and the principal alone without one.
import { InputError, type Issue } from '../../errors.js';
import type { Interceptor, InterceptorContext, Json, ValidationOutcome } from '../types.js';
import { buildDescriptor, ConfigReader } from './_content-config.js';
import { isRecord } from './_walk.js';
import { conversationScopeOf } from './state-scope.js';
import { whenAnswered, type BuiltinFactory, type CounterStore, type MaybePromise } from './types.js';

export const RATE_KEY_PARTS = ['principal', 'tool', 'server', 'session'] as const;
export type RateKeyPart = (typeof RATE_KEY_PARTS)[number];

export interface RateLimitConfig {
  limit: number;
  windowMs: number;
  key: RateKeyPart[];
}

export interface RateState {
  count: number;
  windowStart: string;
  limit: number;
}

export function parseRateLimitConfig(name: string, config: Json | undefined): RateLimitConfig {
  const r = new ConfigReader(name, config, ['limit', 'windowMs', 'key']);
  const limit = r.int('limit', { min: 1, required: true });
  const windowMs = r.int('windowMs', { min: 1, max: 366 * 24 * 3600 * 1000 });
  const key = r.enumList('key', RATE_KEY_PARTS);
  r.done();
  return { limit: limit!, windowMs: windowMs ?? 60_000, key: key ?? ['principal', 'tool'] };
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Start of the fixed window holding `time` (windows aligned to the Unix epoch), RFC 3339 UTC. */
export function windowStartOf(time: string, windowMs: number): string {
  const ms = RFC3339.test(time) ? Date.parse(time) : NaN;
  if (Number.isNaN(ms)) {
    throw new InputError('ERR_INPUT', 'decision time is not RFC 3339', [{ path: '/time', message: 'not RFC 3339' }]);
  }
  return new Date(Math.floor(ms / windowMs) * windowMs).toISOString();
}

/**
 * The counter key; the tenant is always part of it, so no count crosses tenants. `session` is the
 * conversation scope (tenant, principal, on-behalf-of, session id): a session id is the caller's
 * word, so one principal naming another's session, or two callers naming none (every 2026
 * request), never share a counter through it.
 */
export function rateKeyOf(name: string, parts: readonly RateKeyPart[], payload: unknown, ctx: Omit<InterceptorContext, 'state'>): string {
  const tool = isRecord(payload) && typeof payload.name === 'string' ? payload.name : ctx.event;
  const values: Record<RateKeyPart, string> = {
    principal: ctx.principal ?? 'anonymous',
    tool,
    server: ctx.server ?? 'unknown',
    session: conversationScopeOf(ctx),
  };
  return JSON.stringify([ctx.tenant ?? '', name, ...parts.map((p) => `${p}=${values[p]}`)]);
}

/** Count this hit (atomically in the store: two concurrent hits never get the same count). */
export function prepareRateState(counters: CounterStore, config: RateLimitConfig, key: string, time: string): MaybePromise<RateState> {
  const windowStart = windowStartOf(time, config.windowMs);
  return whenAnswered(counters.hit(key, windowStart, config.windowMs), (count) => ({ count, windowStart, limit: config.limit }));
}

export function parseRateState(state: Json | undefined): RateState {
  const s = isRecord(state) ? state : {};
  const issues: Issue[] = [];
  if (!Number.isSafeInteger(s.count) || (s.count as number) < 1) issues.push({ path: '/count', message: 'must be a positive integer' });
  if (typeof s.windowStart !== 'string') issues.push({ path: '/windowStart', message: 'must be a string' });
  if (!Number.isSafeInteger(s.limit) || (s.limit as number) < 1) issues.push({ path: '/limit', message: 'must be a positive integer' });
  if (issues.length > 0) throw new InputError('ERR_INPUT', 'rate-limit: malformed recorded state', issues);
  return { count: s.count as number, windowStart: s.windowStart as string, limit: s.limit as number };
}

/** Pure: deny once the recorded count passes the limit. */
export function decideRate(state: RateState): ValidationOutcome {
  const info = { count: state.count, limit: state.limit, windowStart: state.windowStart };
  if (state.count <= state.limit) return { valid: true, info };
  return {
    valid: false,
    severity: 'error',
    messages: [{ message: `rate limit exceeded: ${state.count}/${state.limit} in window`, severity: 'error' }],
    info,
  };
}

export const createRateLimit: BuiltinFactory = ({ name, config, declaration, deps }): Interceptor => {
  const parsed = parseRateLimitConfig(name, config);
  const counters = deps.state.counters;
  const descriptor = buildDescriptor(
    name,
    {
      type: 'validation',
      description: `At most ${parsed.limit} calls per ${parsed.windowMs} ms per ${parsed.key.join(' and ')}.`,
      hooks: [{ events: ['tools/call'], phase: 'request' }],
    },
    declaration,
  );
  return {
    descriptor,
    prepare(payload, ctx) {
      const key = rateKeyOf(name, parsed.key, payload, ctx);
      return whenAnswered(prepareRateState(counters, parsed, key, ctx.time), (s) => ({ ...s }));
    },
    // The count is recorded state; the limit is policy: taken from this config, so a what-if
    // with a changed limit decides differently on the same recorded count.
    run: (_payload, ctx) => decideRate({ ...parseRateState(ctx.state), limit: parsed.limit }),
  };
};
