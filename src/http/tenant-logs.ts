// The Node service's tenant logs: each opened at first use (checked, tracked by the witnessing,
// time-stamping and archive), closed when idle through the tenant pool, with the policy in force for it.
import { activatePolicy, type Activated, loadPinnedPolicy, recordActivation } from '../decide/index.js';
import { assertRemotesAllowed, type RemoteAllowList } from '../policy/index.js';
import type { StateStores } from '../interceptors/builtin/index.js';
import { logPortOf, type LogPort } from '../store/log-port.js';
import { listTenants, type DataDir, type TenantLog } from '../store/node.js';
import { systemClock } from '../clock.js';
import type { NodeWitnessing } from '../witness/node-log.js';
import type { NodeTimestamping } from '../timestamp/node-tsa.js';
import type { LogArchiver } from './log-archiver.js';
import type { createLogLifecycle } from './log-lifecycle.js';
import { leasedPort } from './leased-port.js';
import { createTenantPool, type TenantPool } from './tenant-pool.js';
import type { PolicyAdmin } from './routes-audit.js';

/** At most this many tenant logs are opened at start (all of them, when there are no more): above it, each opens at its first use. */
export const EAGER_TENANTS = 16;
export const DEFAULT_MAX_OPEN_TENANTS = 256;
export const DEFAULT_TENANT_IDLE_MS = 300_000;

/** The tenant logs start-up opens: every one on disk when there are few, none when there are many. */
export function tenantsOpenedAtStart(data: string, maxOpen = DEFAULT_MAX_OPEN_TENANTS): string[] {
  const onDisk = listTenants(data);
  return onDisk.length <= Math.min(EAGER_TENANTS, maxOpen) ? onDisk : [];
}

export interface TenantLogsOptions {
  dataDir: DataDir;
  lifecycle: ReturnType<typeof createLogLifecycle>;
  /** The start-up config file's policy: in force for every tenant without a pinned or posted one. */
  policy: Activated;
  /** One set of live state stores for every policy: a hot swap keeps rate counters and taint. */
  state: StateStores;
  remoteAllow: RemoteAllowList;
  witnessing?: NodeWitnessing;
  timestamping?: NodeTimestamping;
  archiver?: LogArchiver;
  maxOpenTenants?: number;
  tenantIdleMs?: number;
  logLine?: (line: Record<string, unknown>) => void;
}

export interface TenantLogs {
  pool: TenantPool<{ port: LogPort; log: TenantLog }>;
  /** The tenant's port (stable across idle closes: every call reopens the log as needed); resolves once the log is open and checked. */
  logs(tenant: string): Promise<LogPort>;
  /** The policy in force for a tenant (opening its log and recording the start-up policy first). */
  policyOf(tenant: string): Promise<Activated>;
  policyAdmin: PolicyAdmin;
  /** The pinned or hot-swapped policies now in force (tenants without one use the start-up policy). */
  tenantPolicies(): Activated[];
  /** Closes the tenant policies, the ones swapped out included (the start-up policy is the caller's). */
  closePolicies(): Promise<void>;
}

export function createTenantLogs(opts: TenantLogsOptions): TenantLogs {
  const { dataDir, lifecycle, policy, state, remoteAllow, witnessing, timestamping, archiver } = opts;
  // Per tenant: a pinned or hot-swapped policy; tenants without one use the config file's.
  const tenantPolicy = new Map<string, Activated>();
  const retired: Activated[] = [];
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
  const ports = new Map<string, LogPort>();
  /** The tenant's port (stable across idle closes: every call reopens the log as needed); resolves once the log is open and checked. */
  const logs = async (tenant: string): Promise<LogPort> => {
    (await pool.acquire(tenant)).release(); // opens it now: a log refused at open is this call's error
    let p = ports.get(tenant);
    if (!p) ports.set(tenant, (p = leasedPort(dataDir.originOf(tenant), tenant, pool, { witnessed: witnessing !== undefined })));
    return p;
  };
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
  return {
    pool,
    logs,
    policyOf: async (tenant) => {
      await logs(tenant);
      return tenantPolicy.get(tenant) ?? policy;
    },
    policyAdmin,
    tenantPolicies: () => [...tenantPolicy.values()],
    closePolicies: async () => {
      for (const p of [...tenantPolicy.values(), ...retired]) await p.close();
    },
  };
}
