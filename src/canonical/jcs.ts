// RFC 8785 (JCS) canonical bytes. The `canonicalize` package does the serialization; this
// module first refuses what JCS cannot represent (non-finite numbers, lone surrogates,
// non-JSON values), because a silently altered value would hash to a different decision.
import canonicalize from 'canonicalize';
import { InputError } from '../errors.js';
import { utf8 } from './encoding.js';

/** Max nesting accepted anywhere we canonicalize: deeper input is hostile, not data. */
export const MAX_DEPTH = 64;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function assertJson(value: unknown, path: string, depth: number): void {
  if (depth > MAX_DEPTH) throw new InputError('ERR_TOO_DEEP', `nesting deeper than ${MAX_DEPTH}`, [{ path, message: 'too deep' }]);
  switch (typeof value) {
    case 'string':
      if (LONE_SURROGATE.test(value)) throw new InputError('ERR_NOT_CANONICAL', 'string has a lone surrogate', [{ path, message: 'lone surrogate' }]);
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new InputError('ERR_NOT_CANONICAL', 'number JCS cannot represent', [{ path, message: 'not finite' }]);
      return;
    case 'boolean':
      return;
    case 'object':
      if (value === null) return;
      if (Array.isArray(value)) {
        value.forEach((v, i) => assertJson(v, `${path}/${i}`, depth + 1));
        return;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) {
        throw new InputError('ERR_NOT_CANONICAL', 'not a plain JSON object', [{ path, message: 'not plain JSON' }]);
      }
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (LONE_SURROGATE.test(k)) throw new InputError('ERR_NOT_CANONICAL', 'key has a lone surrogate', [{ path, message: 'lone surrogate in key' }]);
        if (v === undefined) continue; // JSON has no undefined: dropped, as JSON.stringify does
        assertJson(v, `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, depth + 1);
      }
      return;
    default:
      throw new InputError('ERR_NOT_CANONICAL', `not a JSON value (${typeof value})`, [{ path, message: 'not JSON' }]);
  }
}

/** The RFC 8785 text of a JSON value. Throws ERR_NOT_CANONICAL / ERR_TOO_DEEP. */
export function canonicalText(value: unknown): string {
  assertJson(value, '', 0);
  const text = canonicalize(value);
  if (text === undefined) throw new InputError('ERR_NOT_CANONICAL', 'value has no JSON form');
  return text;
}

/** The RFC 8785 bytes (UTF-8) of a JSON value. */
export function canonicalBytes(value: unknown): Uint8Array {
  return utf8.encode(canonicalText(value));
}

/** Parse JSON text with the same refusals as canonicalText (depth, lone surrogates). */
export function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new InputError('ERR_JSON_PARSE', 'malformed JSON', [], { cause });
  }
  assertJson(value, '', 0);
  return value;
}
