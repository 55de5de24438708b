// The Node entry (Node only): data directory, config, policy, createApp on @hono/node-server,
// graceful shutdown (stop accepting, finish the batch in flight, close the databases).
import { serve } from '@hono/node-server';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { activatePolicy, type Activated } from '../activate.js';
import { canonicalBytes, parseJson, utf8, type Digest } from '../canonical/index.js';
import { parseCallerKeys } from '../receipt/index.js';
import { ConfigError } from '../errors.js';
import { createMemoryStateStores, type StateStores } from '../interceptors/builtin/index.js';
import type { Json } from '../interceptors/types.js';
import { resolveConfigDocument } from '../policy/index.js';
import type { LogStore } from '../store/index.js';
import { loadConfigFile } from '../policy/load-config.js';
import { logPortOf, type LogPort } from '../store/log-port.js';
import { initDataDir, openDataDir, type DataDir } from '../store/node.js';
import { systemClock } from '../clock.js';
import { createApp } from './app.js';
import type { AuditAppDeps, PolicyAdmin } from './routes-audit.js';
import { createAuthenticator, type AuthConfig } from './auth.js';
import type { Limits } from './deps.js';
import { Metrics } from './metrics.js';

export const EXAMPLE_CONFIG = new URL('../../fixtures/config/vouch.example.yaml', import.meta.url);
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1)$/;

export interface ServeOptions {
  data: string;
  host?: string;
  port?: number;
  /** Chain config file; default <data>/vouch.yaml, else the bundled example. */
  config?: string;
  auth?: AuthConfig;
  limits?: Partial<Limits>;
  keyName?: string;
  /** Caller co-signing keys, `{tenant: JWKS}` (vouch serve --callers FILE); none when absent. */
  callers?: unknown;
  logLine?: (line: Record<string, unknown>) => void;
}

export interface RunningServer {
  url: string;
  port: number;
  keyId: string;
  dataDir: DataDir;
  policy: Activated;
  close(): Promise<void>;
}

export function defaultConfigPath(data: string): string {
  const own = join(data, 'vouch.yaml');
  return existsSync(own) ? own : EXAMPLE_CONFIG.pathname;
}

/** Record the policy in force in a tenant's log: documents by digest, and a `policy` entry when it changed. */
export async function recordActivation(port: LogPort, store: { meta(k: string): string | undefined; setMeta(k: string, v: string): void }, policy: Activated, time: string): Promise<void> {
  await port.putDocument('chain', policy.chainDigest, canonicalBytes(policy.resolved.resolved));
  await port.putDocument('policy', policy.policyDigest, canonicalBytes(policy.resolved.policySource));
  const current = `${policy.chainDigest} ${policy.policyDigest}`;
  if (store.meta('policy.active') === current) return;
  await port.append({ type: 'policy', time, chain: policy.chainDigest, policySet: policy.policyDigest, engines: policy.engines, action: 'activate' });
  store.setMeta('policy.active', current);
}

/**
 * Explicit activations (`vouch policy activate` on a stopped data dir, POST /v1/policy on a
 * running service) pin the tenant's policy: at start it wins over the config file, until
 * `vouch policy unpin`. Meta value: "<chain digest> <policy digest>".
 */
export const PIN_META = 'policy.pinned';

