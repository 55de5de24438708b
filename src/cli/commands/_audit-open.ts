// Shared by the audit commands: open a tenant's log read-only (a running server may hold the
// writer lock; SQLite WAL lets readers in), or for writing (taking the lock), and the keys.
import { existsSync } from 'node:fs';
import { toJwks, type Jwks } from '../../crypto/index.js';
import { ConfigError } from '../../errors.js';
import { logOriginOf } from '../../log/index.js';
import type { LogStore } from '../../store/index.js';
import { loadKeys, logPath, openDataDir, openSqliteStore, DEFAULT_KEY_NAME, type DataDir, type TenantLog } from '../../store/node.js';
import { UsageError } from '../io.js';

export const TENANT_OPTION = { tenant: { type: 'string', default: 'default' }, 'key-name': { type: 'string', default: DEFAULT_KEY_NAME } } as const;

export function openLogReadOnly(dir: string, tenant: string): LogStore {
  const path = logPath(dir, tenant);
  if (!existsSync(path)) throw new UsageError(`no log for tenant ${tenant} in ${dir}`);
  return openSqliteStore(path, { readonly: true });
}

export function openDbReadOnly(file: string): LogStore {
  if (!existsSync(file)) throw new UsageError(`no database at ${file}`);
  return openSqliteStore(file, { readonly: true });
}

export function originOf(store: LogStore, tenant: string, keyName: string): string {
  return store.meta('origin') ?? logOriginOf(keyName, tenant);
}

export function publicKeysOf(dir: string, keyName: string): { vkeys: string[]; jwks: Jwks } {
  const { keys } = loadKeys(dir, keyName);
  return { vkeys: keys.map((k) => k.vkey), jwks: toJwks(keys.map((k) => ({ alg: k.alg, publicKey: k.publicKey, kid: k.keyId }))) };
}

/**
 * For the CLI writers (policy activate, payload erase): the data directory with the tenant's
 * log open for writing. Fails with ERR_STORE while `vouch serve` holds the log: use REST then.
 */
export async function openLogForWriting(dir: string, tenant: string, keyName: string): Promise<{ dataDir: DataDir; log: TenantLog }> {
  if (!existsSync(dir)) throw new ConfigError('ERR_CONFIG', `no data directory ${dir}: run \`vouch init --data ${dir}\` first`);
  const dataDir = await openDataDir(dir, { thread: false, keyName });
  try {
    return { dataDir, log: dataDir.log(tenant) };
  } catch (e) {
    await dataDir.close();
    throw e;
  }
}
