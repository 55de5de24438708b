// Build the policy in force from a resolved config document: built-in and remote interceptors
// with their settings, the Cedar policy set, timeouts and directions, and the digests every
// entry records. The same document, loaded back by digest, rebuilds the same chain for replay.
import { ConfigError, type Issue } from '../errors.js';
import { createBehavior, CONFORMANCE_BEHAVIORS } from '../interceptors/conformance-behaviors.js';
import { builtinFactories } from '../interceptors/builtin/index.js';
import { builtinConfigIssues } from '../interceptors/builtin/_config-validate.js';
import type { StateStores } from '../interceptors/builtin/types.js';
import { connectRemoteInterceptors } from '../interceptors/remote.js';
import { withDeclaration } from '../interceptors/list.js';
import type { Interceptor, InterceptorDescriptor, InterceptorType } from '../interceptors/types.js';
import { assertRemotesAllowed, cedarVersion, isRemoteDeclaration, type DeclarationOverrides, type RemoteAllowList, type ResolvedConfig } from '../policy/index.js';
import { VOUCH_ENGINE_VERSION, type ActivePolicy } from './decide.js';

export interface ActivateDeps {
  state: StateStores;
  /** Remote interceptor servers are connected live; replay passes `offline` and uses recorded answers. */
  remote?: 'connect' | 'offline';
  /**
   * How built-in configs are checked against their JSON Schemas: 'ajv' (default, with validators
   * compiled ahead of time, so workerd runs it too) at activation; 'prebuilt' skips it for a
   * document that was checked when it was first activated (replay rebuilding a recorded policy).
   * The built-ins' own parsers run either way.
   */
  configSchemas?: 'ajv' | 'prebuilt';
  /**
   * With `connect`: the only interceptor servers this activation may connect to (the operator's,
   * policy/remote-allow.ts). Any remote declaration off it refuses the whole activation with
   * ERR_REMOTE_NOT_ALLOWED before the first connection. Absent: the operator's own start-up file.
   */
  remoteAllow?: RemoteAllowList;
}

export interface Activated extends ActivePolicy {
  resolved: ResolvedConfig;
  /** Remote interceptors whose latest call failed, with the reason (remote.ts): for /healthz. */
  remoteFailures(): { name: string; reason: string }[];
  close(): Promise<void>;
}

const CONFORMANCE_PREFIX = 'conformance/';

export async function activatePolicy(resolved: ResolvedConfig, deps: ActivateDeps): Promise<Activated> {
  const { config, policySet } = resolved;
  const interceptors: Interceptor[] = [];
  const closers: (() => Promise<void>)[] = [];
  const failing: (() => { name: string; reason: string }[])[] = [];
  const issues: Issue[] = [];
  if (deps.remote !== 'offline' && deps.remoteAllow) assertRemotesAllowed(config, deps.remoteAllow);
  for (const [i, decl] of config.interceptors.entries()) {
    const path = `/interceptors/${i}`;
    try {
      if (isRemoteDeclaration(decl)) {
        // Replay never calls a remote server: audit/replay stands in recorded answers instead.
        if (deps.remote === 'offline') continue;
        const r = await connectRemoteInterceptors({ url: decl.remote.url, names: decl.remote.names, era: decl.remote.era, timeoutMs: config.timeouts?.interceptorMs });
        closers.push(r.close);
        failing.push(r.failing);
        for (const ic of r.interceptors) {
          if (decl.compat) ic.descriptor.compat = { ...decl.compat }; // the config narrows the server's range
          interceptors.push(withDeclaration(ic, decl));
        }
        continue;
      }
      if (decl.use.startsWith(CONFORMANCE_PREFIX)) {
        interceptors.push(withDeclaration(conformanceBehavior(decl.use.slice(CONFORMANCE_PREFIX.length), decl.name, decl, decl.config), decl));
        continue;
      }
      const factory = builtinFactories[decl.use];
      if (!factory) {
        issues.push({ path: `${path}/use`, message: `unknown built-in ${JSON.stringify(decl.use)} (known: ${Object.keys(builtinFactories).sort().join(', ')})` });
        continue;
      }
      const schemaIssues = deps.configSchemas === 'prebuilt' ? [] : builtinConfigIssues(decl.use, decl.config, `${path}/config`);
      if (schemaIssues.length) {
        issues.push(...schemaIssues);
        continue;
      }
      interceptors.push(withDeclaration(factory({ name: decl.name, config: decl.config, declaration: overrides(decl), deps: { policySet, state: deps.state } }), decl));
    } catch (e) {
      const sub = (e as { issues?: Issue[] }).issues;
      if (sub?.length) issues.push(...sub.map((s) => ({ path: `${path}/config${s.path}`, message: s.message })));
      else issues.push({ path, message: (e as Error).message });
    }
  }
  const names = new Set<string>();
  for (const ic of interceptors) {
    if (names.has(ic.descriptor.name)) issues.push({ path: '/interceptors', message: `two interceptors are named ${JSON.stringify(ic.descriptor.name)}` });
    names.add(ic.descriptor.name);
  }
  if (issues.length) {
    await Promise.all(closers.map((c) => c()));
    throw new ConfigError('ERR_CONFIG', `config cannot be activated: ${issues.map((x) => `${x.path}: ${x.message}`).join('; ')}`, issues);
  }
  return {
    interceptors,
    chainDigest: resolved.chainDigest,
    policyDigest: resolved.policyDigest,
    engines: { vouch: VOUCH_ENGINE_VERSION, cedar: cedarVersion },
    options: {
      directions: { request: config.directions?.request ?? 'sending', response: config.directions?.response ?? 'receiving' },
      chainTimeoutMs: config.timeouts?.chainMs,
      interceptorTimeoutMs: config.timeouts?.interceptorMs,
      ...(config.timeouts?.enricherMs !== undefined && { enricherTimeoutMs: config.timeouts.enricherMs }),
    },
    toolMap: config.servers?.toolMap,
    events: config.events,
    uncovered: config.uncovered,
    resolved,
    remoteFailures: () => failing.flatMap((f) => f()),
    close: async () => {
      await Promise.all(closers.map((c) => c()));
    },
  };
}

function overrides(d: DeclarationOverrides): Partial<InterceptorDescriptor> {
  const o: Partial<InterceptorDescriptor> = {};
  if (d.hooks) o.hooks = d.hooks;
  if (d.mode === 'audit') o.mode = 'audit';
  if (d.failOpen) o.failOpen = true;
  if (d.priorityHint !== undefined) o.priorityHint = d.priorityHint;
  if (d.description) o.description = d.description;
  if (d.compat) o.compat = d.compat;
  return o;
}

/** The SEP-2624 conformance suite's named behaviors, for conformance runs (`use: conformance/<behavior>`). */
function conformanceBehavior(behavior: string, name: string, d: DeclarationOverrides, config: unknown): Interceptor {
  if (!(CONFORMANCE_BEHAVIORS as readonly string[]).includes(behavior)) throw new ConfigError('ERR_CONFIG', `unknown conformance behavior ${behavior}`);
  const type = ((config as { type?: InterceptorType } | undefined)?.type ?? (behavior === 'uppercase-note' ? 'mutation' : 'validation')) as InterceptorType;
  const descriptor: InterceptorDescriptor = { name, type, hooks: d.hooks ?? [{ events: ['*'], phase: 'request' }, { events: ['*'], phase: 'response' }], ...overrides(d) };
  return createBehavior(behavior, descriptor);
}
