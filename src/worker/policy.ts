// The policy in force on Workers: the config embedded at build time (`npm run build:config`), its
// settings resolved from the Worker's vars (entry.ts), activated once per isolate as Node
// activates it: the stateful built-ins' state in Durable Objects (state-stores.ts), remote interceptor servers connected over
// MCP (Streamable HTTP, on fetch), their answers recorded as each entry's state as on Node.
//
// One difference, because an isolate starts whenever a request needs one: `vouch serve` refuses
// to start while an interceptor server cannot be reached, a Worker cannot refuse. Until its
// servers answer, the isolate runs the chain with a stand-in for each remote interceptor that
// fails every call it is asked (recorded as `{error}`, as a server that went away mid-run), so
// decisions are denied and logged, never allowed unchecked; /healthz says so (503), and a fresh
// connection is tried on a request at most every `retryMs`.
import { activatePolicy, remoteHealth, type Activated } from '../decide/index.js';
import { ConfigError, type Issue } from '../errors.js';
import type { StateStores } from '../interceptors/builtin/types.js';
import { withDeclaration } from '../interceptors/list.js';
import { unreachableRemoteInterceptor } from '../interceptors/remote.js';
import type { Interceptor, InterceptorDescriptor, Json } from '../interceptors/types.js';
import { isRemoteDeclaration, resolveConfigDocument, type RemoteDeclaration, type ResolvedConfig } from '../policy/index.js';

/** How often an isolate whose interceptor servers were unreachable tries again (on a request). */
export const REMOTE_RETRY_MS = 10_000;

export type Health = { ok: true } | { ok: false; code: string; reason: string };

export interface WorkerPolicy {
  /**
   * The policy for this request: the chain as activated, or, while an interceptor server has not
   * answered since the isolate started, the fail-closed chain; that case tries to connect again
   * when `retryMs` has passed since the last try (within this request: nothing is left pending).
   */
  current(): Promise<Activated>;
  /** Whether every interceptor server is connected and its latest call answered (for /healthz). */
  health(): Health;
}

export interface WorkerPolicyOptions {
  retryMs?: number;
  /** Milliseconds, for the retry schedule. */
  now?: () => number;
}

/** Resolve and activate an embedded config document with every declaration it holds. */
export async function activateWorkerPolicy(document: Json, state: StateStores, opts: WorkerPolicyOptions = {}): Promise<WorkerPolicy> {
  const resolved = resolveConfigDocument(document);
  const retryMs = opts.retryMs ?? REMOTE_RETRY_MS;
  const now = opts.now ?? Date.now;
  // Built-in configs are checked against their JSON Schemas here too (the validators are compiled
  // ahead of time, no code generated at run time): a setting from the Worker's vars lands in them.
  const connect = () => activatePolicy(resolved, { state, remote: 'connect' });
  let active: Activated;
  let unreachable: string[] = [];
  try {
    active = await connect();
  } catch (e) {
    const reasons = remoteReasons(resolved, e);
    if (!reasons) throw e; // not (only) a server that did not answer: the config cannot run
    active = await failClosed(resolved, state, reasons);
    unreachable = [...reasons.values()];
  }
  let nextTry = now() + retryMs;
  return {
    async current() {
      if (unreachable.length === 0 || now() < nextTry) return active;
      nextTry = now() + retryMs; // other requests meanwhile decide with the fail-closed chain
      try {
        active = await connect();
        unreachable = [];
      } catch (e) {
        const reasons = remoteReasons(resolved, e);
        if (!reasons) throw e;
        unreachable = [...reasons.values()];
      }
      return active;
    },
    health() {
      if (unreachable.length === 0) return remoteHealth(active);
      return { ok: false, code: 'ERR_INTERCEPTOR_FAILED', reason: `decisions are denied until the interceptor servers answer (tried again at most every ${retryMs / 1000} s): ${unreachable.join('; ')}` };
    },
  };
}

/**
 * When activation failed only at remote declarations (a server that did not answer, or answered
 * with a listing that cannot be used), the reason for each of them by declaration index;
 * undefined when anything else failed too.
 */
function remoteReasons(resolved: ResolvedConfig, e: unknown): Map<number, string> | undefined {
  if (!(e instanceof ConfigError) || !e.issues?.length) return undefined;
  const remote = new Map<string, number>();
  resolved.config.interceptors.forEach((d, i) => isRemoteDeclaration(d) && remote.set(`/interceptors/${i}`, i));
  const out = new Map<number, string>();
  for (const issue of e.issues as Issue[]) {
    const at = remote.get(issue.path) ?? remote.get(issue.path.split('/').slice(0, 3).join('/'));
    if (at === undefined) return undefined;
    out.set(at, out.has(at) ? `${out.get(at)}; ${issue.message}` : issue.message);
  }
  return out;
}

/** The chain with the built-ins as activated and a failing stand-in for each remote interceptor, in declaration order. */
async function failClosed(resolved: ResolvedConfig, state: StateStores, reasons: Map<number, string>): Promise<Activated> {
  const local = await activatePolicy(resolved, { state, remote: 'offline' });
  const rest = [...local.interceptors];
  const interceptors: Interceptor[] = [];
  const issues: Issue[] = [];
  resolved.config.interceptors.forEach((d, i) => {
    if (!isRemoteDeclaration(d)) {
      interceptors.push(rest.shift()!); // activatePolicy builds one interceptor per built-in declaration, in order
      return;
    }
    const reason = `not connected: ${reasons.get(i) ?? 'the interceptor server did not answer'}`;
    for (const descriptor of standInDescriptors(d)) interceptors.push(withDeclaration(unreachableRemoteInterceptor(descriptor, reason), d));
  });
  const names = new Set<string>();
  for (const ic of interceptors) {
    if (names.has(ic.descriptor.name)) issues.push({ path: '/interceptors', message: `two interceptors are named ${JSON.stringify(ic.descriptor.name)}` });
    names.add(ic.descriptor.name);
  }
  if (issues.length) throw new ConfigError('ERR_CONFIG', `config cannot be activated: ${issues.map((x) => `${x.path}: ${x.message}`).join('; ')}`, issues);
  return { ...local, interceptors };
}

/**
 * What stands in for a remote declaration whose server did not list its interceptors: one per
 * name it picks (the declaration's own name when it picks none), a validation hooking every event
 * in both phases (what the server would hook is unknown), with the config's compat range as
 * activation applies it to the listed ones.
 */
function standInDescriptors(d: RemoteDeclaration): InterceptorDescriptor[] {
  return (d.remote.names ?? [d.name]).map((name) => ({
    name,
    type: 'validation',
    hooks: [
      { events: ['*'], phase: 'request' },
      { events: ['*'], phase: 'response' },
    ],
    ...(d.compat && { compat: { ...d.compat } }),
  }));
}
