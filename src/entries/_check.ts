// The small kit every entry reader uses: collect every bad field by JSON Pointer, then throw one
// InputError (ERR_INPUT) naming them all. An entry from a log or a bundle is untrusted input.
import { isDigest, isPlainObject, type Digest, type Json } from '../canonical/index.js';
import { InputError, type Issue } from '../errors.js';
import type { Entry, EntryType } from '../log/index.js';

export type Rec = Record<string, unknown>;
export const isRecord = isPlainObject;
export const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

export class Checker {
  readonly issues: Issue[] = [];
  constructor(readonly e: Rec) {}
  bad(path: string, message: string): void {
    this.issues.push({ path, message });
  }
  /** An optional string field. */
  str(k: string): string | undefined {
    const v = this.e[k];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') this.bad(`/${k}`, 'must be a string');
    return typeof v === 'string' ? v : undefined;
  }
  /** A required non-empty string field. */
  name(k: string): string {
    const v = this.e[k];
    if (typeof v !== 'string' || v === '') this.bad(`/${k}`, 'must be a non-empty string');
    return v as string;
  }
  strings(k: string): string[] | undefined {
    const v = this.e[k];
    if (v !== undefined && !isStringList(v)) this.bad(`/${k}`, 'must be a list of strings');
    return v as string[] | undefined;
  }
  digest(k: string, optional = false): Digest {
    const v = this.e[k];
    if (!(optional && v === undefined) && !isDigest(v)) this.bad(`/${k}`, 'must be a sha256:<64 hex> digest');
    return v as Digest;
  }
  /** `{digest}`, or null when `nullable`, or absent when `optional`. */
  digestRef(k: string, opts: { nullable?: boolean; optional?: boolean } = {}): { digest: Digest } | null | undefined {
    const v = this.e[k];
    if (v === undefined && opts.optional) return undefined;
    if (v === null && opts.nullable) return null;
    if (!isRecord(v) || !isDigest(v.digest)) this.bad(`/${k}`, `must be {digest}${opts.nullable ? ' or null' : ''}`);
    return v as { digest: Digest };
  }
  seqOrNull(k: string, optional = false): number | null | undefined {
    const v = this.e[k];
    if (v === undefined && optional) return undefined;
    if (v !== null && !(Number.isSafeInteger(v) && (v as number) >= 0)) this.bad(`/${k}`, 'must be an entry seq or null');
    return v as number | null;
  }
  oneOf<T extends string>(k: string, allowed: readonly T[], optional = false): T {
    const v = this.e[k];
    if (!(optional && v === undefined) && !(allowed as readonly unknown[]).includes(v)) this.bad(`/${k}`, `must be one of ${allowed.join(', ')}`);
    return v as T;
  }
  bool(k: string): boolean | undefined {
    const v = this.e[k];
    if (v !== undefined && typeof v !== 'boolean') this.bad(`/${k}`, 'must be a boolean');
    return v as boolean | undefined;
  }
  object(k: string, optional = true): Record<string, Json> | undefined {
    const v = this.e[k];
    if (v === undefined && optional) return undefined;
    if (!isRecord(v)) this.bad(`/${k}`, 'must be an object');
    return v as Record<string, Json>;
  }
  /** Throws when anything was bad; `what` names the entry kind. */
  done(what: EntryType): void {
    if (this.issues.length) throw new InputError('ERR_INPUT', `${what} entry ${String(this.e.seq)} is malformed: ${this.issues.map((i) => i.path).join(', ')}`, this.issues);
  }
}

/** The entry's type must be `type` (a reader is never handed another kind by accident). */
export function checkerFor(e: Entry | Rec, type: EntryType): Checker {
  if (e.type !== type) throw new InputError('ERR_INPUT', `entry ${String(e.seq)} is a ${String(e.type)} entry, not ${type}`, [{ path: '/type', message: `must be ${type}` }]);
  return new Checker(e as Rec);
}

/**
 * Each field of an entry type, marked as its type declares it: TypeScript refuses a list that
 * misses a field, names one too many, or calls an optional field required (or the reverse).
 * The JSON Schema in docs/ is tested against these lists, so type, list and schema cannot drift.
 */
export type FieldSpec<T> = { readonly [K in keyof T]-?: undefined extends T[K] ? 'optional' : 'required' };

/** Drop undefined fields so an entry says only what is known (the bytes never hold a null that means "unset"). */
export function compact<T extends Record<string, unknown>>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as T;
}
