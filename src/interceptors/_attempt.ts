// Run one interceptor once: prepare() (live) or the recorded state (replay), then run(),
// under a deadline. Never rejects: every way it can go wrong becomes a failed Attempt, so
// the chain decides fail-open or fail-closed in one place.
import { VouchError } from '../errors.js';
import type { BaseContext } from './_context.js';
import { cloneJson, describeError, isPlainObject } from './_json.js';
import { resultOf } from './_outcome.js';
import type { Interceptor, InterceptorResult, Json } from './types.js';

export type Attempt =
  | { ok: true; result: InterceptorResult }
  | { ok: false; reason: string; timedOut: boolean; durationMs?: number };

export interface AttemptOptions {
  timeoutMs: number;
  /** Replay: prepare() is not called; state comes from here. */
  replayState?: Record<string, Json>;
  /** Aborts this attempt too (the chain's deadline). */
  signal?: AbortSignal;
  clock?: { monotonic(): number };
  /** Receives the state to record for this interceptor (live: what prepare returned). */
  recordState?: (name: string, state: Json) => void;
}

/**
 * A prepare() that failed is recorded as this marker, so replay fails the interceptor with
 * the same reason instead of running it on state it never had.
 */
const PREPARE_FAILED = 'io.vouch/prepareFailed';

function preparedFailure(state: Json | undefined): { reason: string; timedOut: boolean } | undefined {
  if (!isPlainObject(state) || !isPlainObject(state[PREPARE_FAILED])) return undefined;
  const m = state[PREPARE_FAILED] as Record<string, unknown>;
  return { reason: String(m.reason), timedOut: m.timedOut === true };
}

function failureMarker(reason: string, timedOut: boolean): Json {
  return { [PREPARE_FAILED]: { reason, timedOut } };
}

export async function attemptInterceptor(ic: Interceptor, payload: unknown, ctx: BaseContext, opts: AttemptOptions): Promise<Attempt> {
  const controller = new AbortController();
  const start = opts.clock?.monotonic();
  const phase = { preparing: false, settled: false };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const reason = `timed out after ${opts.timeoutMs} ms`;
  // The deadline wins even against an interceptor that ignores its signal: it is abandoned.
  const deadline = new Promise<Attempt>((resolve) => {
    const give = (why: string, cause: unknown) => {
      if (phase.settled) return;
      if (phase.preparing && !opts.replayState) opts.recordState?.(ic.descriptor.name, failureMarker(why, true));
      phase.settled = true;
      controller.abort(cause);
      resolve({ ok: false, reason: why, timedOut: true });
    };
    timer = setTimeout(() => give(reason, new VouchError('ERR_CHAIN_TIMEOUT', reason)), opts.timeoutMs);
    // The chain's own deadline passed: stop at once rather than at this interceptor's.
    onAbort = () => give('aborted: chain deadline', opts.signal?.reason);
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
  });
  const work = phase.settled ? deadline : perform(ic, payload, ctx, controller.signal, opts, phase);
  const attempt = await Promise.race([work, deadline]);
  phase.settled = true;
  clearTimeout(timer);
  if (onAbort) opts.signal?.removeEventListener('abort', onAbort);
  if (start === undefined || !opts.clock) return attempt;
  const durationMs = Math.max(0, opts.clock.monotonic() - start);
  return attempt.ok ? { ok: true, result: { ...attempt.result, durationMs } } : { ...attempt, durationMs };
}

async function perform(
  ic: Interceptor,
  payload: unknown,
  ctx: BaseContext,
  signal: AbortSignal,
  opts: AttemptOptions,
  phase: { preparing: boolean; settled: boolean },
): Promise<Attempt> {
  const name = ic.descriptor.name;
  try {
    let state: Json | undefined;
    if (opts.replayState) {
      if (typeof ic.prepare === 'function') {
        if (!Object.hasOwn(opts.replayState, name)) return { ok: false, reason: 'no recorded state', timedOut: false };
        state = opts.replayState[name];
        opts.recordState?.(name, state);
      }
    } else if (typeof ic.prepare === 'function') {
      phase.preparing = true;
      try {
        // Each step gets its own copy: what prepare does to it cannot change what run sees.
        const prepared = await ic.prepare(cloneJson(payload), { ...ctx, signal });
        state = prepared === undefined ? null : cloneJson(prepared);
      } catch (e) {
        state = failureMarker(`prepare failed: ${describeError(e)}`, false);
      }
      phase.preparing = false;
      if (!phase.settled) opts.recordState?.(name, state);
    }
    const failed = preparedFailure(state);
    if (failed) return { ok: false, ...failed };
    const runCtx = state === undefined ? { ...ctx, signal } : { ...ctx, state, signal };
    const raw = await ic.run(cloneJson(payload), runCtx);
    return { ok: true, result: resultOf(ic.descriptor, ctx.phase, raw, payload) };
  } catch (e) {
    return { ok: false, reason: describeError(e), timedOut: false };
  }
}
