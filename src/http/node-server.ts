// The Node entry (Node only): data directory, config, policy, createApp on @hono/node-server,
// graceful shutdown (stop accepting, finish the batch in flight, close the databases).
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { activatePolicy, remoteHealth, type Activated, loadPinnedPolicy, newestPolicyRecord, recordActivation } from '../decide/index.js';
import { assertRemotesAllowed, cedarVersion, remoteAllowListOf } from '../policy/index.js';
import { parseCallerKeys } from '../receipt/index.js';
import { ConfigError } from '../errors.js';
import { createMemoryStateStores } from '../interceptors/builtin/index.js';
import { defaultConfigPath, loadConfigFile } from '../policy/load-config.js';
import { logPortOf, type LogPort } from '../store/log-port.js';
import { signedPrefix } from '../store/signed-prefix.js';
import { defaultArchiveRoot, initDataDir, listTenants, logPath, openDataDir, openSqliteStore, readKeySeeds, type DataDir, type TenantLog } from '../store/node.js';
import { createLogArchiver, type LogArchiver } from './log-archiver.js';
import { bytesEqual, utf8 } from '../canonical/index.js';
import { noteKeyId } from '../crypto/index.js';
import { scheduleEngineRefresh } from '../policy/engine-refresh.js';
import { nodeEd25519PublicKeyFromSeed, nodeVerifyEd25519 } from '../crypto/node.js';
import { parseNote } from '../log/index.js';
import { createLogLifecycle } from './log-lifecycle.js';
import { leasedPort } from './leased-port.js';
import { createTenantPool, type TenantPoolStats } from './tenant-pool.js';
import { describeMldsaBackend } from '../crypto/node.js';
import { systemClock } from '../clock.js';
import { retentionTargetOf } from '../audit/index.js';
import { readRetentionPolicy, startRetention } from './retention-schedule.js';
import { createApp } from './app.js';
import type { AuditAppDeps, PolicyAdmin } from './routes-audit.js';
import type { KeyAdmin, KeyAppDeps } from './routes-keys.js';
import { createAuthenticator, type AuthConfig } from './auth.js';
import { protectedResourceOf } from './oauth-metadata.js';
import type { Limits } from './deps.js';
import { Metrics } from './metrics.js';
import { parseAllowedOrigins } from './web-guard.js';
import type { OtelExporter } from '../observe/otel.js';
import { openNodeWitnessing, readWitnessingConfig, type NodeWitnessing } from '../witness/node-log.js';
import { openNodeTimestamping, readPinnedCertificates, type NodeTimestamping } from '../timestamp/node-tsa.js';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1)$/;

/** Logs looked at for policies already validated (a few: the check is a cache, not a scan). */
const VALIDATED_LOGS_READ = 8;

/**
 * The policy sets the newest `policy` entries of the logs here say this Cedar version validated
 * when they were put in force: start-up skips validating them again (policy/policy-set.ts), the
 * largest part of loading the policy. Read-only, a few indexed reads a log. Evidence is an entry
 * included in the tree of the newest checkpoint whose Ed25519 line verifies with this data
 * directory's key (node:crypto, no warm-up; a directory without an Ed25519 key always validates):
 * a log file made up by someone who can write files but not sign is none. Anything unreadable or
 * inconsistent is no evidence, and the policy is validated as usual. Validation is the author's
 * check, not a guard (a policy that fails it still evaluates, and every evaluation error denies).
 */
