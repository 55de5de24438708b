// The Worker's app: the same createApp(deps) as Node. Decisions are made here, statelessly;
// the tenant's log object (remote-log.ts) only appends and reads, and hands its log over to new
// secrets. Keys: published from a registry (published-keys.ts), rotated with secrets
// (docs/workers-keys.md), revoked over REST. Built once per isolate.
import { canonicalBytes } from '../canonical/index.js';
import { systemClock } from '../clock.js';
import { codeOf, ConfigError, publicMessage } from '../errors.js';
import { createApp, type VouchApp } from '../http/app.js';
import { createAuthenticator, parseAuthConfig } from '../http/auth.js';
import type { Health } from '../http/deps.js';
import type { KeyAdmin, KeyAppDeps } from '../http/routes-keys.js';
import type { HistoryKey } from '../log/index.js';
import { protectedResourceOf } from '../http/oauth-metadata.js';
import type { Json } from '../interceptors/types.js';
import type { LogPort } from '../store/log-port.js';
import { keyNameOf, originOf, type WorkerEnv } from './env.js';
import { readKeySets, readPublicKeys } from './keys.js';
import { WORKER_KEYS_DOC } from './log-keys.js';
import { keyRegistry, keysHealth, publishedKeySet, publishedOf } from './published-keys.js';
import type { LogObjectRpc } from './log-object-rpc.js';
import { activateWorkerPolicy, type WorkerPolicy, type WorkerPolicyOptions } from './policy.js';
import { remoteLogPort } from './remote-log.js';
import { durableStateStores } from './state-stores.js';
import { unwrapResult } from './rpc-result.js';
import { retentionOf } from './retention.js';
import { witnessingOf } from './witnessing.js';
import { callersOf } from './callers.js';
import { Metrics } from '../http/metrics.js';
import { observedLog } from '../observe/observed-log.js';
import { createOtlpJsonExporter, parseCollectorUrl, type OtlpJsonExporter } from '../observe/otlp-json.js';

export interface WorkerApp extends VouchApp {
  /** The policy in force, read per request (it changes only while an interceptor server is unreachable). */
  policy: WorkerPolicy;
  /** With VOUCH_OTLP: sends the entries appended so far (the entry runs it in ctx.waitUntil, after the answer). */
  telemetry?: OtlpJsonExporter;
}

export interface WorkerAppOptions extends WorkerPolicyOptions {
  /**
   * A tenant's log object. Default: the VOUCH_LOG Durable Object. Tests pass an object built over
   * the same storage with other secrets: what a restart with new secrets is.
   */
  logObject?: (tenant: string) => LogObjectRpc;
}

/** Errors of opening a tenant log that mean this deployment cannot decide for it (for /healthz). */
const CANNOT_DECIDE = new Set(['ERR_KEY_MISMATCH', 'ERR_KEY_MISSING', 'ERR_STORE_INCONSISTENT', 'ERR_STORE', 'ERR_CONFIG']);

function parseAuthVar(text: string | undefined) {
  if (text === undefined || text === '') return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError('ERR_CONFIG', 'var VOUCH_AUTH is not JSON', [{ path: '/VOUCH_AUTH', message: 'not JSON' }]);
  }
  return parseAuthConfig(json, '/VOUCH_AUTH');
}

