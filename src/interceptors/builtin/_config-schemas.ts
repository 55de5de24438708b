// The declaration extras every built-in lists in interceptors/list (SEP-1763 seed): its version,
// its protocol range and a JSON Schema (2020-12) of its `config`, matching what its parser accepts.
// The parsers still run after the schema (they check what a schema cannot, e.g. root URIs).
import { PII_KINDS } from './_pii-patterns.js';
import { SECRET_KINDS } from './_patterns.js';
import { RATE_KEY_PARTS } from './rate-limit.js';
import { CONTEXT_VALUES } from './sampling-guard.js';
import { UNKNOWN_HANDLING } from './schema-guard.js';
import { FIELD_CATEGORIES } from './sensitive-field-guard.js';
import type { Compat, Json } from '../types.js';

/** The built-ins ship with vouch: their version is vouch's (package.json). */
export const BUILTIN_VERSION = '0.1.0';
/** The first MCP protocol version (the one that defines every event the built-ins hook). */
export const BUILTIN_COMPAT: Compat = Object.freeze({ minProtocol: '2024-11-05' });

const DRAFT = 'https://json-schema.org/draft/2020-12/schema';
type Schema = { [k: string]: Json };

function objectSchema(properties: Record<string, Schema>, required: string[] = []): Schema {
  const s: Schema = { $schema: DRAFT, type: 'object', properties, additionalProperties: false };
  if (required.length) s.required = required;
  return s;
}

const positiveInt = (maximum = Number.MAX_SAFE_INTEGER): Schema => ({ type: 'integer', minimum: 1, maximum });
const nonEmptyStrings: Schema = { type: 'array', items: { type: 'string', minLength: 1 } };
const enumList = (values: readonly string[]): Schema => ({ type: 'array', minItems: 1, items: { enum: [...values] } });
const noOptions = (): Schema => objectSchema({});

const modelGuard = (extra: Record<string, Schema>): Schema =>
  objectSchema({
    maxTokens: positiveInt(),
    models: { ...nonEmptyStrings, description: 'allowed model names; `prefix*` allows a family' },
    maxMessages: positiveInt(),
    ...extra,
  });

/** The JSON Schema of each built-in's `config`, by the name a config's `use` gives it. */
export const BUILTIN_CONFIG_SCHEMAS: Readonly<Record<string, Schema>> = Object.freeze({
  'pii-redactor': objectSchema({ kinds: enumList(PII_KINDS) }),
  'secret-redactor': objectSchema({ kinds: enumList(SECRET_KINDS) }),
  'secretless-redactor': objectSchema({ kinds: enumList(SECRET_KINDS) }),
  'cross-boundary-guard': noOptions(),
  'sensitive-field-guard': objectSchema({ categories: enumList(FIELD_CATEGORIES), allow: nonEmptyStrings }),
  'sampling-guard': modelGuard({ includeContext: enumList(CONTEXT_VALUES) }),
  'llm-guard': modelGuard({ denySensitive: { type: 'boolean' } }),
  'roots-guard': objectSchema({ allow: { ...nonEmptyStrings, description: 'allowed root URIs (absolute, no query or fragment, not a whole disk)' } }),
  'rate-limit': objectSchema({ limit: positiveInt(), windowMs: positiveInt(366 * 24 * 3600 * 1000), key: enumList(RATE_KEY_PARTS) }, ['limit']),
  'audit-observer': noOptions(),
  'provenance-enricher': noOptions(),
  'claims-enricher': objectSchema({ evidence: { type: 'object', description: 'the evidence document: {version: 1, facts: [...]} (docs/enrichers-claims.md)' } }, ['evidence']),
  'cedar-policy': noOptions(),
  'discovery-filter': noOptions(),
  'schema-guard': objectSchema({ unknownTool: { enum: [...UNKNOWN_HANDLING] }, closedTools: { ...nonEmptyStrings, description: 'tools that must be listed and whose arguments must all be declared in their inputSchema' } }),
});
