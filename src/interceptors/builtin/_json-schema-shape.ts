// A structural check of a tool's inputSchema before it is used: the interpreter validator
// (_json-schema.ts) does not check schemas, so a malformed one (unknown type, bad pattern) would
// be applied half-way. Here it is refused as "does not compile", as ajv did, with the same
// answer on Node and Workers (no code generation: RegExp only).
import type { Json } from '../types.js';

const TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);
const SCHEMA_KEYS = ['not', 'if', 'then', 'else', 'contains', 'additionalProperties', 'unevaluatedProperties', 'propertyNames', 'additionalItems', 'unevaluatedItems'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const MAX_DEPTH = 64;

type Rec = Record<string, Json>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

function regexError(p: unknown, at: string): string | undefined {
  if (typeof p !== 'string') return `${at} must be a string`;
  try {
    new RegExp(p, 'u');
    return undefined;
  } catch {
    return `${at} is not a valid regular expression`;
  }
}

/** Why this schema cannot be used, or undefined. */
export function schemaShapeError(schema: Json, at = '#', depth = 0): string | undefined {
  if (typeof schema === 'boolean') return undefined;
  if (!isRec(schema)) return `${at} must be an object or a boolean`;
  if (depth > MAX_DEPTH) return `${at} nests too deeply`;
  const t = schema.type;
  if (t !== undefined) {
    const list = Array.isArray(t) ? t : [t];
    if (list.length === 0 || list.some((x) => typeof x !== 'string' || !TYPES.has(x))) return `${at}/type must be a JSON Schema type (${[...TYPES].join(', ')})`;
  }
  if (schema.required !== undefined && (!Array.isArray(schema.required) || schema.required.some((x) => typeof x !== 'string'))) return `${at}/required must be an array of strings`;
  if (schema.enum !== undefined && !Array.isArray(schema.enum)) return `${at}/enum must be an array`;
  if (schema.pattern !== undefined) {
    const e = regexError(schema.pattern, `${at}/pattern`);
    if (e) return e;
  }
  for (const k of SCHEMA_KEYS) {
    if (schema[k] === undefined) continue;
    const e = schemaShapeError(schema[k], `${at}/${k}`, depth + 1);
    if (e) return e;
  }
  if (schema.items !== undefined) {
    const items = schema.items;
    const list = Array.isArray(items) ? items : [items];
    for (const [i, s] of list.entries()) {
      const e = schemaShapeError(s, Array.isArray(items) ? `${at}/items/${i}` : `${at}/items`, depth + 1);
      if (e) return e;
    }
  }
  for (const k of SCHEMA_LISTS) {
    const v = schema[k];
    if (v === undefined) continue;
    if (!Array.isArray(v)) return `${at}/${k} must be an array of schemas`;
    for (const [i, s] of v.entries()) {
      const e = schemaShapeError(s, `${at}/${k}/${i}`, depth + 1);
      if (e) return e;
    }
  }
  for (const k of SCHEMA_MAPS) {
    const v = schema[k];
    if (v === undefined) continue;
    if (!isRec(v)) return `${at}/${k} must be an object`;
    for (const [name, s] of Object.entries(v)) {
      if (k === 'patternProperties') {
        const e = regexError(name, `${at}/patternProperties/${name}`);
        if (e) return e;
      }
      const e = schemaShapeError(s, `${at}/${k}/${name}`, depth + 1);
      if (e) return e;
    }
  }
  return undefined;
}