/** The tenant's pinned policy, rebuilt from its stored chain document; undefined when none is pinned. */
export async function loadPinnedPolicy(store: Pick<LogStore, 'meta' | 'document'>, state: StateStores, remote: 'connect' | 'offline' = 'connect'): Promise<Activated | undefined> {
  const pin = store.meta(PIN_META);
  if (!pin) return undefined;
  const [chain, policySet] = pin.split(' ') as [Digest, Digest];
  const doc = store.document(chain);
  if (!doc) throw new ConfigError('ERR_CONFIG', `the tenant's pinned chain ${chain} is not stored: activate a policy again, or \`vouch policy unpin\``);
  const resolved = resolveConfigDocument(parseJson(utf8.decode(doc.bytes)) as Json);
  if (resolved.chainDigest !== chain || resolved.policyDigest !== policySet) throw new ConfigError('ERR_CONFIG', `the stored chain document does not rebuild to the pinned ${chain}`);
  return activatePolicy(resolved, { state, remote });
}

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  if (!opts.auth && !LOOPBACK.test(host)) {
    throw new ConfigError('ERR_CONFIG', `refusing to listen on ${host} without auth: development mode (no tokens) binds to loopback only; configure --auth to serve other hosts`);
  }
  const callers = opts.callers === undefined ? {} : parseCallerKeys(opts.callers); // before anything is opened
  initDataDir(opts.data); // first run: keys generated; existing keys are kept
  const metrics = new Metrics();
  const dataDir = await openDataDir(opts.data, { thread: true, logThread: true, keyName: opts.keyName, monotonic: systemClock.monotonic, onBatch: (t, s) => metrics.batch(t, s.entries, s.size) });
  let policy: Activated;
  // One set of live state stores for every policy: a hot swap keeps rate counters and taint.
  const state = createMemoryStateStores();
  // Per tenant: a pinned or hot-swapped policy; tenants without one use the config file's.
  const tenantPolicy = new Map<string, Activated>();
  const retired: Activated[] = [];
  try {
    policy = await activatePolicy(await loadConfigFile(opts.config ?? defaultConfigPath(opts.data)), { state, remote: 'connect' });
  } catch (e) {
    await dataDir.close();
    throw e;
  }
  const ports = new Map<string, Promise<LogPort>>();
  const logs = (tenant: string): Promise<LogPort> => {
    let p = ports.get(tenant);
    if (!p) {
      p = (async () => {
        const t = dataDir.log(tenant);
        await t.ready;
        const port = logPortOf(t.origin, t.store, t.appender);
        const pinned = await loadPinnedPolicy(t.store, state);
        if (pinned) tenantPolicy.set(tenant, pinned);
        await recordActivation(port, t.store, pinned ?? policy, systemClock.isoNow());
        return port;
      })();
      p.catch(() => ports.delete(tenant));
      ports.set(tenant, p);
    }
    return p;
  };
  // POST /v1/policy: validate and activate fully, record it (documents, entry, pin), then swap.
  // Any failure leaves the old policy in force. Requests already running finish on the old one.
  // One activation at a time, so the last `policy` entry always names the policy in force.
  let activating: Promise<unknown> = Promise.resolve();
  const policyAdmin: PolicyAdmin = {
    activate(tenant, resolved) {
      const run = activating.then(() => activateNow(tenant, resolved));
      activating = run.catch(() => undefined);
      return run;
    },
  };
  const activateNow: PolicyAdmin['activate'] = async (tenant, resolved) => {
    await logs(tenant);
    const next = await activatePolicy(resolved, { state, remote: 'connect' });
    try {
      const t = dataDir.log(tenant);
      await recordActivation(logPortOf(t.origin, t.store, t.appender), t.store, next, systemClock.isoNow());
      t.store.setMeta(PIN_META, `${next.chainDigest} ${next.policyDigest}`);
    } catch (e) {
      await next.close();
      throw e;
    }
    const old = tenantPolicy.get(tenant);
    tenantPolicy.set(tenant, next);
    if (old) retired.push(old); // closed at shutdown: in-flight requests may still hold it
    return { chain: next.chainDigest, policySet: next.policyDigest, interceptors: next.interceptors.length };
  };
  const appDeps: AuditAppDeps = {
    logs,
    policy: async (tenant) => {
      await logs(tenant);
      return tenantPolicy.get(tenant) ?? policy;
    },
    policyAdmin,
    authenticate: opts.auth && createAuthenticator(opts.auth, () => systemClock.now()),
    keys: { jwks: dataDir.jwks(), vkeys: dataDir.keys.map((k) => k.vkey), keyId: dataDir.keys[0].keyId },
    clock: systemClock,
    limits: opts.limits,
    logLine: opts.logLine,
    // The checkpoint key (ML-DSA-65) signs invoke results too; its JWKS kid names it. JCS bytes hold
    // no newline, so a signed result can never pass for a checkpoint note (which needs three lines).
    signResult: async (bytes) => ({ alg: dataDir.signers[0].alg, keyId: dataDir.keys[0].keyId, signature: await dataDir.signers[0].sign(bytes) }),
    callerKeys: async (tenant) => (Object.hasOwn(callers, tenant) ? callers[tenant] : []),
  };
  const { app } = createApp(appDeps, metrics);
  let server: ReturnType<typeof serve>;
  try {
    server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, hostname: host, port: opts.port ?? 8787 }, () => resolve(s));
      s.once('error', (e: NodeJS.ErrnoException) => reject(new ConfigError('ERR_CONFIG', `cannot listen on ${host}:${opts.port ?? 8787}: ${e.code ?? e.message}`)));
    });
  } catch (e) {
    await dataDir.close();
    await policy.close();
    throw e;
  }
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    keyId: dataDir.keys[0].keyId,
    dataDir,
    policy,
    close: () =>
      (closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
        });
        await dataDir.close(); // finishes queued and in-flight batches first
        await policy.close();
        for (const p of [...tenantPolicy.values(), ...retired]) await p.close();
      })()),
  };
}
