// The config's event sections: `events` (custom event names it declares) and `uncovered` (traffic
// no authorization interceptor covers that is allowed anyway), and the check that every hooked
// event is one a decision can be asked for (a hook on `tools/Call` would silently never fire).
import { caseVariantOf, isKnownEvent } from '../protocol/index.js';
import { Issues, pointer } from './_issues.js';
import { CUSTOM_EVENT } from './config-declaration.js';
import type { InterceptorDeclaration, UncoveredRule } from './config-types.js';

export function parseDeclaredEvents(is: Issues, v: unknown): string[] | undefined {
  const events = is.strArray(v, '/events');
  if (!events) return undefined;
  const seen = new Set<string>();
  events.forEach((e, i) => {
    const p = pointer('/events', i);
    if (!CUSTOM_EVENT.test(e)) is.add(p, `"${e}" is not a custom event name (namespace/operation)`);
    else if (isKnownEvent(e)) is.add(p, `"${e}" is an MCP or SEP event already; declare only custom events`);
    else if (caseVariantOf(e)) is.add(p, `"${e}" differs from the event "${caseVariantOf(e)}" only by letter case`);
    if (seen.has(e)) is.add(p, `"${e}" is declared twice`);
    seen.add(e);
  });
  return events;
}

export function parseUncovered(is: Issues, v: unknown, declared: readonly string[]): UncoveredRule[] | undefined {
  if (!Array.isArray(v)) return void is.add('/uncovered', 'must be an array of {events, phase}');
  const out: UncoveredRule[] = [];
  v.forEach((r, i) => {
    const p = pointer('/uncovered', i);
    const o = is.obj(r, p, ['events', 'phase']);
    if (!o) return;
    const events = is.strArray(o.events, pointer(p, 'events'), { nonEmpty: true });
    events?.forEach((e, j) => {
      if (e !== '*' && !isKnownEvent(e, declared)) is.add(pointer(pointer(p, 'events'), j), `unknown event "${e}" (declare custom events in /events)`);
    });
    const phase = is.oneOf(o.phase, pointer(p, 'phase'), ['request', 'response', 'both'] as const);
    if (events && phase) out.push({ events, phase });
  });
  return out.length === v.length ? out : undefined;
}

/** Every hooked event must be `*`, an MCP or SEP event, or declared in `events`. */
export function checkHookedEvents(is: Issues, decls: InterceptorDeclaration[], raw: unknown[], declared: readonly string[]): void {
  decls.forEach((d) => {
    const i = raw.findIndex((x) => typeof x === 'object' && x !== null && (x as { name?: unknown }).name === d.name);
    d.hooks?.forEach((h) =>
      h.events.forEach((e) => {
        if (e === '*' || isKnownEvent(e, declared)) return;
        const hint = caseVariantOf(e) ? ` (did you mean "${caseVariantOf(e)}"?)` : ' (declare custom events in /events)';
        is.add(pointer(`/interceptors/${i}`, 'hooks'), `hooks unknown event "${e}"${hint}`);
      }),
    );
  });
}
