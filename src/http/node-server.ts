// The Node entry (Node only): data directory, config, policy, createApp on @hono/node-server,
// graceful shutdown (stop accepting, finish the batch in flight, close the databases).
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { activatePolicy, type Activated } from '../decide/index.js';
import { remoteAllowListOf } from '../policy/index.js';
import { parseCallerKeys } from '../receipt/index.js';
import { ConfigError } from '../errors.js';
import { createMemoryStateStores } from '../interceptors/builtin/index.js';
import { defaultConfigPath, loadConfigFile } from '../policy/load-config.js';
import type { LogPort } from '../store/log-port.js';
import { defaultArchiveRoot, initDataDir, listTenants, openDataDir } from '../store/node.js';
import { createLogArchiver, type LogArchiver } from './log-archiver.js';
import { scheduleEngineRefresh } from '../policy/engine-refresh.js';
import { createLogLifecycle } from './log-lifecycle.js';
import { describeMldsaBackend } from '../crypto/node.js';
import { systemClock } from '../clock.js';
import { retentionTargetOf } from '../audit/index.js';
import { readRetentionPolicy, startRetention } from './retention-schedule.js';
import { createApp } from './app.js';
import { Metrics } from './metrics.js';
import { parseAllowedOrigins } from './web-guard.js';
import type { OtelExporter } from '../observe/otel.js';
import { openNodeWitnessing, readWitnessingConfig, type NodeWitnessing } from '../witness/node-log.js';
import { openNodeTimestamping, readPinnedCertificates, type NodeTimestamping } from '../timestamp/node-tsa.js';
import { nodeAppDeps } from './node-app-deps.js';
import { createNodeKeyAdmin } from './node-key-admin.js';
import type { RunningServer, ServeOptions } from './serve-options.js';
import { createTenantLogs, tenantsOpenedAtStart } from './tenant-logs.js';
import { validatedPolicySets } from './validated-policy-sets.js';

export type { RunningServer, ServeOptions } from './serve-options.js';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1)$/;

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
  archiver = archiveRoot === undefined ? undefined : createLogArchiver({ root: archiveRoot, delayMs: opts.archiveDelayMs, logLine: opts.logLine, onPass: (t, p) => metrics.archivePass(t, p), storeOf: (t) => (dataDir.openTenants().includes(t) ? dataDir.log(t).store : undefined) });
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
  const tenants = createTenantLogs({
    dataDir,
    lifecycle,
    policy,
    state,
    remoteAllow,
    witnessing,
    timestamping,
    archiver,
    maxOpenTenants: opts.maxOpenTenants,
    tenantIdleMs: opts.tenantIdleMs,
    logLine: opts.logLine,
  });
  const { pool, logs } = tenants;
  metrics.tenantLogsFrom(() => pool.stats());
  openedLogs = logs;
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
  const keyAdmin = createNodeKeyAdmin({ data: opts.data, dataDir, pool, logs });
  const appDeps = nodeAppDeps({ opts, allowOrigins, callers, dataDir, policy, tenants, keyAdmin, lifecycle, timestamping, otel });
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
    policyOf: tenants.policyOf,
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
        await tenants.closePolicies();
      })()),
  };
}
