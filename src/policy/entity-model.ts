// How an MCP message becomes a Cedar request: principal User::"<id>" in Role::"<role>",
// action Action::"<event>", resource by event (Tool, Prompt, Resource, Sampling, Elicitation,
// Server) with attribute `name` (`uri` for Resource), context {arguments, server, sessionId,
// time, roles, tenant}, plus one request per path-like argument with `context.path` (wherever it
// sits: nested, in arrays). See fixtures/config/README.md.
import { setMember, type Json } from '../canonical/index.js';
import type { AuthzRequest, EntityRef } from './types.js';

/** The facts about the caller and session that go into every request (a subset of InterceptorContext). */
export interface RequestFacts {
  principal?: string;
  roles?: string[];
  tenant?: string;
  server?: string;
  sessionId?: string;
  /** Who the principal acts for (delegate role): context.onBehalfOf, only when set. */
  onBehalfOf?: string;
  time: string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A payload is the request params; a whole JSON-RPC message (`params.<key>`) is read too. */
function field(payload: unknown, key: string): unknown {
  if (!isRecord(payload)) return undefined;
  if (payload[key] !== undefined) return payload[key];
  return isRecord(payload.params) ? payload.params[key] : undefined;
}

/** What the message acts on, or why that cannot be told (which the caller turns into a deny). */
export function resourceOf(event: string, payload: unknown, server: string | undefined): { ok: true; resource: EntityRef } | { ok: false; reason: string } {
  const named = (type: string, key: 'name' | 'uri') => {
    const v = field(payload, key);
    return typeof v === 'string' ? { ok: true as const, resource: { type, id: v } } : { ok: false as const, reason: `payload has no ${key} for ${event}` };
  };
  switch (event) {
    case 'tools/call':
      return named('Tool', 'name');
    case 'prompts/get':
      return named('Prompt', 'name');
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      return named('Resource', 'uri');
    case 'completion/complete': {
      // What is being completed: a prompt's argument (ref/prompt) or a resource template's (ref/resource).
      const ref = field(payload, 'ref');
      if (isRecord(ref) && ref.type === 'ref/prompt' && typeof ref.name === 'string') return { ok: true, resource: { type: 'Prompt', id: ref.name } };
      if (isRecord(ref) && ref.type === 'ref/resource' && typeof ref.uri === 'string') return { ok: true, resource: { type: 'Resource', id: ref.uri } };
      return { ok: false, reason: `payload has no ref/prompt name or ref/resource uri for ${event}` };
    }
    case 'sampling/createMessage':
      return { ok: true, resource: { type: 'Sampling', id: server ?? '' } };
    case 'elicitation/create':
      return { ok: true, resource: { type: 'Elicitation', id: server ?? '' } };
    default:
      // Lists and custom events act on the server as a whole; an unresolved server is "".
      return { ok: true, resource: { type: 'Server', id: server ?? '' } };
  }
}

/** Events whose arguments are a call's named arguments: `params.arguments`, an object or absent. */
const CALL_EVENTS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get']);

/**
 * The arguments a policy sees as context.arguments: params.arguments for calls (which must be an
 * object, or absent: no arguments), the params otherwise; every key normalized (normalizeKeys).
 * Or why there are none a policy can judge, which the caller turns into a deny.
 */
export function argumentsOf(event: string, payload: unknown): { ok: true; args: Json } | { ok: false; reason: string } {
  let args: unknown = payload ?? {};
  if (CALL_EVENTS.has(event)) {
    const given = field(payload, 'arguments');
    args = given === undefined ? {} : given;
    // `"arguments": "/etc/passwd"` names no argument a policy can look for: not judged as none.
    if (!isRecord(args)) return { ok: false, reason: `arguments of ${event} are ${args === null ? 'null' : Array.isArray(args) ? 'an array' : typeof args}, not an object` };
  }
  return normalizeKeys(args);
}

// Characters that change a key's bytes but not how it reads: Unicode format characters (zero-width,
// soft hyphen, bidi controls) and control characters. Keys are also put in NFKC, so a fullwidth or
// ligature spelling reads as its plain letters.
const INVISIBLE_IN_KEY = /[\p{Cf}\p{Cc}]/gu;
const PLAIN_KEY = /^[\x20-\x7e]*$/;

/** A key as a policy reads it; ASCII keys (nearly all) are returned as they are. */
export function normalizeKey(key: string): string {
  return PLAIN_KEY.test(key) ? key : key.replace(INVISIBLE_IN_KEY, '').normalize('NFKC');
}

/**
 * Every object key of `value`, at any depth, as a policy reads it (normalizeKey), so that
 * `pa\u200bth` is judged as the `path` it reads as. Two keys of one object that read alike are
 * refused, never merged: which one the far side would take cannot be told. The same value back
 * when no key changes.
 */
export function normalizeKeys(value: unknown): { ok: true; args: Json } | { ok: false; reason: string } {
  let bad: string | undefined;
  // The path to the current value, for the message only (no array per key on every decision).
  const trail: (string | number)[] = [];
  const pointer = () => `/${trail.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
  const walk = (v: unknown): unknown => {
    if (bad !== undefined || v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        trail.push(i);
        const x = walk(v[i]);
        trail.pop();
        if (x !== v[i]) (out ??= v.slice())[i] = x;
      }
      return out ?? v;
    }
    const rec = v as Record<string, unknown>;
    const keys = Object.keys(rec);
    const values: unknown[] = new Array(keys.length);
    let keyChanged = false;
    let valueChanged = false;
    for (let i = 0; i < keys.length; i++) {
      trail.push(keys[i]);
      values[i] = walk(rec[keys[i]]);
      trail.pop();
      if (values[i] !== rec[keys[i]]) valueChanged = true;
      if (!keyChanged && normalizeKey(keys[i]) !== keys[i]) keyChanged = true;
    }
    if (!keyChanged && !valueChanged) return v;
    const out: Record<string, unknown> = {};
    const from = new Map<string, string>();
    for (let i = 0; i < keys.length; i++) {
      const k = keyChanged ? normalizeKey(keys[i]) : keys[i];
      const other = from.get(k);
      if (other !== undefined) {
        bad ??= `argument keys ${JSON.stringify(other)} and ${JSON.stringify(keys[i])} at ${pointer()} read alike (${JSON.stringify(k)})`;
        return v;
      }
      from.set(k, keys[i]);
      setMember(out, k, values[i]);
    }
    return out;
  };
  const out = walk(value);
  return bad !== undefined ? { ok: false, reason: bad } : { ok: true, args: out as Json };
}

/** The events whose arguments are searched for path-like values (each judged as `context.path`). */
export const PATH_CHECKED_EVENTS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get']);

/** Argument names (last word of a camelCase / snake_case / kebab-case key) that name files. */
const PATH_WORDS = new Set([
  'path', 'paths', 'file', 'files', 'filename', 'filenames', 'filepath', 'filepaths', 'dir', 'dirs', 'directory',
  'directories', 'folder', 'folders', 'source', 'sources', 'destination', 'destinations', 'dest', 'cwd',
]);

export function isPathKey(key: string): boolean {
  const words = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(/[\s_.-]+/).filter(Boolean);
  const last = words.at(-1)?.toLowerCase();
  return last !== undefined && PATH_WORDS.has(last);
}

/**
 * Every value of a path-like argument, at any depth (objects, arrays): strings are paths; a
 * path-like argument that is null, a number, a boolean or holds one is not a path, and the message
 * is refused (a policy cannot judge what it cannot see). Sorted, duplicates merged.
 */
export function pathArgumentsOf(args: unknown): { ok: true; paths: string[] } | { ok: false; reason: string } {
  const paths = new Set<string>();
  let bad: string | undefined;
  const pointer = (path: (string | number)[]) => `/${path.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
  const take = (v: unknown, at: (string | number)[]): void => {
    if (bad) return;
    if (typeof v === 'string') paths.add(v);
    else if (Array.isArray(v)) v.forEach((x, i) => take(x, [...at, i]));
    else if (isRecord(v)) {
      const before = paths.size;
      walk(v, at);
      // `{"path": {"toString": "/etc/shadow"}}`: an object where a path belongs must name its paths.
      if (!bad && paths.size === before && !Object.keys(v).some(isPathKey)) bad = `path-like argument ${pointer(at)} is an object without a path-like key, not a path`;
    } else bad = `path-like argument ${pointer(at)} is ${v === null ? 'null' : typeof v}, not a path`;
  };
  const walk = (v: unknown, at: (string | number)[]): void => {
    if (bad) return;
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...at, i]));
    else if (isRecord(v)) {
      for (const k of Object.keys(v)) {
        if (isPathKey(k)) take(v[k], [...at, k]);
        else walk(v[k], [...at, k]);
      }
    }
  };
  walk(args, []);
  return bad ? { ok: false, reason: bad } : { ok: true, paths: [...paths].sort() };
}

