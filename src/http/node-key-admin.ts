// Key lifecycle of the Node service (the KeyAdmin port of routes-keys.ts): rotation across every
// tenant log, revocation and history, one change at a time.
import type { LogPort } from '../store/log-port.js';
import { listTenants, type DataDir } from '../store/node.js';
import type { KeyAdmin } from './routes-keys.js';
import type { TenantPool } from './tenant-pool.js';

export interface NodeKeyAdminOptions {
  data: string;
  dataDir: DataDir;
  pool: TenantPool<unknown>;
  /** Opens a tenant's log (tenant-logs.ts). */
  logs(tenant: string): Promise<LogPort>;
}

export function createNodeKeyAdmin({ data, dataDir, pool, logs }: NodeKeyAdminOptions): KeyAdmin {
  // One change at a time, after every open log is ready.
  let keying: Promise<unknown> = Promise.resolve();
  const serial = <T>(f: () => Promise<T>): Promise<T> => {
    const run = keying.then(f);
    keying = run.catch(() => undefined);
    return run;
  };
  return {
    rotate: (time, by) => serial(async () => {
      // Every log rotates (each opened for it, then the ones the pool does not hold closed again).
      for (const t of listTenants(data)) await logs(t);
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
}
