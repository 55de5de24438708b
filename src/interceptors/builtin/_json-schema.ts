// JSON Schema validation of tool arguments with @cfworker/json-schema, an interpreter (no code
// generation), so the same validator runs on Node and in workerd and a Worker-made log replays
// with the same messages on Node. Draft by `$schema`: 2020-12 when absent (the MCP default).
import { Validator, type OutputUnit, type Schema, type SchemaDraft } from '@cfworker/json-schema';
import { digestJson } from '../../canonical/index.js';
import type { Json, Message } from '../types.js';
import { schemaShapeError } from './_json-schema-shape.js';

/** Every error of one validation, as messages whose paths are JSON Pointers under `base`. */
export type SchemaCheck = (instance: unknown, base: string) => Message[];

const MAX_CACHED = 256;
const cache = new Map<string, { validate: SchemaCheck } | { error: string }>();

function draftOf(schema: Record<string, Json>): SchemaDraft {
  const draft = typeof schema.$schema === 'string' ? schema.$schema : undefined;
  if (draft === undefined || draft.includes('2020-12')) return '2020-12';
  if (draft.includes('2019-09')) return '2019-09';
  if (draft.includes('draft-04')) return '4';
  return '7'; // draft-06/07 and unknown URIs: validated as draft-07
}

/** The compiled check of a schema (cached by digest), or why it cannot be used. */
export function compileSchema(schema: Json): { validate: SchemaCheck } | { error: string } {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { error: 'inputSchema is not an object' };
  const key = digestJson(schema);
  const hit = cache.get(key);
  if (hit) return hit;
  let entry: { validate: SchemaCheck } | { error: string };
  try {
    const shape = schemaShapeError(schema);
    if (shape) throw new Error(shape);
    const validator = new Validator(structuredClone(schema) as Schema, draftOf(schema), false);
    entry = { validate: (instance, base) => messagesOf(validator.validate(instance).errors, base) };
  } catch (e) {
    entry = { error: e instanceof Error ? e.message : String(e) };
  }
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(key, entry);
  return entry;
}

// Keywords whose error only says a subschema failed: the subschema's own errors say where and why.
const CONTAINERS = new Set(['properties', 'patternProperties', 'items', 'prefixItems', 'additionalItems', 'unevaluatedItems', 'allOf', '$ref', '$recursiveRef', 'dependentSchemas', 'dependencies', 'then', 'else', 'propertyNames']);

function token(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

function pointerOf(location: string): string {
  const p = location.startsWith('#') ? location.slice(1) : location;
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
}

/** One leaf error as text (ajv's wording for the common keywords) and the path it is about. */
function describe(u: OutputUnit, at: string): { path: string; text: string } {
  const quoted = (re: RegExp) => re.exec(u.error)?.[1];
  switch (u.keyword) {
    case 'type': {
      const expected = /Expected (".*")\.$/.exec(u.error)?.[1];
      return { path: at, text: `must be ${expected ? expected.replace(/"/g, '').split(', ').join(',') : 'of another type'}` };
    }
    case 'required': {
      const key = quoted(/required property "(.*)"\.$/) ?? '';
      return { path: `${at}/${token(key)}`, text: `must have required property '${key}'` };
    }
    case 'enum':
      return { path: at, text: `must be equal to one of the allowed values: ${/any of (.*)\.$/.exec(u.error)?.[1] ?? '[]'}` };
    case 'const':
      return { path: at, text: 'must be equal to constant' };
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const key = quoted(/^Property "(.*)" does not match/) ?? '';
      return { path: `${at}/${token(key)}`, text: u.keyword === 'additionalProperties' ? 'must NOT have additional properties' : 'must NOT have unevaluated properties' };
    }
    case 'anyOf':
      return { path: at, text: 'must match a schema in anyOf' };
    case 'oneOf':
      return { path: at, text: 'must match exactly one schema in oneOf' };
    case 'not':
      return { path: at, text: 'must NOT be valid' };
    case 'false':
      return { path: at, text: 'boolean schema is false' };
    default:
      return { path: at, text: u.error.replace(/\.$/, '') };
  }
}

/** The leaf errors as messages, deduplicated, in the validator's (schema) order; formats are not checked. */
export function messagesOf(errors: OutputUnit[], base: string): Message[] {
  const out: Message[] = [];
  const seen = new Set<string>();
  const paths = new Set<string>();
  for (const u of errors) {
    if (CONTAINERS.has(u.keyword) || u.keyword === 'format') continue;
    const { path, text } = describe(u, pointerOf(u.instanceLocation));
    const full = base + path;
    // A `false` subschema under additionalProperties: the property is already reported.
    if (u.keyword === 'false' && paths.has(full)) continue;
    const message = `${full} ${text}`;
    if (seen.has(message)) continue;
    seen.add(message);
    paths.add(full);
    out.push({ message, severity: 'error', path: full });
  }
  return out;
}