/** Build the app for these bindings and this resolved config document. */
export async function buildWorkerApp(env: WorkerEnv, configDocument: Json, opts: WorkerAppOptions = {}): Promise<WorkerApp> {
  const keys = readPublicKeys(env);
  const sets = readKeySets(env);
  const keyName = keyNameOf(env);
  const auth = parseAuthVar(env.VOUCH_AUTH);
  // A bad witness config stops the Worker here (ERR_CONFIG on every request), before any log object parses it.
  const witnessing = witnessingOf(env);
  retentionOf(env); // likewise a bad retention policy
  const callers = callersOf(env);
  const metrics = new Metrics();
  const otlpUrl = env.VOUCH_OTLP ? parseCollectorUrl(env.VOUCH_OTLP, 'var VOUCH_OTLP') : undefined;
  // Entries are queued as they are appended and sent after the answer: never on the decision path.
  const telemetry =
    otlpUrl &&
    createOtlpJsonExporter({
      url: otlpUrl,
      entryOf: async (tenant, seq) => unwrapResult(await stubOf(tenant).entry(tenant, seq)),
      onExportError: (signal, items, error) => (metrics.otlpFailed(signal, items), console.log(JSON.stringify({ level: 'warn', msg: 'OTLP export failed', signal, items, error }))),
    });
  const policy = await activateWorkerPolicy(configDocument, durableStateStores(env), opts);
  // The same config document, digests and engines whichever chain is current (see policy.ts).
  const first = await policy.current();
  const activation = {
    chain: first.chainDigest,
    policySet: first.policyDigest,
    chainBytes: canonicalBytes(first.resolved.resolved),
    policyBytes: canonicalBytes(first.resolved.policySource),
    engines: first.engines,
  };
  // The policy in force is recorded in each tenant's log before the first decision an isolate
  // sends it (the object dedups, so concurrent first requests append one `policy` entry). Only
  // finished activations are remembered, and stubs are made per request: no promise or RPC
  // stub crosses from one request to another.
  const stubOf = opts.logObject ?? ((tenant: string) => env.VOUCH_LOG.get(env.VOUCH_LOG.idFromName(tenant)) as unknown as LogObjectRpc);
  const activated = new Set<string>();
  // Tenant logs this isolate could not open (a key that does not match, a log that does not check): /healthz says so.
  const failed = new Map<string, unknown>();
  const publish = async (origin: string, history: HistoryKey[]) => keyRegistry(env).keysPublish(publishedOf(origin, history));
  const logs = async (tenant: string): Promise<LogPort> => {
    const origin = originOf(keyName, tenant);
    const stub = stubOf(tenant);
    if (!activated.has(tenant)) {
      try {
        const a = unwrapResult(await stub.activate(tenant, { ...activation, time: systemClock.isoNow() }));
        await publish(a.origin, a.keys);
        failed.delete(tenant);
      } catch (e) {
        if (CANNOT_DECIDE.has(codeOf(e))) failed.set(tenant, e);
        throw e;
      }
      activated.add(tenant);
    }
    return observedLog(remoteLogPort(stub, tenant, origin, { witnessed: witnessing !== undefined }), tenant, telemetry?.observe);
  };
  const keyAdmin: KeyAdmin = {
    async rotate() {
      throw new ConfigError(
        'ERR_CONFIG',
        `on Workers the signing keys change with the secrets, not at run time: put the new keys in VOUCH_SIGNING_KEY/VOUCH_ED25519_KEY and the outgoing ones in VOUCH_SIGNING_KEY_PREVIOUS/VOUCH_ED25519_KEY_PREVIOUS; each log hands over on its next request (${WORKER_KEYS_DOC})`,
      );
    },
    async revoke(tenant, keyId, after, time, by) {
      await logs(tenant); // activated (and handed over) first, as for a decision
      const r = unwrapResult(await stubOf(tenant).revoke(tenant, keyId, after, time, by));
      await publish(originOf(keyName, tenant), r.keys);
      return { key: r.key, seq: r.seq };
    },
    async history(tenant) {
      await logs(tenant);
      const h = unwrapResult(await stubOf(tenant).keyHistory(tenant));
      const last = h[h.length - 1];
      return { keys: h, current: { name: last?.name ?? keyName, keys: h.filter((k) => k.window.to === undefined) } };
    },
  };
  const health = async (): Promise<Health> => {
    const p = policy.health();
    if (!p.ok) return p;
    // Public: the reason names no tenant (issue 35), as Node's (http/log-lifecycle.ts).
    for (const [tenant, e] of failed) return { ok: false, code: codeOf(e), reason: `a tenant log cannot be opened: ${withoutName(publicMessage(e), tenant)}` };
    return keysHealth(keyName, sets, await keyRegistry(env).keysPublished());
  };
  const deps: KeyAppDeps = {
    logs,
    policy: () => policy.current(),
    health,
    authenticate: auth && createAuthenticator(auth, () => systemClock.now()),
    protectedResource: auth && protectedResourceOf(auth),
    keys: {
      jwks: keys.jwks,
      vkeys: keys.vkeys,
      keyId: keys.keyId,
      published: async () => publishedKeySet(keyName, sets, await keyRegistry(env).keysPublished()),
      of: async (tenant) => publishedKeySet(keyName, sets, await keyRegistry(env).keysPublished(), originOf(keyName, tenant)),
    },
    keyAdmin,
    clock: systemClock,
    logLine: (line) => console.log(JSON.stringify(line)),
    ...(callers && { callerKeys: callers.callerKeys, requireCallerSignature: callers.requireCallerSignature }),
    // Witness progress and the R2 archive's record live in each log object (its alarm submits and
    // writes): read for the logs this isolate opened.
    ...((witnessing || env.VOUCH_ARCHIVE) && {
      beforeMetrics: async (metrics) => {
        await Promise.all(
          [...activated].map(async (tenant) => {
            if (witnessing) {
              const progress = unwrapResult(await stubOf(tenant).witnessProgress(tenant));
              for (const p of progress) metrics.witnessProgress(tenant, p.witness, p.logSize, p.cosignedSize, p.failures);
            }
            const archive = env.VOUCH_ARCHIVE && unwrapResult(await stubOf(tenant).archiveStatus(tenant));
            if (archive) metrics.archiveProgress(tenant, archive);
          }),
        );
      },
    }),
  };
  const app = createApp(deps, metrics);
  return { ...app, policy, ...(telemetry && { telemetry }) };
}

/** `message` with the tenant's name (alone, or in its origin) as `<tenant>`: for public answers. */
function withoutName(message: string, tenant: string): string {
  return message.replace(new RegExp(`(?<![a-z0-9_-])${tenant.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![a-z0-9_-])`, 'g'), '<tenant>');
}
