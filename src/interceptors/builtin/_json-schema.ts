// JSON Schema validation of tool arguments with ajv, compiled once per schema digest (bounded
// cache). Draft by `$schema`: 2020-12 when absent (the MCP default), 2019-09, else draft-07.
// Note: ajv generates code (new Function), which Cloudflare Workers forbid; see the report.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { digestJson } from '../../canonical/index.js';
import type { Json, Message } from '../types.js';

type AnyAjv = Ajv | Ajv2019 | Ajv2020;

// allErrors: report every bad field; addUsedSchema false: two servers' schemas with the same
// $id must not collide; formats are not checked (no format plugin: same answer everywhere).
const OPTIONS = { allErrors: true, strict: false, addUsedSchema: false, validateFormats: false, logger: false } as const;
const engines: { d2020?: AnyAjv; d2019?: AnyAjv; d07?: AnyAjv } = {};
const MAX_CACHED = 256;
const cache = new Map<string, { validate: ValidateFunction; ajv: AnyAjv; schema: object } | { error: string }>();

function engineFor(schema: Record<string, Json>): { ajv: AnyAjv; schema: Record<string, Json> } {
  const draft = typeof schema.$schema === 'string' ? schema.$schema : undefined;
  if (draft === undefined || draft.includes('2020-12')) return { ajv: (engines.d2020 ??= new Ajv2020(OPTIONS)), schema };
  if (draft.includes('2019-09')) return { ajv: (engines.d2019 ??= new Ajv2019(OPTIONS)), schema };
  // draft-07 and older: validated as draft-07 (the old drafts differ little for argument objects).
  const { $schema: _ignored, ...rest } = schema;
  return { ajv: (engines.d07 ??= new Ajv(OPTIONS)), schema: rest };
}

/** The compiled validator of a schema, or why it does not compile. */
export function compileSchema(schema: Json): { validate: ValidateFunction } | { error: string } {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { error: 'inputSchema is not an object' };
  const key = digestJson(schema);
  const hit = cache.get(key);
  if (hit) return hit;
  let entry: { validate: ValidateFunction; ajv: AnyAjv; schema: object } | { error: string };
  try {
    const { ajv, schema: s } = engineFor(schema);
    entry = { validate: ajv.compile(s), ajv, schema: s };
  } catch (e) {
    entry = { error: e instanceof Error ? e.message : String(e) };
  }
  if (cache.size >= MAX_CACHED) {
    const [oldKey, old] = cache.entries().next().value as [string, typeof entry];
    cache.delete(oldKey);
    if ('ajv' in old) old.ajv.removeSchema(old.schema);
  }
  cache.set(key, entry);
  return entry;
}

function token(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** One ajv error as a message whose path is a JSON Pointer into the payload (under `base`). */
export function messageOf(err: ErrorObject, base: string): Message {
  let path = base + err.instancePath;
  const p = err.params as Record<string, unknown>;
  if (err.keyword === 'required' && typeof p.missingProperty === 'string') path += `/${token(p.missingProperty)}`;
  if (err.keyword === 'additionalProperties' && typeof p.additionalProperty === 'string') path += `/${token(p.additionalProperty)}`;
  const detail = err.keyword === 'enum' && Array.isArray(p.allowedValues) ? `: ${JSON.stringify(p.allowedValues)}` : '';
  return { message: `${path} ${err.message ?? 'is invalid'}${detail}`, severity: 'error', path };
}
