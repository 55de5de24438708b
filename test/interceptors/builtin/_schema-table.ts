// The schema-guard verdict table shared by Node (schema-table.test.ts) and workerd
// (test/workers/workerd/schema-table.spec.ts): the same schema and arguments must give the same
// verdict and messages in both runtimes, so a Worker-made log replays to `match` on Node.
import type { Json } from '../../../src/interceptors/types.js';

export interface SchemaCase {
  name: string;
  schema: Json;
  args: Json;
  /** The messages expected, [] for a pass; a string: the schema is refused (does not compile). */
  expect: string[] | string;
}

const obj = (properties: Record<string, Json>, extra: Record<string, Json> = {}): Json => ({ type: 'object', properties, ...extra });

export const SCHEMA_CASES: SchemaCase[] = [
  { name: 'pass', schema: obj({ text: { type: 'string' } }, { required: ['text'] }), args: { text: 'hi' }, expect: [] },
  { name: 'type', schema: obj({ n: { type: 'number' } }), args: { n: 'x' }, expect: ['/arguments/n must be number'] },
  { name: 'type list', schema: obj({ n: { type: ['number', 'null'] } }), args: { n: 'x' }, expect: ['/arguments/n must be number,null'] },
  { name: 'integer', schema: obj({ n: { type: 'integer' } }), args: { n: 1.5 }, expect: ['/arguments/n must be integer'] },
  { name: 'required', schema: obj({ a: {} }, { required: ['a', 'b'] }), args: { a: 1 }, expect: ["/arguments/b must have required property 'b'"] },
  { name: 'enum', schema: obj({ e: { enum: ['x', 'y'] } }), args: { e: 'z' }, expect: ['/arguments/e must be equal to one of the allowed values: ["x","y"]'] },
  { name: 'const', schema: obj({ c: { const: 1 } }), args: { c: 2 }, expect: ['/arguments/c must be equal to constant'] },
  { name: 'additionalProperties', schema: obj({ a: {} }, { additionalProperties: false }), args: { a: 1, b: 2 }, expect: ['/arguments/b must NOT have additional properties'] },
  { name: 'bounds', schema: obj({ n: { minimum: 1, maximum: 3 }, s: { minLength: 2, maxLength: 3 } }), args: { n: 5, s: 'a' }, expect: ['/arguments/n 5 is greater than 3', '/arguments/s String is too short (1 < 2)'] },
  { name: 'pattern', schema: obj({ p: { type: 'string', pattern: '^[a-z]+$' } }), args: { p: 'A1' }, expect: ['/arguments/p String does not match pattern'] },
  { name: 'array items', schema: obj({ l: { type: 'array', items: { type: 'string' }, minItems: 1, uniqueItems: true } }), args: { l: ['a', 'a', 3] }, expect: ['/arguments/l/2 must be string', '/arguments/l Duplicate items at indexes 0 and 1'] },
  { name: 'prefixItems (2020-12 default)', schema: obj({ p: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'string' }] } }), args: { p: ['a', 1] }, expect: ['/arguments/p/0 must be number', '/arguments/p/1 must be string'] },
  { name: 'anyOf', schema: obj({ v: { anyOf: [{ type: 'string' }, { type: 'number' }] } }), args: { v: true }, expect: ['/arguments/v must match a schema in anyOf', '/arguments/v must be string', '/arguments/v must be number'] },
  { name: 'oneOf', schema: obj({ v: { oneOf: [{ type: 'number' }, { type: 'integer' }] } }), args: { v: 1 }, expect: ['/arguments/v must match exactly one schema in oneOf'] },
  { name: 'not', schema: obj({ v: { not: { type: 'string' } } }), args: { v: 's' }, expect: ['/arguments/v must NOT be valid'] },
  { name: '$ref into $defs', schema: { $defs: { pos: { type: 'integer', minimum: 0 } }, type: 'object', properties: { n: { $ref: '#/$defs/pos' } } }, args: { n: -1 }, expect: ['/arguments/n -1 is less than 0'] },
  { name: 'nested object', schema: obj({ o: obj({ deep: { type: 'boolean' } }, { required: ['deep'] }) }), args: { o: { deep: 'no' } }, expect: ['/arguments/o/deep must be boolean'] },
  { name: 'key with a slash', schema: obj({ 'a/b': { type: 'string' } }), args: { 'a/b': 1 }, expect: ['/arguments/a~1b must be string'] },
  { name: 'formats are not checked', schema: obj({ d: { type: 'string', format: 'date-time' } }), args: { d: 'not a date' }, expect: [] },
  { name: 'draft-07 items array', schema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { t: { type: 'array', items: [{ type: 'number' }] } } }, args: { t: ['x'] }, expect: ['/arguments/t/0 must be number'] },
  { name: 'draft-04', schema: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object', properties: { n: { type: 'number', maximum: 3, exclusiveMaximum: true } } }, args: { n: 3 }, expect: ['/arguments/n 3 is greater than or equal to  3'] },
  { name: 'unknown type: refused', schema: obj({ a: { type: 'not-a-type' } }), args: { a: 1 }, expect: 'does not compile' },
  { name: 'bad pattern: refused', schema: obj({ a: { type: 'string', pattern: '(' } }), args: { a: 'x' }, expect: 'does not compile' },
];
