// Run one interceptor once: prepare() (live) or the recorded state (replay), then run(),
// under a deadline. Never rejects: every way it can go wrong becomes a failed Attempt, so
// the chain decides fail-open or fail-closed in one place.
import { VouchError } from '../errors.js';
import { withRead } from '../lazy-property.js';
import { isThenable } from '../maybe-promise.js';
import type { BaseContext } from './_context.js';
import { cloneJson, describeError, isPlainObject } from './_json.js';
import { recordedJson } from './builtin/recorded-text.js';
import { resultOf } from './_outcome.js';
import type { Interceptor, InterceptorResult, Json } from './types.js';

/** Where an attempt is: the deadline records a prepare it interrupts, and nothing happens once settled. */
type AttemptPhase = { preparing: boolean; settled: boolean };

export type Attempt =
  | { ok: true; result: InterceptorResult }
  | { ok: false; reason: string; timedOut: boolean; durationMs?: number };

export interface AttemptOptions {
  timeoutMs: number;
  /** Replay: prepare() is not called; state comes from here. */
  replayState?: Record<string, Json>;
  /** Aborts this attempt too (the chain's deadline). Read only by an attempt that returns a promise. */
  signal?: AbortSignal;
  /** Whether `signal` has aborted, without making it (the chain makes its signal on first read). */
  aborted?: () => boolean;
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

/**
 * Most interceptors (every built-in) answer synchronously: they get no timer, no race and no
 * AbortController unless they read `signal` (measured: that machinery was a tenth of a
 * decision's time). A synchronous interceptor cannot be interrupted by a timer anyway, so the
 * outcome is the same; one that returns a promise races its deadline as before, with the time its
 * synchronous part took already counted.
 */
export function attemptInterceptor(ic: Interceptor, payload: unknown, ctx: BaseContext, opts: AttemptOptions, received: unknown = payload): Promise<Attempt> {
  const start = opts.clock?.monotonic();
  const timed = (a: Attempt): Attempt => {
    if (start === undefined || !opts.clock) return a;
    const durationMs = Math.max(0, opts.clock.monotonic() - start);
    if (!a.ok) return { ...a, durationMs };
    a.result.durationMs = durationMs; // a result resultOf made for this attempt alone
    return a;
  };
  // The chain's own deadline passed already: do not start.
  if (opts.aborted ? opts.aborted() : opts.signal?.aborted) return Promise.resolve(timed({ ok: false, reason: 'aborted: chain deadline', timedOut: true }));
  const phase = { preparing: false, settled: false };
  let controller: AbortController | undefined;
  const signal = () => (controller ??= new AbortController()).signal;
  let work: Attempt | Promise<Attempt>;
  try {
    work = perform(ic, payload, ctx, signal, opts, phase, ic.readsReceived ? received : payload);
  } catch (e) {
    work = { ok: false, reason: describeError(e), timedOut: false };
  }
  if (!isThenable(work)) {
    phase.settled = true;
    return Promise.resolve(timed(work));
  }
  return raceDeadline(ic, work, opts, phase, () => controller, start).then(timed);
}

/** The deadline wins even against an interceptor that ignores its signal: it is abandoned. */
async function raceDeadline(
  ic: Interceptor,
  work: Promise<Attempt>,
  opts: AttemptOptions,
  phase: AttemptPhase,
  controllerOf: () => AbortController | undefined,
  start: number | undefined,
): Promise<Attempt> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const reason = `timed out after ${opts.timeoutMs} ms`;
  const spent = start === undefined || !opts.clock ? 0 : Math.max(0, opts.clock.monotonic() - start);
  const deadline = new Promise<Attempt>((resolve) => {
    const give = (why: string, cause: unknown) => {
      if (phase.settled) return;
      if (phase.preparing && !opts.replayState) opts.recordState?.(ic.descriptor.name, failureMarker(why, true));
      phase.settled = true;
      controllerOf()?.abort(cause);
      resolve({ ok: false, reason: why, timedOut: true });
    };
    timer = setTimeout(() => give(reason, new VouchError('ERR_CHAIN_TIMEOUT', reason)), Math.max(0, opts.timeoutMs - spent));
    // The chain's own deadline passed: stop at once rather than at this interceptor's.
    onAbort = () => give('aborted: chain deadline', opts.signal?.reason);
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
  });
  const attempt = await Promise.race([work, deadline]);
  phase.settled = true;
  clearTimeout(timer);
  if (onAbort) opts.signal?.removeEventListener('abort', onAbort);
  return attempt;
}


