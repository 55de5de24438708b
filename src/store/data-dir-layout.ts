// Where things are in a data directory (Node only): the key files, one SQLite log per tenant,
// and which tenants have a log.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { assertTenant, isTenant } from '../log/index.js';

export const DEFAULT_DATA_DIR = '.vouch';

export function keyPaths(dir: string) {
  return { mldsa: join(dir, 'keys', 'mldsa65.key'), ed25519: join(dir, 'keys', 'ed25519.key'), mldsa44: join(dir, 'keys', 'mldsa44.key') };
}

/** Tenants with a log in this data directory. */
export function listTenants(dir: string): string[] {
  const logs = join(dir, 'logs');
  if (!existsSync(logs)) return [];
  return readdirSync(logs).filter((f) => f.endsWith('.db')).map((f) => f.slice(0, -3)).filter(isTenant).sort();
}

export function logPath(dir: string, tenant: string): string {
  assertTenant(tenant);
  return join(dir, 'logs', `${tenant}.db`);
}
