// The key histories of logs on disk a data directory has not opened (Node only), read-only, for
// its published key set (JWKS, vkeys): a history with problems makes the key set refuse.
import { StoreError } from '../errors.js';
import type { DataDirKeys } from './data-dir-keys.js';
import { tenantKeysForVerify, type TenantKeys } from './tenant-keys.js';
import { openSqliteStore } from './sqlite.js';
import { listTenants, logPath } from './data-dir-layout.js';

/**
 * The key histories of logs on disk this process has not opened (read-only), for the published
 * key set. Only a history without problems is published, and a log whose history has problems
 * (an index hiding a revocation, a forged key entry: issue 35) makes the key set refuse, with the
 * reason, rather than publish keys without what the log says of them. `only`: that tenant's alone.
 */
export function unopenedKeyHistories(dir: string, keeper: DataDirKeys, keyName: string, originOf: (tenant: string) => string, only?: string): TenantKeys[] {
  return listTenants(dir)
    .filter((t) => !keeper.tenants.has(t) && (only === undefined || t === only))
    .flatMap((t) => {
      let store;
      try {
        store = openSqliteStore(logPath(dir, t), { readonly: true });
      } catch {
        return [];
      }
      try {
        // Signed key entries only: one in an unsigned tail is anyone's until that tail is signed.
        const v = tenantKeysForVerify(store, store.meta('origin') ?? originOf(t), keeper.current.keys, keyName, { tail: false });
        if (v.problems.length) throw new StoreError('ERR_STORE_INCONSISTENT', `refusing to publish keys: the key history of tenant ${t} cannot be trusted: ${v.problems.map((p) => p.message).join('; ')}`);
        return [v.keys];
      } finally {
        store.close();
      }
    });
}