/** The context an interceptor sees: its AbortSignal is made only if it asks for it. */
function contextOf(ctx: BaseContext, signal: () => AbortSignal, state?: Json): InterceptorContextLike {
  return withRead(state === undefined ? ctx : { ...ctx, state }, 'signal', signal);
}
type InterceptorContextLike = BaseContext & { state?: Json; readonly signal: AbortSignal };

/** prepare() (live) or the recorded state (replay), then run(): synchronously while the interceptor is. */
function perform(ic: Interceptor, payload: unknown, ctx: BaseContext, signal: () => AbortSignal, opts: AttemptOptions, phase: AttemptPhase, preparePayload: unknown): Attempt | Promise<Attempt> {
  const name = ic.descriptor.name;
  if (typeof ic.prepare !== 'function') return runWith(ic, payload, ctx, signal, undefined);
  if (opts.replayState) {
    if (!Object.hasOwn(opts.replayState, name)) return { ok: false, reason: 'no recorded state', timedOut: false };
    const state = opts.replayState[name];
    opts.recordState?.(name, state);
    return runWith(ic, payload, ctx, signal, state);
  }
  phase.preparing = true;
  const failedPrepare = (e: unknown): Json => failureMarker(`prepare failed: ${describeError(e)}`, false);
  // What prepare returned, as recorded state: a copy, or the failure marker if it is not JSON. No
  // credential in it (it is signed into the entry: an upstream's listed schema, say), and its keys
  // in canonical order: replay hands run() the state read back from the entry's canonical bytes,
  // and run() must see exactly that live too.
  const stateOf = (p: unknown): Json => {
    try {
      if (p === undefined) return null;
      const copy = cloneJson(p, '', true);
      const recorded = recordedJson(copy);
      return recorded === copy ? copy : cloneJson(recorded, '', true);
    } catch (e) {
      return failedPrepare(e);
    }
  };
  const then = (state: Json) => {
    phase.preparing = false;
    if (!phase.settled) opts.recordState?.(name, state);
    return runWith(ic, payload, ctx, signal, state);
  };
  let out: unknown;
  try {
    // Each step gets its own copy: what prepare does to it cannot change what run sees.
    out = ic.prepare(cloneJson(preparePayload), contextOf(ctx, signal) as never);
  } catch (e) {
    return then(failedPrepare(e));
  }
  if (!isThenable(out)) return then(stateOf(out));
  return Promise.resolve(out).then(
    (p) => then(stateOf(p)),
    (e) => then(failedPrepare(e)),
  );
}

function runWith(ic: Interceptor, payload: unknown, ctx: BaseContext, signal: () => AbortSignal, state: Json | undefined): Attempt | Promise<Attempt> {
  const failed = preparedFailure(state);
  if (failed) return { ok: false, ...failed };
  const outcome = (raw: unknown): Attempt => {
    try {
      return { ok: true, result: resultOf(ic.descriptor, ctx.phase, raw, payload) };
    } catch (e) {
      return { ok: false, reason: describeError(e), timedOut: false };
    }
  };
  let raw: unknown;
  try {
    raw = ic.run(cloneJson(payload), contextOf(ctx, signal, state) as never);
  } catch (e) {
    return { ok: false, reason: describeError(e), timedOut: false };
  }
  if (!isThenable(raw)) return outcome(raw);
  return Promise.resolve(raw).then(outcome, (e) => ({ ok: false, reason: describeError(e), timedOut: false }));
}
