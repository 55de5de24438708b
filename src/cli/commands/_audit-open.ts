// Shared by the audit commands: open a tenant's log read-only (a running server may hold the
// writer lock; SQLite WAL lets readers in), or for writing (taking the lock), and the keys.
import { existsSync } from 'node:fs';
import { bytesEqual, toHex } from '../../canonical/index.js';
import { noteKeyId, toJwks, type Jwks, type PublicKeyEntry } from '../../crypto/index.js';
import { formatVkey } from '../../log/index.js';
import { tenantKeysForVerify } from '../../store/tenant-keys.js';
import { ConfigError, StoreError } from '../../errors.js';
import { logOriginOf } from '../../log/index.js';
import { signedPrefix, type LogStore } from '../../store/index.js';
import { loadKeys, logPath, openDataDir, openSqliteStore, DEFAULT_KEY_NAME, type DataDir, type TenantLog } from '../../store/node.js';
import { UsageError } from '../io.js';

export const TENANT_OPTION = { tenant: { type: 'string', default: 'default' }, 'key-name': { type: 'string', default: DEFAULT_KEY_NAME } } as const;

export function openLogReadOnly(dir: string, tenant: string): LogStore {
  const path = logPath(dir, tenant);
  if (!existsSync(path)) throw new UsageError(`no log for tenant ${tenant} in ${dir}`);
  return openSqliteStore(path, { readonly: true });
}

/**
 * A tenant's log read-only, as far as a verified signature covers it (issue 35): the newest
 * checkpoint note must verify with the log's key history and the stored tree reproduce it, or this
 * refuses (ERR_STORE_INCONSISTENT, naming why); entries after it (unsigned: anyone who can write
 * the file can add some) are left out, so state read from it (the policy in force, pins) is what
 * the signed log commits to. For the read-only commands that report state: policy status, tools list.
 */
export function openVerifiedReadOnly(dir: string, tenant: string, keyName: string): LogStore {
  const store = openLogReadOnly(dir, tenant);
  try {
    const origin = originOf(store, tenant, keyName);
    const { problems } = tenantKeysForVerify(store, origin, loadKeys(dir, keyName).keys, keyName, { tail: false });
    if (problems.length) throw new StoreError('ERR_STORE_INCONSISTENT', `the log of tenant ${tenant} cannot be trusted (\`vouch log verify\` says more): ${problems.map((p) => p.message).join('; ')}`);
    return signedPrefix(store, store.latestCheckpoint()?.size ?? 0);
  } catch (e) {
    store.close();
    throw e;
  }
}

export function openDbReadOnly(file: string): LogStore {
  if (!existsSync(file)) throw new UsageError(`no database at ${file}`);
  return openSqliteStore(file, { readonly: true });
}

export function originOf(store: LogStore, tenant: string, keyName: string): string {
  return store.meta('origin') ?? logOriginOf(keyName, tenant);
}

/** The public keys a bundle carries: the key files, and with `tenant` that log's key history (names, sizes, revocations). */
export function publicKeysOf(dir: string, keyName: string, tenant?: string): { vkeys: string[]; jwks: Jwks } {
  const { keys } = loadKeys(dir, keyName);
  const vkeys = keys.map((k) => k.vkey);
  const entries: PublicKeyEntry[] = keys.map((k) => ({ alg: k.alg, publicKey: k.publicKey, kid: k.keyId }));
  if (tenant !== undefined && existsSync(logPath(dir, tenant))) {
    const store = openSqliteStore(logPath(dir, tenant), { readonly: true });
    try {
      const origin = originOf(store, tenant, keyName);
      const { keys: h, problems } = tenantKeysForVerify(store, origin, keys, keyName);
      // A history with problems (see `vouch log verify`) is not carried: the bundle then fails to verify.
      for (const k of problems.length ? [] : h.history.keys) {
        const vkey = formatVkey(k.name, k.alg, k.publicKey);
        if (!vkeys.includes(vkey)) vkeys.push(vkey);
        let e = entries.find((x) => x.alg === k.alg && bytesEqual(x.publicKey, k.publicKey));
        if (!e) entries.push((e = { alg: k.alg, publicKey: k.publicKey, kid: toHex(noteKeyId(keyName, k.alg, k.publicKey)) }));
        e.logs = { ...e.logs, [origin]: k.window };
      }
    } finally {
      store.close();
    }
  }
  return { vkeys, jwks: toJwks(entries) };
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
