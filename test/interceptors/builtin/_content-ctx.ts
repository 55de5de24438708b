// Test helpers for the content built-ins: a decision context and a one-interceptor "apply" that
// does what the chain does live (prepare -> run with the state -> commit).
import type { Interceptor, InterceptorContext, Json, Outcome, Phase } from '../../../src/interceptors/types.js';
import { createMemoryStateStores } from '../../../src/interceptors/builtin/state-memory.js';
import type { BuiltinDeps, BuiltinFactory } from '../../../src/interceptors/builtin/types.js';

export const TIME = '2025-06-01T12:00:00Z';

export function ctxOf(event: string, phase: Phase, extra: Partial<InterceptorContext> = {}): InterceptorContext {
  return {
    event,
    phase,
    direction: phase === 'request' ? 'sending' : 'receiving',
    time: TIME,
    signal: new AbortController().signal,
    ...extra,
  };
}

export function depsOf(): BuiltinDeps {
  return { state: createMemoryStateStores() };
}

export function make(factory: BuiltinFactory, config?: Json, deps: BuiltinDeps = depsOf(), name = 'test'): Interceptor {
  return factory({ name, config, declaration: {}, deps });
}

export interface Applied {
  state: Json | undefined;
  outcome: Outcome;
}

/** Live path: prepare (recorded state), pure run with it, then commit. */
export async function apply(i: Interceptor, payload: unknown, ctx: InterceptorContext): Promise<Applied> {
  const { state: _ignored, ...live } = ctx;
  const state = i.prepare ? await i.prepare(payload, live) : undefined;
  const outcome = await i.run(payload, { ...ctx, state });
  const final = 'payload' in outcome ? outcome.payload : payload;
  await i.commit?.(final, live);
  return { state, outcome };
}

export function denied(o: Outcome): boolean {
  return 'valid' in o && !o.valid && o.severity === 'error';
}
