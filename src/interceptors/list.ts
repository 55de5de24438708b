// Which interceptors a message reaches, and in what order: event matching (`*` hooks every
// event), interceptors/list, and the priority order (lower first, ties by name, ordinal).
import { PROTOCOL_VERSION } from '../protocol/index.js';
import type { Interceptor, InterceptorDescriptor, Phase } from './types.js';

function hooksEvent(d: InterceptorDescriptor, event: string, phase?: Phase): boolean {
  return d.hooks.some((h) => (phase === undefined || h.phase === phase) && (h.events.includes(event) || h.events.includes('*')));
}

/** interceptors/list: descriptors in registration order, optionally only those hooking `event`. */
export function listInterceptors(interceptors: Interceptor[], event?: string | null): { interceptors: InterceptorDescriptor[] } {
  const picked = event == null ? interceptors : interceptors.filter((i) => hooksEvent(i.descriptor, event));
  return { interceptors: picked.map((i) => i.descriptor) };
}

/** The interceptors with a hook for (event or `*`, phase), in registration order. */
export function selectInterceptors(interceptors: Interceptor[], event: string, phase: Phase): Interceptor[] {
  return interceptors.filter((i) => hooksEvent(i.descriptor, event, phase));
}

/** A number hint applies to both phases; an object hint per phase; absent means 0. */
export function priorityOf(descriptor: InterceptorDescriptor, phase: Phase): number {
  const h = descriptor.priorityHint;
  if (h === undefined) return 0;
  if (typeof h === 'number') return h;
  return h[phase] ?? 0;
}

/** Priority ascending, ties by name in ordinal (UTF-16 code unit) order: locale-independent. */
export function compareInterceptors(phase: Phase): (a: Interceptor, b: Interceptor) => number {
  return (a, b) => {
    const d = priorityOf(a.descriptor, phase) - priorityOf(b.descriptor, phase);
    if (d !== 0) return d;
    const x = a.descriptor.name;
    const y = b.descriptor.name;
    return x < y ? -1 : x > y ? 1 : 0;
  };
}

/** A sorted copy: the order the chain runs (mutations) or reports (parallel groups) them in. */
export function orderInterceptors(interceptors: Interceptor[], phase: Phase): Interceptor[] {
  return [...interceptors].sort(compareInterceptors(phase));
}

/**
 * The interceptors that run for a call: every mandatory one, always, plus the optional ones the
 * caller's `interceptors` list names (all of them when it names none). A caller selects among the
 * optional interceptors only; nothing it sends skips, reorders or re-modes a mandatory one.
 */
export function runningInterceptors(interceptors: Interceptor[], only: readonly string[] | undefined): Interceptor[] {
  if (only === undefined) return interceptors;
  return interceptors.filter((i) => !i.optional || only.includes(i.descriptor.name));
}

/** A config's `uncovered` rule: traffic no authorization interceptor covers that is allowed anyway. */
export interface UncoveredRule {
  events: string[];
  phase: Phase | 'both';
}

export type Coverage = { covered: true } | { covered: false; allow: boolean; reason: string };

/**
 * Whether an active authorization interceptor of `running` hooks (event, phase). When none does,
 * the message is denied unless an `uncovered` rule names its event (or `*`) and phase.
 */
export function coverageOf(running: Interceptor[], event: string, phase: Phase, uncovered: readonly UncoveredRule[] = []): Coverage {
  if (running.some((i) => i.authorizes === true && i.descriptor.mode !== 'audit' && hooksEvent(i.descriptor, event, phase))) return { covered: true };
  const allow = uncovered.some((r) => (r.phase === 'both' || r.phase === phase) && (r.events.includes(event) || r.events.includes('*')));
  return { covered: false, allow, reason: `no authorization interceptor covers ${event} ${phase}` };
}

/** The config declaration's `optional` / `authorizes` on the built interceptor (a remote authorizes only when declared to). */
export function withDeclaration<T extends Interceptor>(ic: T, d: { optional?: boolean; authorizes?: boolean }): T {
  if (d.optional !== undefined) ic.optional = d.optional;
  if (d.authorizes !== undefined) ic.authorizes = d.authorizes;
  return ic;
}

/** What a compat skip records (in the entry's state under the interceptor's name) so replay matches. */
export const COMPAT_SKIP = 'compat';

/**
 * Why `d` must not run under the negotiated `protocolVersion`, or undefined when it may. An
 * unknown version (no initialize seen, no header) skips nothing: the range cannot be judged.
 */
export function compatSkipReason(d: InterceptorDescriptor, protocolVersion: string | undefined): string | undefined {
  const c = d.compat;
  // A version not in the YYYY-MM-DD form cannot be placed in a range: run the interceptor (never skip on doubt).
  if (protocolVersion === undefined || c === undefined || !PROTOCOL_VERSION.test(protocolVersion)) return undefined;
  if (c.minProtocol !== undefined && protocolVersion < c.minProtocol) return `protocol ${protocolVersion} is before minProtocol ${c.minProtocol}`;
  if (c.maxProtocol !== undefined && protocolVersion > c.maxProtocol) return `protocol ${protocolVersion} is after maxProtocol ${c.maxProtocol}`;
  return undefined;
}

/** The interceptors whose compat range admits `protocolVersion` (all of them when it is unknown). */
export function compatibleInterceptors<T extends Interceptor>(interceptors: T[], protocolVersion: string | undefined): T[] {
  return protocolVersion === undefined ? interceptors : interceptors.filter((i) => compatSkipReason(i.descriptor, protocolVersion) === undefined);
}