/**
 * The Cedar request for (event, resource, arguments) by the caller in `facts`; undefined principal
 * -> undefined. With `path`, the request judges that one path-like argument as `context.path`.
 */
export function buildAuthzRequest(event: string, resource: EntityRef, args: Json, facts: RequestFacts, path?: string): AuthzRequest | undefined {
  if (facts.principal === undefined || facts.principal === '') return undefined;
  const roles = [...new Set(facts.roles ?? [])].sort();
  const context: { [k: string]: Json } = { arguments: args, time: facts.time, roles };
  if (path !== undefined) context.path = path;
  if (facts.server !== undefined) context.server = facts.server;
  if (facts.sessionId !== undefined) context.sessionId = facts.sessionId;
  if (facts.tenant !== undefined) context.tenant = facts.tenant;
  if (facts.onBehalfOf !== undefined) context.onBehalfOf = facts.onBehalfOf;
  return {
    principal: { type: 'User', id: facts.principal },
    action: { type: 'Action', id: event },
    resource,
    resourceAttrs: { [resource.type === 'Resource' ? 'uri' : 'name']: resource.id },
    context,
    principalParents: roles.map((id) => ({ type: 'Role', id })),
  };
}

/** For a list event: the call action each listed item stands for, and the item's resource. */
export const LIST_TO_CALL: Readonly<Record<string, { key: 'tools' | 'prompts' | 'resources'; action: string; type: string; id: 'name' | 'uri' }>> = {
  'tools/list': { key: 'tools', action: 'tools/call', type: 'Tool', id: 'name' },
  'prompts/list': { key: 'prompts', action: 'prompts/get', type: 'Prompt', id: 'name' },
  'resources/list': { key: 'resources', action: 'resources/read', type: 'Resource', id: 'uri' },
};
