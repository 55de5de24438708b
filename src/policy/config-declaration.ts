// One `interceptors[i]` entry of the config: a builtin (`use`) or a remote interceptor server
// (`remote`), plus overrides, normalized to hooks (flat events/phase accepted, per the SEP-1763 seed).
import { parseCompat, isKnownEvent, type Hook, type InterceptorDescriptor, type Phase, type PriorityHint } from '../protocol/index.js';
import { Issues, isObj, pointer } from './_issues.js';
import { REMOTE_ERAS, type DeclarationOverrides, type InterceptorDeclaration, type RemoteDeclaration } from './config-types.js';

/** Custom events are `namespace/operation` (and must be declared in the config's `events`: config.ts). */
export const CUSTOM_EVENT = /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+$/;
/** Instance names appear in results and entries; printable, no spaces. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;
const OVERRIDE_KEYS = ['events', 'phase', 'hooks', 'mode', 'failOpen', 'priorityHint', 'description', 'optional', 'authorizes', 'compat'] as const;

function parseEvents(is: Issues, v: unknown, path: string): string[] | undefined {
  const events = is.strArray(v, path, { nonEmpty: true });
  events?.forEach((e, i) => {
    if (e !== '*' && !isKnownEvent(e) && !CUSTOM_EVENT.test(e)) is.add(pointer(path, i), `unknown event "${e}" (custom events are namespace/operation)`);
  });
  return events;
}

function parseHooks(is: Issues, v: unknown, path: string): Hook[] | undefined {
  if (!Array.isArray(v) || v.length === 0) return void is.add(path, 'must be a non-empty array of {events, phase}');
  const hooks: Hook[] = [];
  v.forEach((h, i) => {
    const p = pointer(path, i);
    const o = is.obj(h, p, ['events', 'phase']);
    if (!o) return;
    const events = parseEvents(is, o.events, pointer(p, 'events'));
    const phase = is.oneOf<Phase>(o.phase, pointer(p, 'phase'), ['request', 'response']);
    if (events && phase) hooks.push({ events, phase });
  });
  return hooks.length === v.length ? hooks : undefined;
}

function parsePriority(is: Issues, v: unknown, path: string): PriorityHint | undefined {
  if (typeof v === 'number') return is.num(v, path);
  const o = is.obj(v, path, ['request', 'response']);
  if (!o) return undefined;
  const out: { request?: number; response?: number } = {};
  if (o.request !== undefined) out.request = is.num(o.request, pointer(path, 'request'));
  if (o.response !== undefined) out.response = is.num(o.response, pointer(path, 'response'));
  return out;
}

function parseOverrides(is: Issues, o: Record<string, unknown>, path: string): DeclarationOverrides {
  const out: DeclarationOverrides = {};
  if (o.hooks !== undefined) {
    if (o.events !== undefined || o.phase !== undefined) is.add(pointer(path, 'hooks'), 'give either hooks or events/phase, not both');
    out.hooks = parseHooks(is, o.hooks, pointer(path, 'hooks'));
  } else if (o.events !== undefined || o.phase !== undefined) {
    const events = o.events === undefined ? void is.add(pointer(path, 'events'), 'required with phase') : parseEvents(is, o.events, pointer(path, 'events'));
    const phase = o.phase === undefined ? void is.add(pointer(path, 'phase'), 'required with events') : is.oneOf(o.phase, pointer(path, 'phase'), ['request', 'response', 'both'] as const);
    if (events && phase) out.hooks = phase === 'both' ? [{ events, phase: 'request' }, { events, phase: 'response' }] : [{ events, phase }];
  }
  if (o.mode !== undefined) {
    const m = is.oneOf(o.mode, pointer(path, 'mode'), ['active', 'audit', 'enforce'] as const);
    if (m) out.mode = m === 'enforce' ? 'active' : m; // DESIGN 3: enforce is a synonym on input only
  }
  if (o.failOpen !== undefined) out.failOpen = is.bool(o.failOpen, pointer(path, 'failOpen'));
  if (o.priorityHint !== undefined) out.priorityHint = parsePriority(is, o.priorityHint, pointer(path, 'priorityHint'));
  if (o.description !== undefined) out.description = is.str(o.description, pointer(path, 'description'));
  if (o.optional !== undefined) out.optional = is.bool(o.optional, pointer(path, 'optional'));
  if (o.authorizes !== undefined) out.authorizes = is.bool(o.authorizes, pointer(path, 'authorizes'));
  if (o.compat !== undefined) {
    const compat = parseCompat(o.compat, (field, message) => is.add(`${path}${field}`, message));
    if (compat) out.compat = compat;
  }
  return out;
}

function parseRemote(is: Issues, v: unknown, path: string): RemoteDeclaration['remote'] | undefined {
  const o = is.obj(v, path, ['url', 'names', 'era']);
  if (!o) return undefined;
  const url = is.str(o.url, pointer(path, 'url'), { nonEmpty: true });
  let ok = url !== undefined;
  if (url !== undefined && !/^https?:\/\/[^/]/i.test(url)) {
    is.add(pointer(path, 'url'), 'must be an http:// or https:// URL');
    ok = false;
  }
  const names = o.names === undefined ? undefined : is.strArray(o.names, pointer(path, 'names'), { nonEmpty: true });
  if (o.names !== undefined && names === undefined) ok = false;
  const era = o.era === undefined ? undefined : is.oneOf(o.era, pointer(path, 'era'), REMOTE_ERAS);
  if (o.era !== undefined && era === undefined) ok = false;
  return ok && url ? { url, ...(names && { names }), ...(era && { era }) } : undefined;
}

/** Parse `interceptors[i]`; problems go to `is`. Returns undefined when anything in it is wrong. */
export function parseDeclaration(is: Issues, v: unknown, path: string): InterceptorDeclaration | undefined {
  const before = is.list.length;
  const o = is.obj(v, path, ['name', 'use', 'remote', 'config', ...OVERRIDE_KEYS]);
  if (!o) return undefined;
  const name = is.str(o.name, pointer(path, 'name'), { nonEmpty: true });
  if (name !== undefined && !NAME.test(name)) is.add(pointer(path, 'name'), 'must start with a letter or digit and hold only letters, digits and ._:/- (at most 128)');
  const overrides = parseOverrides(is, o, path);
  let decl: InterceptorDeclaration | undefined;
  if (o.use !== undefined && o.remote !== undefined) {
    is.add(path, 'give either use (a builtin) or remote (an interceptor server), not both');
  } else if (o.use !== undefined) {
    const use = is.str(o.use, pointer(path, 'use'), { nonEmpty: true });
    const config = o.config === undefined ? undefined : is.json(o.config, pointer(path, 'config'));
    if (use !== undefined && name !== undefined) decl = { name, use, ...(config !== undefined && { config }), ...overrides };
  } else if (o.remote !== undefined) {
    if (o.config !== undefined) is.add(pointer(path, 'config'), 'config is for builtins (use); a remote server is configured on its side');
    const remote = parseRemote(is, o.remote, pointer(path, 'remote'));
    if (remote && name !== undefined) decl = { name, remote, ...overrides };
  } else {
    is.add(path, 'needs use (a builtin name) or remote ({url})');
  }
  return is.list.length === before && decl && isObj(decl) ? decl : undefined;
}

/** The overrides in the shape a builtin factory takes: wire defaults (active, failOpen false) omitted. */
export function descriptorOverridesOf(d: InterceptorDeclaration): Partial<InterceptorDescriptor> {
  const out: Partial<InterceptorDescriptor> = {};
  if (d.hooks) out.hooks = d.hooks.map((h) => ({ events: [...h.events], phase: h.phase }));
  if (d.mode === 'audit') out.mode = 'audit';
  if (d.failOpen === true) out.failOpen = true;
  if (d.priorityHint !== undefined) out.priorityHint = d.priorityHint;
  if (d.description !== undefined) out.description = d.description;
  if (d.compat !== undefined) out.compat = { ...d.compat };
  return out;
}
