// Private JSON helpers for the chain: a checked deep copy, so no interceptor can alter the
// payload another one sees (or the original kept for atomic mutations), and no non-JSON value
// (undefined, Date, NaN, cycles) slips into what gets hashed and recorded.
import { MAX_DEPTH } from '../canonical/index.js';
import type { Json } from './types.js';

/** A fresh deep copy of a JSON value; throws a plain Error naming the first bad spot. */
export function cloneJson(value: unknown, path = '', depth = 0): Json {
  if (depth > MAX_DEPTH) throw new Error(`not JSON at ${path || '/'}: nesting deeper than ${MAX_DEPTH}`);
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new Error(`not JSON at ${path || '/'}: non-finite number`);
      return value;
    case 'object': {
      if (value === null) return null;
      if (Array.isArray(value)) return value.map((v, i) => cloneJson(v, `${path}/${i}`, depth + 1));
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) throw new Error(`not JSON at ${path || '/'}: not a plain object`);
      const out: Record<string, Json> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (v === undefined) continue; // as JSON.stringify does
        out[k] = cloneJson(v, `${path}/${escapePointer(k)}`, depth + 1);
      }
      return out;
    }
    default:
      throw new Error(`not JSON at ${path || '/'}: ${typeof value}`);
  }
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** RFC 6901 escaping of one reference token. */
export function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The message of any thrown value, for a result's reason (never a stack). */
export function describeError(e: unknown): string {
  if (e instanceof Error) return e.message || e.name;
  if (typeof e === 'string') return e;
  return 'non-Error value thrown';
}
