// The named behaviors of the SEP-2624 conformance suite (fixtures/conformance/README.md),
// bound to vouch's Interceptor contract, so the 14 protocol fixtures run against our chain.
import { InputError } from '../errors.js';
import { isPlainObject } from './_json.js';
import type { Interceptor, InterceptorDescriptor, Outcome } from './types.js';

export const CONFORMANCE_BEHAVIORS = ['allow-all', 'deny-all', 'require-note', 'require-uppercase-note', 'uppercase-note', 'crash'] as const;
export type ConformanceBehavior = (typeof CONFORMANCE_BEHAVIORS)[number];

function noteOf(payload: unknown): string | undefined {
  const args = isPlainObject(payload) ? payload.arguments : undefined;
  return isPlainObject(args) && typeof args.note === 'string' ? args.note : undefined;
}

const pass = (): Outcome => ({ valid: true });
const block = (message: string): Outcome => ({ valid: false, severity: 'error', messages: [{ message, severity: 'error' }] });

const BEHAVIORS: Record<ConformanceBehavior, (payload: unknown) => Outcome> = {
  'allow-all': () => pass(),
  'deny-all': () => block('denied by policy'),
  'require-note': (p) => {
    const n = noteOf(p);
    return n !== undefined && n !== '' ? pass() : block('note is required');
  },
  'require-uppercase-note': (p) => {
    const n = noteOf(p);
    return n !== undefined && n === n.toUpperCase() ? pass() : block('note must be uppercase');
  },
  'uppercase-note': (p) => {
    const n = noteOf(p);
    if (n === undefined) return { modified: false, payload: p };
    const payload = p as { arguments: Record<string, unknown> };
    return { modified: true, payload: { ...payload, arguments: { ...payload.arguments, note: n.toUpperCase() } } };
  },
  crash: () => {
    throw new Error('interceptor crashed');
  },
};

/** An interceptor with `descriptor` that behaves as the named conformance behavior. */
export function createBehavior(behavior: string, descriptor: InterceptorDescriptor): Interceptor {
  if (!(CONFORMANCE_BEHAVIORS as readonly string[]).includes(behavior)) {
    throw new InputError('ERR_INPUT', `unknown conformance behavior ${behavior}`, [{ path: '/behavior', message: `must be one of ${CONFORMANCE_BEHAVIORS.join(', ')}` }]);
  }
  const fn = BEHAVIORS[behavior as ConformanceBehavior];
  return { descriptor, run: (payload) => fn(payload) };
}