export function validatedPolicySets(data: string): Set<string> {
  const out = new Set<string>();
  let edPublicKey: Uint8Array | undefined;
  try {
    const seed = readKeySeeds(data).ed25519Seed;
    edPublicKey = seed && nodeEd25519PublicKeyFromSeed(seed);
  } catch {
    return out;
  }
  if (!edPublicKey) return out;
  const signedByUs = (note: string): boolean => {
    const n = parseNote(note);
    const text = utf8.encode(n.text);
    return n.signatures.some((s) => bytesEqual(s.keyId, noteKeyId(s.name, 'Ed25519', edPublicKey!)) && nodeVerifyEd25519(edPublicKey!, text, s.signature));
  };
  for (const tenant of listTenants(data).slice(0, VALIDATED_LOGS_READ)) {
    let store: ReturnType<typeof openSqliteStore> | undefined;
    try {
      store = openSqliteStore(logPath(data, tenant), { readonly: true });
      const cp = store.latestCheckpoint();
      // What that signed checkpoint covers, never entries after it (anyone can add those: issue 35).
      const rec = cp && signedByUs(cp.note) ? newestPolicyRecord(signedPrefix(store, cp.size)) : undefined;
      const engines = rec?.engines as { cedar?: unknown } | undefined;
      if (rec && engines?.cedar === cedarVersion) out.add(rec.policySet);
    } catch {
      /* no evidence */
    } finally {
      try {
        store?.close();
      } catch {
        /* closing a read-only handle */
      }
    }
  }
  return out;
}

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
  /** Every request must carry a caller signature by a key in `callers` (else a recorded deny). */
  requireCallerSignature?: boolean;
  /** Web origins besides the service's own that may call it (`--allow-origin`, repeated); auth's `allowOrigins` add to them. */
  allowOrigins?: string[];
  logLine?: (line: Record<string, unknown>) => void;
  /** Sign and publish a checkpoint after a log has been idle this long with new entries (default 60 s; 0: never). Also signed on clean shutdown. */
  idleCheckpointMs?: number;
  /** Entries per page of the background leaf audit (default 2048). */
  auditPage?: number;
  /** Milliseconds after a log opens before its background audit starts (default 1000): start-up and the first decisions go first. */
  auditDelayMs?: number;
  /** OTLP/HTTP collector base URL (`--otlp`): each durable entry exported as a span and a log record. Off when absent. */
  otlp?: string;
  /** Payload retention file (`--retention FILE`, audit/retention.ts); default <data>/retention.json when present. Off when neither. */
  retention?: string;
  /** Witness config file (`--witnesses FILE`, witness/config.ts); default <data>/witnesses.json when present. Off when neither. */
  witnesses?: string;
  /** Tests: how often the time-stamping cadence is looked at, and the first retry delay (timestamp/stamper.ts). */
  timestampTiming?: { tickMs?: number; backoffMs?: number };
  /** Tenant logs kept open at most (`--max-open-tenants`, default 256): the least recently used idle one closes first. */
  maxOpenTenants?: number;
  /** Close a tenant log unused this long, ms (`--tenant-idle`, default 300 s; 0: only the cap closes logs). */
  tenantIdleMs?: number;
  /** Tile archive root (`--archive DIR`, default <data>/archive; false: none): sealed tiles written after commits (docs/archive.md). */
  archive?: string | false;
  /** Milliseconds after a commit before the archive syncs (default 1000). */
  archiveDelayMs?: number;
}

/** At most this many tenant logs are opened at start (all of them, when there are no more): above it, each opens at its first use. */
export const EAGER_TENANTS = 16;
export const DEFAULT_MAX_OPEN_TENANTS = 256;
export const DEFAULT_TENANT_IDLE_MS = 300_000;

/** The tenant logs start-up opens: every one on disk when there are few, none when there are many. */
export function tenantsOpenedAtStart(data: string, maxOpen = DEFAULT_MAX_OPEN_TENANTS): string[] {
  const onDisk = listTenants(data);
  return onDisk.length <= Math.min(EAGER_TENANTS, maxOpen) ? onDisk : [];
}

export interface RunningServer {
  url: string;
  port: number;
  keyId: string;
  /** The ML-DSA-65 backend checkpoints are signed with (crypto/mldsa-backend.ts). */
  mldsa: string;
  dataDir: DataDir;
  policy: Activated;
  /** The config file the service started from (`policy` is built from it). */
  configPath: string;
  /** How many witnesses the witness config names (0 when none: a cut of the log's end goes unseen). */
  witnesses: number;
  /** The policy in force for a tenant (opening its log and recording the start-up policy first). */
  policyOf(tenant: string): Promise<Activated>;
  /** The tenant logs opened at start (tenantsOpenedAtStart); others open at their first use. */
  openedAtStart: string[];
  /** Open tenant logs now, and opens and closes since start (reopens included). */
  tenantStats(): TenantPoolStats;
  /** Close the tenant logs idle for the idle interval now (the timer does it on its own). */
  closeIdleTenants(): Promise<void>;
  close(): Promise<void>;
}

