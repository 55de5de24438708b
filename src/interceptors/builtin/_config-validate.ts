// Validates a built-in's `config` against its JSON Schema (2020-12) at load, so every bad field is
// reported by JSON Pointer before the factory runs. The validators are ajv's, compiled ahead of
// time (scripts/build-config-validators.ts) into _config-validators.generated.ts: no schema is
// compiled and no code generated at run time, which kept a quarter of a second off every start.
import type { ErrorObject } from 'ajv';
import type { Issue } from '../../errors.js';
import { CONFIG_VALIDATORS } from './_config-validators.generated.js';
import type { Json } from '../types.js';

interface Validate {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}
const VALIDATORS: Readonly<Record<string, Validate>> = CONFIG_VALIDATORS;

function token(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

function issueOf(err: ErrorObject, base: string): Issue {
  let path = base + err.instancePath;
  const p = err.params as Record<string, unknown>;
  if (err.keyword === 'required' && typeof p.missingProperty === 'string') path += `/${token(p.missingProperty)}`;
  if (err.keyword === 'additionalProperties' && typeof p.additionalProperty === 'string') {
    return { path: `${path}/${token(p.additionalProperty)}`, message: 'unknown option' };
  }
  const detail = err.keyword === 'enum' && Array.isArray(p.allowedValues) ? ` (allowed: ${p.allowedValues.join(', ')})` : '';
  return { path, message: `${err.message ?? 'is invalid'}${detail}` };
}

/**
 * The problems of `config` for built-in `use`, paths under `base` (e.g. /interceptors/2/config).
 * An absent or null config is checked as `{}` (what the parsers take it for). An unknown
 * built-in has no schema here: activation reports it by name.
 */
export function builtinConfigIssues(use: string, config: Json | undefined, base: string): Issue[] {
  // The schemas are vouch's own (checked against the 2020-12 meta-schema by
  // test/interceptors/builtin/config-schemas-meta.test.ts); a `use` named like an Object method is no built-in.
  const validate = Object.hasOwn(VALIDATORS, use) ? VALIDATORS[use] : undefined;
  if (!validate) return [];
  if (validate(config ?? {})) return [];
  const seen = new Set<string>();
  return (validate.errors ?? []).map((e) => issueOf(e, base)).filter((i) => {
    const k = `${i.path}\n${i.message}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
}
