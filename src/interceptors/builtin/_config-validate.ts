// Validates a built-in's `config` against its JSON Schema (ajv, 2020-12) at load, so every bad
// field is reported by JSON Pointer before the factory runs. Node only: ajv generates code, which
// the Worker forbids; the Worker's embedded config is checked here at build time instead.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Issue } from '../../errors.js';
import { BUILTIN_CONFIG_SCHEMAS } from './_config-schemas.js';
import type { Json } from '../types.js';

let ajv: Ajv2020 | undefined; // built on first use: importing this module generates no code
const compiled = new Map<string, ValidateFunction>();

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
  const schema = BUILTIN_CONFIG_SCHEMAS[use];
  if (!schema) return [];
  let validate = compiled.get(use);
  if (!validate) {
    // validateSchema off: these are vouch's own schemas (checked against the 2020-12 meta-schema by
    // test/interceptors/builtin/config-schemas-meta.test.ts); compiling the meta-schema cost most of start-up's schema time.
    validate = (ajv ??= new Ajv2020({ allErrors: true, strict: true, validateFormats: false, validateSchema: false, logger: false })).compile(schema);
    compiled.set(use, validate);
  }
  if (validate(config ?? {})) return [];
  const seen = new Set<string>();
  return (validate.errors ?? []).map((e) => issueOf(e, base)).filter((i) => {
    const k = `${i.path}\n${i.message}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
}