/** Six months, rounded up (EU AI Act Art. 19 and 26(6): logs kept at least six months). */
const SIX_MONTHS_DAYS = 184;

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  if (!opts.auth && !LOOPBACK.test(host)) {
    throw new ConfigError('ERR_CONFIG', `refusing to listen on ${host} without auth: development mode (no tokens) binds to loopback only; configure --auth to serve other hosts`);
  }
  const callers = opts.callers === undefined ? {} : parseCallerKeys(opts.callers); // before anything is opened
  if (opts.requireCallerSignature && Object.values(callers).every((keys) => keys.length === 0)) {
    throw new ConfigError('ERR_CONFIG', 'requireCallerSignature needs caller keys (--callers FILE): without them every request would be denied');
  }
  const allowOrigins = [...parseAllowedOrigins(opts.allowOrigins, '/allowOrigins'), ...parseAllowedOrigins(opts.auth?.allowOrigins, '/auth/allowOrigins')];
  // OpenTelemetry is loaded only when exporting: its modules take longer to load than the rest of start-up.
  const otelModule = opts.otlp === undefined ? undefined : await import('../observe/otel.js');
  if (opts.otlp !== undefined) otelModule!.parseOtlpUrl(opts.otlp); // a bad URL is a start-up error, before anything is opened
  initDataDir(opts.data); // first run: keys generated; existing keys are kept
  const witnessCfg = readWitnessingConfig(opts.data, opts.witnesses); // a bad file is a start-up error
  const retentionPolicy = readRetentionPolicy(opts.data, opts.retention); // likewise
  const metrics = new Metrics();
  const otel: OtelExporter | undefined =
    opts.otlp === undefined
      ? undefined
      : otelModule!.createOtelExporter({
          url: opts.otlp,
          onExportError: (signal, n, error) => (metrics.otlpFailed(signal, n), opts.logLine?.({ level: 'warn', msg: 'OTLP export failed', signal, items: n, error })),
          // An execution's authorization, when this process did not export it: its span joins the caller's trace from the log.
          entryOf: async (tenant, seq) => (openedLogs ? (await openedLogs(tenant)).entry(seq) : undefined),
        });
  let openedLogs: ((tenant: string) => Promise<LogPort>) | undefined;
  // The tile archive (issue 40): written after commits, read by the background audit for sealed history.
  const archiveRoot = opts.archive === false ? undefined : (opts.archive ?? defaultArchiveRoot(opts.data));
  let archiver: LogArchiver | undefined;
  // The log thread starts, and opens and checks each tenant's log, while this thread loads and
  // activates the policy (Cedar, schemas): the two largest parts of start-up run side by side.
  const opening = openDataDir(opts.data, {
    thread: true,
    logThread: true,
    keyName: opts.keyName,
    monotonic: systemClock.monotonic,
    onBatch: (t, s) => (metrics.batch(t, s.entries, s.size, s.coverMs), archiver?.schedule(t)),
    archiveRoot,
    auditPage: opts.auditPage,
    auditDelayMs: opts.auditDelayMs,
    onAudit: (t, p) => {
      metrics.audit(t, { ...p, failed: !!p.error });
      if (p.error) opts.logLine?.({ level: 'error', msg: 'log audit found a mismatch: signing stopped', tenant: t, code: p.error.code, error: p.error.message });
    },
  });
  // Few tenants: each is opened (and checked) in the log thread now, beside the policy's loading.
  // Many: none is, and each opens at its first use (issue 40: start-up does not grow with them).
  const atStart = tenantsOpenedAtStart(opts.data, opts.maxOpenTenants);
  // Errors surface where `opening` is awaited below; a failed open is retried (and reported) by logs().
  opening.then((d) => atStart.forEach((t) => { try { d.log(t); } catch { /* reported by logs() */ } }), () => undefined);
  let policy: Activated;
  // One set of live state stores for every policy: a hot swap keeps rate counters and taint.
  const state = createMemoryStateStores();
  // Per tenant: a pinned or hot-swapped policy; tenants without one use the config file's.
  const tenantPolicy = new Map<string, Activated>();
  const retired: Activated[] = [];
  const configPath = opts.config ?? defaultConfigPath(opts.data);
  try {
    const validated = validatedPolicySets(opts.data);
    policy = await activatePolicy(await loadConfigFile(configPath, { validated: (d) => validated.has(d) }), { state, remote: 'connect' });
  } catch (e) {
    await (await opening.catch(() => undefined))?.close();
    await otel?.shutdown();
    throw e;
  }
  const dataDir = await opening;
  archiver = archiveRoot === undefined ? undefined : createLogArchiver({ root: archiveRoot, delayMs: opts.archiveDelayMs, logLine: opts.logLine, storeOf: (t) => (dataDir.openTenants().includes(t) ? dataDir.log(t).store : undefined) });
  // The interceptor servers a tenant's policy may name (posted, or pinned in its log): the start-up
  // file's allow-list and its own remotes. The start-up file itself is the operator's (issue 35).
  const remoteAllow = remoteAllowListOf(policy.resolved.config);
  // Witnessing (issue 18): cosignatures are collected on their own timer; decisions never wait for them.
  const witnessing: NodeWitnessing | undefined = witnessCfg && openNodeWitnessing({ data: opts.data, config: witnessCfg, logLine: opts.logLine, onStatus: (t, st) => metrics.witness(t, st.witness, st.logSize, st.cosignedSize, st.ok) });
  // RFC 3161 time-stamping (issue 41): the start-up file's `timestamping`, on its own timer after checkpoints are signed.
  const tsaCfg = policy.resolved.config.timestamping;
  let timestamping: NodeTimestamping | undefined;
  try {
    timestamping = tsaCfg && openNodeTimestamping({ data: opts.data, config: tsaCfg, pinned: readPinnedCertificates(tsaCfg.certificates, configPath), logLine: opts.logLine, onStatus: (t, st) => metrics.timestamp(t, st), ...opts.timestampTiming });
  } catch (e) {
    await witnessing?.close();
    await dataDir.close();
    await policy.close();
    throw e;
  }
  const lifecycle = createLogLifecycle({ data: opts.data, dataDir, metrics, logLine: opts.logLine, idleCheckpointMs: opts.idleCheckpointMs ?? 60_000 });
  // Tenant logs open at first use and close when idle, at most maxOpenTenants at once (tenant-pool.ts).
  const pool = createTenantPool<{ port: LogPort; log: TenantLog }>({
    maxOpen: opts.maxOpenTenants ?? DEFAULT_MAX_OPEN_TENANTS,
    idleMs: opts.tenantIdleMs ?? DEFAULT_TENANT_IDLE_MS,
    now: () => systemClock.monotonic(),
    open: (tenant) => {
      const opened = (async () => {
        const t = dataDir.log(tenant);
        await t.ready; // checked against its newest signed checkpoint, as at start
        const raw = logPortOf(t.origin, t.store, t.appender);
        const port = witnessing ? witnessing.track(tenant, raw) : raw;
        timestamping?.track(tenant, raw); // the notes as the log signed them: the stamped bytes
        // A policy pinned or hot-swapped before an idle close is still the one in force: loaded once.
        if (!tenantPolicy.has(tenant)) {
          const pinned = await loadPinnedPolicy(t.store, state, 'connect', remoteAllow);
          if (pinned) tenantPolicy.set(tenant, pinned);
        }
        await recordActivation(port, t.store, tenantPolicy.get(tenant) ?? policy, systemClock.isoNow(), { by: 'start-up' });
        archiver?.schedule(tenant); // what a crash or a closed log left unarchived
        return { port, log: t };
      })().catch(async (e: unknown) => {
        // A log refused at open is closed again (its lock released), so that a later use retries it;
        // the refusal is answered only once that close is done, so that no retry is handed the
        // closing log (a 503 ERR_STORE_CLOSED in place of the refusal's own code).
        await dataDir.closeLog(tenant).catch(() => undefined);
        throw e;
      });
      lifecycle.track(tenant, opened.then((o) => o.log));
      return opened;
    },
    close: async (tenant) => {
      await lifecycle.release(tenant); // a checkpoint over what it holds, published, before it closes
      // Not archived here: a close waiting for the archive's one lane would keep this log's file
      // handles open behind every other tenant's sync (many tenants). Its tiles were synced after its
      // last commit; the closing checkpoint's are written at its next open.
      archiver?.forget(tenant);
      await witnessing?.untrack(tenant);
      await timestamping?.untrack(tenant);
      await dataDir.closeLog(tenant);
      opts.logLine?.({ level: 'debug', msg: 'tenant log closed (idle)', tenant });
    },
    onCloseError: (tenant, e) => opts.logLine?.({ level: 'error', msg: 'tenant log close failed', tenant, code: (e as { code?: string }).code, error: (e as Error).message }),
  });
  metrics.tenantLogsFrom(() => pool.stats());
  const ports = new Map<string, LogPort>();
  /** The tenant's port (stable across idle closes: every call reopens the log as needed); resolves once the log is open and checked. */
  const logs = async (tenant: string): Promise<LogPort> => {
    (await pool.acquire(tenant)).release(); // opens it now: a log refused at open is this call's error
    let p = ports.get(tenant);
    if (!p) ports.set(tenant, (p = leasedPort(dataDir.originOf(tenant), tenant, pool, { witnessed: witnessing !== undefined })));
    return p;
  };
  openedLogs = logs;
  // POST /v1/policy: validate and activate fully, record it (documents, entry, pin), then swap.
  // Any failure leaves the old policy in force. Requests already running finish on the old one.
  // One activation at a time, so the last `policy` entry always names the policy in force.
  let activating: Promise<unknown> = Promise.resolve();
  const policyAdmin: PolicyAdmin = {
    activate(tenant, resolved, by) {
      const run = activating.then(() => activateNow(tenant, resolved, by));
      activating = run.catch(() => undefined);
      return run;
    },
  };
  const activateNow: PolicyAdmin['activate'] = async (tenant, resolved, by) => {
    assertRemotesAllowed(resolved.config, remoteAllow, { posted: true }); // before anything, connections included
    await logs(tenant);
    const next = await activatePolicy(resolved, { state, remote: 'connect', remoteAllow });
    try {
      await pool.use(tenant, ({ port, log: t }) => recordActivation(port, t.store, next, systemClock.isoNow(), { pinned: true, by }));
    } catch (e) {
      await next.close();
      throw e;
    }
    const old = tenantPolicy.get(tenant);
    tenantPolicy.set(tenant, next);
    if (old) retired.push(old); // closed at shutdown: in-flight requests may still hold it
    return { chain: next.chainDigest, policySet: next.policyDigest, interceptors: next.interceptors.length };
  };
  // Open the logs opened at start (each checked in O(log n) against its newest signed checkpoint,
  // then audited in the background): /healthz is ready once they all are. Others open at first use.
  for (const tenant of atStart) {
    logs(tenant).catch((e) => opts.logLine?.({ level: 'error', msg: 'log refused: not signing', tenant, code: (e as { code?: string }).code, error: (e as Error).message }));
  }
  lifecycle.start();
  pool.start();
  const short = retentionPolicy && [retentionPolicy.payloadDays, ...Object.values(retentionPolicy.tenants)].filter((d): d is number => typeof d === 'number' && d < SIX_MONTHS_DAYS);
  if (short?.length) opts.logLine?.({ level: 'warn', msg: `payload retention under six months (${Math.min(...short)} days): the EU AI Act (Art. 19, 26(6)) has high-risk systems keep their logs at least six months unless other law says otherwise (docs/retention.md)` });
  if (retentionPolicy) metrics.retentionOn();
  const retention =
    retentionPolicy &&
    startRetention({
      policy: retentionPolicy,
      tenants: () => listTenants(opts.data),
      target: async (tenant) => retentionTargetOf(await logs(tenant)),
      now: () => systemClock.isoNow(),
      onRun: (tenant, r) => {
        metrics.retentionRun(r.erased, false);
        if (r.seqs.length) opts.logLine?.({ level: 'info', msg: 'payload retention', tenant, erased: r.erased, entries: r.seqs, cutoff: r.cutoff, more: r.more });
      },
      onError: (tenant, e) => {
        metrics.retentionRun(0, true);
        opts.logLine?.({ level: 'error', msg: 'payload retention failed (tried again at the next pass)', tenant, code: (e as { code?: string }).code, error: (e as Error).message });
      },
    });
  // Key lifecycle (routes-keys.ts): one change at a time, after every open log is ready.
  let keying: Promise<unknown> = Promise.resolve();
  const serial = <T>(f: () => Promise<T>): Promise<T> => {
    const run = keying.then(f);
    keying = run.catch(() => undefined);
    return run;
  };
  const keyAdmin: KeyAdmin = {
    rotate: (time, by) => serial(async () => {
      // Every log rotates (each opened for it, then the ones the pool does not hold closed again).
      for (const t of listTenants(opts.data)) await logs(t);
      await pool.stop();
      try {
        return await dataDir.rotateKeys(time, by);
      } finally {
        for (const t of dataDir.openTenants()) if (!pool.isOpen(t)) await dataDir.closeLog(t);
        pool.start();
      }
    }),
    revoke: (tenant, keyId, after, time, by) => serial(() => pool.use(tenant, () => dataDir.revokeKey(tenant, keyId, after, time, by))),
    history: (tenant) => pool.use(tenant, () => dataDir.keyHistory(tenant)),
  };
  const appDeps: AuditAppDeps & KeyAppDeps = {
    keyAdmin,
    logs,
    ...(timestamping && { timestamps: timestamping.reads }),
    mldsa: describeMldsaBackend(),
    policy: async (tenant) => {
      await logs(tenant);
      return tenantPolicy.get(tenant) ?? policy;
    },
    policyAdmin,
    authenticate: opts.auth && createAuthenticator(opts.auth, () => systemClock.now()),
    protectedResource: opts.auth && protectedResourceOf(opts.auth),
    // Read per request: the key history changes with a rotation or revocation (issue 18).
    keys: {
      get jwks() {
        return dataDir.jwks();
      },
      get vkeys() {
        return dataDir.vkeys();
      },
      of: (tenant) => ({ jwks: dataDir.jwks(tenant), vkeys: dataDir.vkeys(tenant) }),
      keyId: dataDir.keys[0].keyId,
    },
    clock: systemClock,
    limits: opts.limits,
    allowOrigins,
    logLine: opts.logLine,
    // Ready when every log is open and signing and no remote interceptor's latest call failed (issue 38).
    health: () => {
      const logsReady = lifecycle.health();
      if (!logsReady.ok) return logsReady;
      for (const p of [policy, ...tenantPolicy.values()]) {
        const r = remoteHealth(p);
        if (!r.ok) return r;
      }
      return logsReady;
    },
    // The checkpoint key (ML-DSA-65) signs invoke results too (its JWKS kid names it), but under the
    // results' own FIPS 204 context: a result, whatever bytes a caller shaped, never verifies as a
    // checkpoint or note (empty context), nor a checkpoint as a result (issue 35).
    signResult: async (bytes, context) => ({ alg: 'ML-DSA-65', keyId: dataDir.keys[0].keyId, signature: await dataDir.signInContext(bytes, context) }),
    // COSE receipts (RFC 9942) by the current keys; each refuses a root it did not sign (cose-sign.ts).
    coseSigners: (tenant) => ({
      keyNames: [dataDir.originOf(tenant), dataDir.keyName],
      // ML-DSA-65 and Ed25519: the keys that sign the note's text (ML-DSA-44 signs a cosignature message).
      signers: dataDir.keys.flatMap((k) => {
        const s = dataDir.signers.find((x) => x.alg === k.alg);
        return s && (k.alg === 'ML-DSA-65' || k.alg === 'Ed25519') ? [{ alg: k.alg, publicKey: k.publicKey, sign: (m: Uint8Array) => s.sign(m) }] : [];
      }),
    }),
    callerKeys: async (tenant) => (Object.hasOwn(callers, tenant) ? callers[tenant] : []),
    requireCallerSignature: opts.requireCallerSignature === true,
    observe: otel && ((e) => otel.observe(e)),
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
    await otel?.shutdown();
    throw e;
  }
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  // Start-up over: decisions get an engine instance under V8's own tiering budget (engine-refresh.ts).
  const stopRefresh = scheduleEngineRefresh();
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    keyId: dataDir.keys[0].keyId,
    mldsa: describeMldsaBackend(),
    dataDir,
    policy,
    configPath,
    witnesses: witnessCfg?.witnesses.length ?? 0,
    policyOf: async (tenant) => {
      await logs(tenant);
      return tenantPolicy.get(tenant) ?? policy;
    },
    openedAtStart: atStart,
    tenantStats: () => pool.stats(),
    closeIdleTenants: () => pool.sweep(),
    close: () =>
      (closing ??= (async () => {
        stopRefresh?.();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
        });
        await retention?.stop(); // a pass under way finishes its batch
        await pool.stop(); // idle closes under way finish (each signs and publishes its checkpoint)
        await lifecycle.shutdown(); // after the batches in flight: a checkpoint over everything committed
        await archiver?.close(dataDir.openTenants()); // that checkpoint and its tiles archived
        await witnessing?.close(); // stops submitting; a witness that is down is not waited for beyond its timeout
        await timestamping?.close(); // a request in flight ends within its timeout
        await otel?.shutdown(); // exports what is queued (bounded by the exporter's timeout)
        await dataDir.close(); // finishes queued and in-flight batches first
        await policy.close();
        for (const p of [...tenantPolicy.values(), ...retired]) await p.close();
      })()),
  };
}
