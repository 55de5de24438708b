// Private JSON helpers for the chain: a checked deep copy, so no interceptor can alter the
// payload another one sees (or the original kept for atomic mutations), and no non-JSON value
// (undefined, Date, NaN, cycles) slips into what gets hashed and recorded.
import { escapePointer, isPlainObject, MAX_DEPTH, setMember } from '../canonical/index.js';
import type { Json } from './types.js';

/**
 * A fresh deep copy of a JSON value; throws a plain Error naming the first bad spot. With
 * `sortKeys`, members are inserted in canonical (RFC 8785) order: the copy iterates as the value
 * read back from its canonical bytes does.
 */
export function cloneJson(value: unknown, path = '', sortKeys = false): Json {
  const trail: (string | number)[] = [];
  // The path is built only for the message: a copy of every payload per interceptor step must not
  // build a string per key (measured).
  const bad = (why: string): never => {
    const at = path + trail.map((t) => `/${typeof t === 'number' ? t : escapePointer(t)}`).join('');
    throw new Error(`not JSON at ${at || '/'}: ${why}`);
  };
  const member = (out: Record<string, Json>, from: Record<string, unknown>, k: string): void => {
    const x = from[k];
    if (x === undefined) return; // as JSON.stringify does
    trail.push(k);
    setMember(out, k, copy(x)); // "__proto__" too, as an own member
    trail.pop();
  };
  const copy = (v: unknown): Json => {
    if (trail.length > MAX_DEPTH) return bad(`nesting deeper than ${MAX_DEPTH}`);
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return v;
      case 'number':
        return Number.isFinite(v) ? v : bad('non-finite number');
      case 'object': {
        if (v === null) return null;
        if (Array.isArray(v)) {
          const out: Json[] = new Array(v.length);
          for (let i = 0; i < v.length; i++) {
            trail.push(i);
            out[i] = copy(v[i]);
            trail.pop();
          }
          return out;
        }
        const proto = Object.getPrototypeOf(v);
        if (proto !== Object.prototype && proto !== null) return bad('not a plain object');
        const out: Record<string, Json> = {};
        if (sortKeys) for (const k of Object.keys(v).sort()) member(out, v as Record<string, unknown>, k);
        else for (const k in v as Record<string, unknown>) if (Object.hasOwn(v, k)) member(out, v as Record<string, unknown>, k);
        return out;
      }
      default:
        return bad(typeof v);
    }
  };
  return copy(value);
}

export { escapePointer, isPlainObject, setMember };

/** The message of any thrown value, for a result's reason (never a stack). */
export function describeError(e: unknown): string {
  if (e instanceof Error) return e.message || e.name;
  if (typeof e === 'string') return e;
  return 'non-Error value thrown';
}
