// The client's answer to an elicitation carries only what the request asked for: no field its
// `requestedSchema` does not declare (an `account_number`, a `pin`), no value of another type (a
// list in a string field), no member beside action and content, nothing in `_meta`. A guard
// (guards.ts): found live from the authorized request and the answer, recorded, and replayed from
// the record (the request is another entry's payload); the gateway forwards the answer rebuilt.
import type { Json } from '../canonical/index.js';
import type { Guard } from './guards.js';

/** The guard's name in the entry's guard state. */
export const ELICITATION_GUARD = 'elicitation';
/** At most this many field names are recorded and quoted (the count is always there). */
const MAX_NAMED = 10;

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The request's params: the payload itself, or a whole JSON-RPC message's `params`. */
const paramsOf = (p: unknown): Rec => (isRec(p) && typeof p.jsonrpc === 'string' && isRec(p.params) ? p.params : isRec(p) ? p : {});

/** The request's requestedSchema properties (none for a URL-mode request). */
function declaredSchemas(request: unknown): Rec {
  const schema = paramsOf(request).requestedSchema;
  return isRec(schema) && isRec(schema.properties) ? schema.properties : {};
}

/** The field names the request asked for: its requestedSchema's `properties` (none for a URL-mode request). */
export function declaredFields(request: unknown): string[] {
  return Object.keys(declaredSchemas(request));
}

/** The answer itself: the payload, or a whole JSON-RPC message's `result`. */
const answerOf = (p: unknown): unknown => (isRec(p) && typeof p.jsonrpc === 'string' && isRec(p.result) ? p.result : p);

/** What an ElicitResult may hold (MCP 2025-11-25); `_meta` only empty: it is never forwarded. */
const MEMBERS = new Set(['action', 'content', '_meta']);
const ACTIONS = new Set(['accept', 'decline', 'cancel']);

const stringsOf = (list: unknown, key?: string): string[] | undefined =>
  Array.isArray(list) ? list.map((x) => (key === undefined ? x : isRec(x) ? x[key] : undefined)).filter((x): x is string => typeof x === 'string') : undefined;

/**
 * Whether `value` is what the property schema `p` asks for. Elicitation schemas are flat
 * primitives: a string (one of its `enum` or `oneOf` consts, if listed), a number, an integer, a
 * boolean, or an array of strings from a multi-select's `items` enum. Anything else (an array in a
 * string field, an object, a schema with no such type) is not: the answer carries it nowhere.
 */
function fits(p: unknown, value: unknown): boolean {
  if (!isRec(p)) return false;
  switch (p.type) {
    case 'string': {
      if (typeof value !== 'string') return false;
      const allowed = stringsOf(p.enum) ?? stringsOf(p.oneOf, 'const');
      return allowed === undefined || allowed.includes(value);
    }
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array': {
      const items = isRec(p.items) ? p.items : {};
      const allowed = stringsOf(items.enum) ?? stringsOf(items.anyOf, 'const');
      return allowed !== undefined && Array.isArray(value) && value.every((v) => typeof v === 'string' && allowed.includes(v));
    }
    default:
      return false;
  }
}

const names = (list: string[]): string => {
  const named = list.slice(0, MAX_NAMED);
  return `${named.map((f) => JSON.stringify(f)).join(', ')}${list.length > named.length ? `, and ${list.length - named.length} more` : ''}`;
};

/**
 * The guard on an elicitation/create answer. The answer holds `action` (accept, decline or
 * cancel), `content` only on accept, and an empty `_meta` at most: any other member, a non-empty
 * `_meta`, content that is not an object, a content key the request did not declare (compared as
 * written: `na\u200bme` and `Name` are not `name`) or a value not of its declared type is a deny.
 * A filler adds nothing the request did not ask for, in no place. Values are never recorded, names are.
 */
export function elicitationAnswerGuard(request: unknown, answer: unknown): Guard {
  const declared = declaredSchemas(request);
  const record: Record<string, Json> = { declared: Object.keys(declared).length };
  const deny = (extra: Record<string, Json>, reason: string): Guard => ({ name: ELICITATION_GUARD, record: { ...record, ...extra }, deny: reason });
  const a = answerOf(answer);
  if (!isRec(a)) return deny({ answer: Array.isArray(a) ? 'array' : a === null ? 'null' : typeof a }, 'elicitation answer is not an object with an action');
  const members = Object.keys(a).filter((m) => !MEMBERS.has(m)).sort();
  if (members.length) return deny({ members: members.slice(0, MAX_NAMED) }, `elicitation answer carries members an answer does not have: ${names(members)} (only action, content and an empty _meta)`);
  if (a._meta !== undefined && !(isRec(a._meta) && Object.keys(a._meta).length === 0)) return deny({ meta: true }, 'elicitation answer carries _meta: the upstream gets only the action and the requested fields');
  if (typeof a.action !== 'string' || !ACTIONS.has(a.action)) return deny({ action: typeof a.action === 'string' ? 'other' : typeof a.action }, 'elicitation answer has no action accept, decline or cancel');
  const content = a.content;
  if (content === undefined) return { name: ELICITATION_GUARD, record: { ...record, fields: 0 } };
  if (!isRec(content)) return deny({ content: Array.isArray(content) ? 'array' : content === null ? 'null' : typeof content }, 'elicitation answer content is not an object of the requested fields');
  const fields = Object.keys(content);
  if (a.action !== 'accept') return deny({ fields: fields.length, action: a.action }, `elicitation answer carries content with action ${JSON.stringify(a.action)}: only an accepted answer carries content`);
  const undeclared = fields.filter((f) => !Object.hasOwn(declared, f)).sort();
  if (undeclared.length) return deny({ fields: fields.length, undeclared: undeclared.slice(0, MAX_NAMED) }, `elicitation answer carries fields not in the requested schema: ${names(undeclared)}`);
  const mistyped = fields.filter((f) => !fits(declared[f], content[f])).sort();
  if (mistyped.length) return deny({ fields: fields.length, mistyped: mistyped.slice(0, MAX_NAMED) }, `elicitation answer has values not of the type the requested schema declares: ${names(mistyped)}`);
  return { name: ELICITATION_GUARD, record: { ...record, fields: fields.length } };
}

/**
 * The answer as forwarded: rebuilt from the allow-list (`action`, and `content` on accept), never
 * the object the filler sent, so a member the guard did not name cannot ride along. Call it on an
 * answer elicitationAnswerGuard allowed.
 */
export function keptElicitationAnswer(answer: unknown): Record<string, unknown> {
  const a = answerOf(answer) as Rec;
  return a.action === 'accept' && isRec(a.content) ? { action: a.action, content: { ...a.content } } : { action: a.action };
}
