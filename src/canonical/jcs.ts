// RFC 8785 (JCS) canonical bytes. The `canonicalize` package does the serialization; this
// module first refuses what JCS cannot represent (non-finite numbers, lone surrogates,
// non-JSON values), because a silently altered value would hash to a different decision.
import canonicalize from 'canonicalize';
import { InputError } from '../errors.js';
import { utf8 } from './encoding.js';

/** Max nesting accepted anywhere we canonicalize: deeper input is hostile, not data. */
export const MAX_DEPTH = 64;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Refuse what JCS cannot represent. The path of the culprit is built only when there is one. */
function assertJson(root: unknown): void {
  const trail: string[] = [];
  const fail = (code: 'ERR_NOT_CANONICAL' | 'ERR_TOO_DEEP', message: string, what: string): never => {
    const path = trail.map((k) => `/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
    throw new InputError(code, message, [{ path, message: what }]);
  };
  const check = (value: unknown): void => {
    if (trail.length > MAX_DEPTH) fail('ERR_TOO_DEEP', `nesting deeper than ${MAX_DEPTH}`, 'too deep');
    switch (typeof value) {
      case 'string':
        if (LONE_SURROGATE.test(value)) fail('ERR_NOT_CANONICAL', 'string has a lone surrogate', 'lone surrogate');
        return;
      case 'number':
        if (!Number.isFinite(value)) fail('ERR_NOT_CANONICAL', 'number JCS cannot represent', 'not finite');
        return;
      case 'boolean':
        return;
      case 'object':
        if (value === null) return;
        if (Array.isArray(value)) {
          for (let i = 0; i < value.length; i++) {
            trail.push(String(i));
            check(value[i]);
            trail.pop();
          }
          return;
        }
        if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) {
          fail('ERR_NOT_CANONICAL', 'not a plain JSON object', 'not plain JSON');
        }
        for (const k in value as Record<string, unknown>) {
          if (!Object.hasOwn(value, k)) continue;
          if (LONE_SURROGATE.test(k)) fail('ERR_NOT_CANONICAL', 'key has a lone surrogate', 'lone surrogate in key');
          const v = (value as Record<string, unknown>)[k];
          if (v === undefined) continue; // JSON has no undefined: dropped, as JSON.stringify does
          trail.push(k);
          check(v);
          trail.pop();
        }
        return;
      default:
        fail('ERR_NOT_CANONICAL', `not a JSON value (${typeof value})`, 'not JSON');
    }
  };
  check(root);
}

/** The RFC 8785 text of a JSON value. Throws ERR_NOT_CANONICAL / ERR_TOO_DEEP. */
export function canonicalText(value: unknown): string {
  assertJson(value);
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
  assertJson(value);
  return value;
}
