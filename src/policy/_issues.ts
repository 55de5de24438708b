// A small collector of issues by JSON Pointer, so config parsing reports every problem at once.
import { canonicalText, type Json } from '../canonical/index.js';
import { isVouchError, type Issue } from '../errors.js';

export function pointer(base: string, key: string | number): string {
  return `${base}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export class Issues {
  readonly list: Issue[] = [];
  add(path: string, message: string): void {
    this.list.push({ path, message });
  }

  /** An object with only `allowed` keys (typos are errors: a misspelt `failOpen` must not pass silently). */
  obj(v: unknown, path: string, allowed: readonly string[]): Obj | undefined {
    if (!isObj(v)) {
      this.add(path, 'must be an object');
      return undefined;
    }
    for (const k of Object.keys(v)) if (!allowed.includes(k)) this.add(pointer(path, k), `unknown field (expected one of: ${allowed.join(', ')})`);
    return v;
  }

  str(v: unknown, path: string, opts: { nonEmpty?: boolean } = {}): string | undefined {
    if (typeof v !== 'string') return void this.add(path, 'must be a string');
    if (opts.nonEmpty && v.trim() === '') return void this.add(path, 'must not be empty');
    return v;
  }

  oneOf<T extends string>(v: unknown, path: string, values: readonly T[]): T | undefined {
    if (typeof v === 'string' && (values as readonly string[]).includes(v)) return v as T;
    return void this.add(path, `must be one of: ${values.join(', ')}`);
  }

  int(v: unknown, path: string, min: number, max: number): number | undefined {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) return void this.add(path, `must be an integer from ${min} to ${max}`);
    return v;
  }

  num(v: unknown, path: string): number | undefined {
    if (typeof v !== 'number' || !Number.isFinite(v)) return void this.add(path, 'must be a finite number');
    return v;
  }

  bool(v: unknown, path: string): boolean | undefined {
    if (typeof v !== 'boolean') return void this.add(path, 'must be true or false');
    return v;
  }

  strArray(v: unknown, path: string, opts: { nonEmpty?: boolean } = {}): string[] | undefined {
    if (!Array.isArray(v)) return void this.add(path, 'must be an array of strings');
    if (opts.nonEmpty && v.length === 0) this.add(path, 'must not be empty');
    const out: string[] = [];
    v.forEach((x, i) => {
      const s = this.str(x, pointer(path, i), { nonEmpty: true });
      if (s !== undefined) out.push(s);
    });
    return out.length === v.length ? out : undefined;
  }

  /** Opaque JSON (interceptor config, drift rules): only checked to be JSON that hashes. */
  json(v: unknown, path: string): Json | undefined {
    try {
      canonicalText(v);
      return v as Json;
    } catch (e) {
      const inner = isVouchError(e) && 'issues' in e ? (e as { issues: Issue[] }).issues : [];
      this.add(inner[0] ? path + inner[0].path : path, `not plain JSON (${isVouchError(e) ? e.message : 'unknown value'})`);
      return undefined;
    }
  }
}
