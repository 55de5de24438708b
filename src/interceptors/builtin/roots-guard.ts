// roots-guard: authorizes roots/list: every root the client exposes to a server must be one of the
// configured roots or inside one. A root that is the whole disk (`file:///`, `file:///C:/`) is
// refused even if configured. URIs are compared after WHATWG normalization (`..`, `%2e`). Pure.
import type { Interceptor, Json, Message, ValidationOutcome } from '../types.js';
import { buildDescriptor, ConfigReader } from './_content-config.js';
import { isRecord } from './_walk.js';
import type { BuiltinFactory } from './types.js';

export interface RootsGuardConfig {
  /** Allowed roots (normalized URIs, no trailing slash); a root is allowed if equal to one or under it. */
  allow: string[];
}

/** The normalized form of a root URI, or undefined when it is not a URL. */
export function normalizeRoot(uri: string): string | undefined {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return undefined;
  }
  if (u.search || u.hash || u.username || u.password) return undefined; // a root is a place, nothing else
  if (u.protocol === 'file:' && u.hostname === 'localhost') u.hostname = '';
  const stripped = u.href.replace(/\/+$/, '');
  return /:\/{0,2}$/.test(stripped) ? u.href : stripped; // `file:///` stays itself, not `file:`
}

/** A root at the top of a filesystem: the whole disk. */
export function isWholeDisk(normalized: string): boolean {
  if (!normalized.startsWith('file:')) return false;
  const path = new URL(normalized).pathname;
  return /^\/*$/.test(path) || /^\/*[A-Za-z](?::|%3A)\/*$/i.test(path);
}

export function parseRootsGuardConfig(name: string, config: Json | undefined): RootsGuardConfig {
  const r = new ConfigReader(name, config, ['allow']);
  const allow = r.strings('allow') ?? [];
  const out: string[] = [];
  allow.forEach((a, i) => {
    const n = normalizeRoot(a);
    if (n === undefined) r.issues.push({ path: `/config/allow/${i}`, message: 'must be an absolute URI with no query or fragment' });
    else if (isWholeDisk(n)) r.issues.push({ path: `/config/allow/${i}`, message: 'exposes the whole disk; name a folder' });
    else out.push(n);
  });
  r.done();
  return { allow: out };
}

function inside(root: string, allowed: string): boolean {
  return root === allowed || root.startsWith(`${allowed}/`);
}

/** Pure: every root of the payload (a roots/list result, or any payload carrying `roots`) checked. */
export function checkRoots(payload: unknown, config: RootsGuardConfig): ValidationOutcome {
  const p = isRecord(payload) && isRecord(payload.result) ? payload.result : payload;
  const messages: Message[] = [];
  const deny = (message: string, path: string): void => void messages.push({ message, severity: 'error', path });
  const roots = isRecord(p) ? p.roots : undefined;
  if (roots === undefined) return { valid: true };
  if (!Array.isArray(roots)) return { valid: false, severity: 'error', messages: [{ message: 'roots must be an array', severity: 'error', path: 'roots' }] };
  roots.forEach((root, i) => {
    const uri = isRecord(root) ? root.uri : undefined;
    if (typeof uri !== 'string') return deny('a root without a uri', `roots.${i}`);
    const n = normalizeRoot(uri);
    if (n === undefined) return deny(`root '${uri.slice(0, 200)}' is not a plain absolute URI`, `roots.${i}.uri`);
    if (isWholeDisk(n)) return deny(`root '${n}' exposes the whole disk`, `roots.${i}.uri`);
    if (!config.allow.some((a) => inside(n, a))) deny(`root '${n}' is not under an allowed root`, `roots.${i}.uri`);
  });
  return messages.length === 0 ? { valid: true } : { valid: false, severity: 'error', messages };
}

export const createRootsGuard: BuiltinFactory = ({ name, config, declaration }): Interceptor => {
  const parsed = parseRootsGuardConfig(name, config);
  const descriptor = buildDescriptor(
    name,
    {
      type: 'validation',
      description: 'Authorizes the roots a client exposes: configured folders only, never the whole disk.',
      // Both phases: the answer carries the roots; a request that carries roots is checked the same way.
      hooks: [
        { events: ['roots/list'], phase: 'request' },
        { events: ['roots/list'], phase: 'response' },
      ],
    },
    declaration,
  );
  return { descriptor, authorizes: true, run: (payload) => checkRoots(payload, parsed) };
};
