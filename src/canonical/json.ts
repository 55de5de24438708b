// The JSON value: what canonicalBytes hashes, what entries and configs hold. One definition for
// every module, with the two small helpers every parser of untrusted JSON needs.
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** RFC 6901 escaping of one reference token. */
export function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Set an own, enumerable member, whatever its name. Plain assignment of "__proto__" (an own
 * member JSON.parse makes from untrusted text) would replace the object's prototype instead: the
 * member would vanish from the copy and its value's members would read as the copy's own.
 */
export function setMember(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}
