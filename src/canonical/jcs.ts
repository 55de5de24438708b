// RFC 8785 (JCS) canonical bytes, in one pass that also refuses what JCS cannot represent
// (non-finite numbers, lone surrogates, non-JSON values, nesting past MAX_DEPTH), because a
// silently altered value would hash to a different decision. Only a refused value walks again
// (assertJson), to name the culprit's path. test/canonical/jcs-fast.test.ts holds the output equal
// to the `canonicalize` package's and the refusals equal to assertJson's.
import { InputError } from '../errors.js';
import { utf8 } from './encoding.js';

/** Max nesting accepted anywhere we canonicalize: deeper input is hostile, not data. */
export const MAX_DEPTH = 64;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Refuse what JCS cannot represent. The path of the culprit is built only when there is one. */
export function assertJson(root: unknown): void {
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

// ES2024: Node 20, Workers and current browsers have it; the console in an older browser takes the pattern.
const isWellFormed: (s: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function' ? (s) => (s as unknown as { isWellFormed(): boolean }).isWellFormed() : (s) => !LONE_SURROGATE.test(s);

/**
 * RFC 8785 for a value assertJson accepts: object keys sorted by UTF-16 code units (the default
 * sort), strings and finite numbers as ECMAScript's JSON.stringify writes them (what JCS
 * specifies: its number form is ECMAScript's, and well-formed strings escape the same way), an
 * object's undefined members dropped. Undefined for anything assertJson refuses.
 */
function write(v: unknown, depth: number): string | undefined {
  if (depth > MAX_DEPTH) return undefined;
  switch (typeof v) {
    case 'string':
      return isWellFormed(v) ? JSON.stringify(v) : undefined;
    case 'number':
      return Number.isFinite(v) ? JSON.stringify(v) : undefined;
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (v === null) return 'null';
      if (Array.isArray(v)) {
        let s = '[';
        for (let i = 0; i < v.length; i++) {
          const c = write(v[i], depth + 1);
          if (c === undefined) return undefined;
          s += i === 0 ? c : `,${c}`;
        }
        return `${s}]`;
      }
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return undefined;
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o).sort();
      let s = '{';
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        if (!isWellFormed(k)) return undefined;
        const x = o[k];
        if (x === undefined) continue; // JSON has no undefined: dropped, as JSON.stringify does
        const c = write(x, depth + 1);
        if (c === undefined) return undefined;
        s += `${s.length === 1 ? '' : ','}${JSON.stringify(k)}:${c}`;
      }
      return `${s}}`;
    }
    default:
      return undefined;
  }
}

/** The RFC 8785 text of a JSON value. Throws ERR_NOT_CANONICAL / ERR_TOO_DEEP. */
export function canonicalText(value: unknown): string {
  const text = write(value, 0);
  if (text !== undefined) return text;
  assertJson(value); // throws the precise error with the culprit's path
  throw new InputError('ERR_NOT_CANONICAL', 'value has no JSON form');
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
