// The client's answer to an elicitation carries only what the request asked for: a field its
// `requestedSchema` does not declare (an `account_number`, a `pin` a form filler added) never
// reaches the server that asked. A guard (guards.ts): found live from the authorized request and
// the answer, recorded, and replayed from the record (the request is another entry's payload).
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

/** The field names the request asked for: its requestedSchema's `properties` (none for a URL-mode request). */
export function declaredFields(request: unknown): string[] {
  const schema = paramsOf(request).requestedSchema;
  return isRec(schema) && isRec(schema.properties) ? Object.keys(schema.properties) : [];
}

/**
 * The guard on an elicitation/create answer. Denies content that is not an object, content with
 * an answer other than accept, and every content key the request did not declare, compared as
 * written (`na\u200bme` and `Name` are not `name`). Values are never recorded, names are.
 */
export function elicitationAnswerGuard(request: unknown, answer: unknown): Guard {
  const declared = declaredFields(request);
  const a = paramsOf(answer);
  const record: Record<string, Json> = { declared: declared.length };
  const content = a.content;
  if (content === undefined) return { name: ELICITATION_GUARD, record: { ...record, fields: 0 } };
  if (!isRec(content)) return { name: ELICITATION_GUARD, record: { ...record, content: Array.isArray(content) ? 'array' : typeof content }, deny: 'elicitation answer content is not an object of the requested fields' };
  const fields = Object.keys(content);
  if (a.action !== 'accept') return { name: ELICITATION_GUARD, record: { ...record, fields: fields.length, action: String(a.action) }, deny: `elicitation answer carries content with action ${JSON.stringify(a.action)}: only an accepted answer carries content` };
  const known = new Set(declared);
  const undeclared = fields.filter((f) => !known.has(f)).sort();
  if (undeclared.length === 0) return { name: ELICITATION_GUARD, record: { ...record, fields: fields.length } };
  const named = undeclared.slice(0, MAX_NAMED);
  return {
    name: ELICITATION_GUARD,
    record: { ...record, fields: fields.length, undeclared: named },
    deny: `elicitation answer carries fields not in the requested schema: ${named.map((f) => JSON.stringify(f)).join(', ')}${undeclared.length > named.length ? `, and ${undeclared.length - named.length} more` : ''}`,
  };
}
