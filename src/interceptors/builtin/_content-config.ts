// Config parsing and descriptor building shared by the content built-ins (redactors, guards,
// rate-limit, audit-observer). Each factory validates its own `config` block through a
// ConfigReader, which collects every bad field before throwing one ConfigError (ERR_CONFIG).
import { ConfigError, type Issue } from '../../errors.js';
import type { Hook, InterceptorDescriptor, InterceptorType, Json, PriorityHint } from '../types.js';

type JsonObject = { [k: string]: Json };

/** Reads one interceptor's config; issue paths are JSON Pointers relative to its declaration. */
export class ConfigReader {
  readonly issues: Issue[] = [];
  private readonly obj: JsonObject;

  constructor(
    private readonly interceptor: string,
    config: Json | undefined,
    known: readonly string[],
  ) {
    if (config === undefined || config === null) {
      this.obj = {};
    } else if (typeof config !== 'object' || Array.isArray(config)) {
      this.obj = {};
      this.issues.push({ path: '/config', message: 'must be an object' });
    } else {
      this.obj = config;
      for (const k of Object.keys(config)) {
        if (!known.includes(k)) this.issues.push({ path: pointer(k), message: `unknown option (known: ${known.join(', ')})` });
      }
    }
  }

  int(key: string, opts: { min?: number; max?: number; required?: boolean } = {}): number | undefined {
    const v = this.obj[key];
    if (v === undefined) {
      if (opts.required) this.issues.push({ path: pointer(key), message: 'is required' });
      return undefined;
    }
    const min = opts.min ?? 0;
    const max = opts.max ?? Number.MAX_SAFE_INTEGER;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) {
      this.issues.push({ path: pointer(key), message: `must be an integer in [${min}, ${max}]` });
      return undefined;
    }
    return v;
  }

  strings(key: string, opts: { nonEmpty?: boolean } = {}): string[] | undefined {
    const v = this.obj[key];
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string' || s.length === 0)) {
      this.issues.push({ path: pointer(key), message: 'must be an array of non-empty strings' });
      return undefined;
    }
    if (opts.nonEmpty && v.length === 0) {
      this.issues.push({ path: pointer(key), message: 'must not be empty' });
      return undefined;
    }
    return v as string[];
  }

  /** A non-empty list drawn from `allowed`; each unknown member is its own issue. */
  enumList<T extends string>(key: string, allowed: readonly T[]): T[] | undefined {
    const list = this.strings(key, { nonEmpty: true });
    if (!list) return undefined;
    let ok = true;
    list.forEach((s, i) => {
      if (!(allowed as readonly string[]).includes(s)) {
        ok = false;
        this.issues.push({ path: `${pointer(key)}/${i}`, message: `unknown value '${s}' (allowed: ${allowed.join(', ')})` });
      }
    });
    return ok ? (list as T[]) : undefined;
  }

  /** Throws one ConfigError listing every issue found so far. */
  done(): void {
    if (this.issues.length > 0) {
      throw new ConfigError('ERR_CONFIG', `${this.interceptor}: invalid config`, this.issues);
    }
  }
}

function pointer(key: string): string {
  return `/config/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

export interface DescriptorDefaults {
  type: InterceptorType;
  hooks: Hook[];
  description: string;
  priorityHint?: PriorityHint;
}

/** The wire descriptor: built-in defaults, overridden by the declaration, defaults omitted. */
export function buildDescriptor(
  name: string,
  defaults: DescriptorDefaults,
  declaration: Partial<InterceptorDescriptor>,
): InterceptorDescriptor {
  if (declaration.type !== undefined && declaration.type !== defaults.type) {
    throw new ConfigError('ERR_CONFIG', `${name}: invalid declaration`, [
      { path: '/type', message: `this built-in is a ${defaults.type} interceptor, not ${declaration.type}` },
    ]);
  }
  const d: InterceptorDescriptor = {
    name,
    type: defaults.type,
    hooks: (declaration.hooks ?? defaults.hooks).map((h) => ({ events: [...h.events], phase: h.phase })),
    description: declaration.description ?? defaults.description,
  };
  if (declaration.mode === 'audit') d.mode = 'audit';
  if (declaration.failOpen === true) d.failOpen = true;
  const priority = declaration.priorityHint ?? defaults.priorityHint;
  if (priority !== undefined && priority !== 0) d.priorityHint = priority;
  if (declaration.compat !== undefined) d.compat = declaration.compat;
  if (declaration.configSchema !== undefined) d.configSchema = declaration.configSchema;
  return d;
}

