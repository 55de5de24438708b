// The two kinds of chain step: one mutation (in sequence) and the parallel group of
// validations plus fire-and-forget observers. Each step reads and updates one ChainState;
// a step that blocks sets `stop`, and no later step runs.
import { attemptInterceptor, type Attempt, type AttemptOptions } from './_attempt.js';
import type { BaseContext } from './_context.js';
import { failureResultOf } from './_outcome.js';
import type { AbortedAt, ChainStatus, Interceptor, InterceptorResult, Json, Phase } from './types.js';

export interface ChainState {
  readonly original: Json;
  payload: Json;
  readonly results: InterceptorResult[];
  stop?: { status: ChainStatus; abortedAt: AbortedAt; restore: boolean };
  /** Interceptors whose attempt is running, for naming the culprit of a chain timeout. */
  readonly inFlight: Set<Interceptor>;
  /** Set once the chain has answered: nothing more may start (no late observers). */
  closed: boolean;
}

export interface StepEnv {
  readonly ctx: BaseContext;
  readonly attempt: AttemptOptions;
  readonly observerTimeoutMs: number;
  readonly replay: boolean;
  readonly observers: Promise<void>[];
}

const isActive = (ic: Interceptor) => ic.descriptor.mode !== 'audit';
const mayFail = (ic: Interceptor) => ic.descriptor.mode === 'audit' || ic.descriptor.failOpen === true;

function withDuration(r: InterceptorResult, a: Attempt): InterceptorResult {
  return !a.ok && a.durationMs !== undefined ? { ...r, durationMs: a.durationMs } : r;
}

/** One mutator. Active: its payload replaces the current one. Audit: shadow run, recorded only. */
export async function runMutation(ic: Interceptor, s: ChainState, env: StepEnv): Promise<void> {
  const input = s.payload;
  s.inFlight.add(ic);
  const a = await attemptInterceptor(ic, input, env.ctx, env.attempt);
  s.inFlight.delete(ic);
  if (s.closed) return;
  if (a.ok) {
    s.results.push(a.result);
    if (isActive(ic) && a.result.type === 'mutation' && a.result.modified) s.payload = a.result.payload as Json;
    return;
  }
  if (mayFail(ic)) {
    s.results.push(withDuration(failureResultOf(ic.descriptor, env.ctx.phase, a.reason, input, 'skip'), a));
    return;
  }
  s.results.push(withDuration(failureResultOf(ic.descriptor, env.ctx.phase, a.reason, input, 'block'), a));
  // Mutations are atomic: a failed one voids every one before it (restore the original).
  s.stop = {
    status: a.timedOut ? 'timeout' : 'mutation_failed',
    abortedAt: { interceptor: ic.descriptor.name, reason: a.reason, type: 'mutation' },
    restore: true,
  };
}

/**
 * Validators and observers at one point of the chain, all started in the same tick.
 * Validators are awaited together; observers are dispatched and never awaited.
 * `group` is already in report order (priority, then name).
 */
export async function runParallel(group: Interceptor[], s: ChainState, env: StepEnv): Promise<void> {
  const input = s.payload;
  const phase: Phase = env.ctx.phase;
  const pending = group.map((ic) => {
    if (ic.descriptor.type === 'observability') {
      dispatchObserver(ic, input, env);
      return undefined;
    }
    s.inFlight.add(ic);
    return attemptInterceptor(ic, input, env.ctx, env.attempt, s.original).finally(() => s.inFlight.delete(ic));
  });
  const attempts = await Promise.all(pending);
  if (s.closed) return;
  group.forEach((ic, i) => {
    const a = attempts[i];
    if (a === undefined) {
      // Dispatched, not awaited: the decision never waits for an observer.
      s.results.push({ interceptor: ic.descriptor.name, type: 'observability', phase, observed: true });
      return;
    }
    if (a.ok) {
      s.results.push(a.result);
      const r = a.result;
      if (!s.stop && isActive(ic) && r.type === 'validation' && !r.valid && r.severity === 'error') {
        const reason = r.messages?.find((m) => m.severity === 'error')?.message ?? 'validation failed';
        s.stop = { status: 'validation_failed', abortedAt: { interceptor: ic.descriptor.name, reason, type: 'validation' }, restore: false };
      }
      return;
    }
    const handling = mayFail(ic) ? 'skip' : 'block';
    s.results.push(withDuration(failureResultOf(ic.descriptor, phase, a.reason, input, handling), a));
    if (handling === 'block' && !s.stop) {
      s.stop = {
        status: a.timedOut ? 'timeout' : 'validation_failed',
        abortedAt: { interceptor: ic.descriptor.name, reason: a.reason, type: 'validation' },
        restore: false,
      };
    }
  });
}

function dispatchObserver(ic: Interceptor, input: Json, env: StepEnv): void {
  // Observers are not replayed (they cannot change a decision) and their state is not recorded.
  if (env.replay) return;
  const opts: AttemptOptions = { timeoutMs: env.observerTimeoutMs, clock: undefined };
  // Started a microtask later: every validator of the group has started before any observer
  // code runs, and an observer that throws synchronously cannot disturb the group.
  const task = Promise.resolve()
    .then(() => attemptInterceptor(ic, input, env.ctx, opts))
    .then(
      () => undefined,
      () => undefined,
    );
  env.observers.push(task);
}
