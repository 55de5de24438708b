// Small factories for chain tests: declare an interceptor in one line, with a run function.
import { parseDeclaration } from '../../src/protocol/index.js';
import type { Interceptor, InterceptorContext, InterceptorType, Json, Outcome } from '../../src/interceptors/types.js';

export const CTX = { time: '2026-01-02T03:04:05Z', sessionId: 's-1', principal: 'alice' };

type Run = (payload: unknown, ctx: InterceptorContext) => Promise<Outcome> | Outcome;
type Extra = Record<string, unknown> & { prepare?: Interceptor['prepare'] };

export function make(type: InterceptorType, name: string, run: Run, extra: Extra = {}): Interceptor {
  const { prepare, ...decl } = extra;
  const descriptor = parseDeclaration({ name, type, events: ['tools/call'], phase: 'both', ...decl });
  return prepare ? { descriptor, run, prepare } : { descriptor, run };
}

export const validator = (name: string, run: Run, extra?: Extra) => make('validation', name, run, extra);
export const mutator = (name: string, run: Run, extra?: Extra) => make('mutation', name, run, extra);
export const observer = (name: string, run: Run, extra?: Extra) => make('observability', name, run, extra);

export const allow = (): Outcome => ({ valid: true });
export const deny = (message = 'no'): Outcome => ({ valid: false, severity: 'error', messages: [{ message, severity: 'error' }] });
export const crash = (): never => {
  throw new Error('boom');
};

/** A mutator that appends its tag to payload.trail (so the order of mutations shows). */
export function tagger(name: string, extra?: Extra): Interceptor {
  return mutator(name, (p) => {
    const o = p as { trail?: string[] };
    return { modified: true, payload: { ...o, trail: [...(o.trail ?? []), name] } };
  }, extra);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });
}

/** A promise and its resolver, for making two interceptors wait on each other. */
export function latch(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

export type { Json };
