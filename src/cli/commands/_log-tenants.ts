// The tenant logs a `vouch log` subcommand works on: the one named, or every log in the data directory.
import { existsSync } from 'node:fs';
import { listTenants, logPath } from '../../store/node.js';
import { UsageError } from '../io.js';

export function tenantsOf(dir: string, tenant: string | undefined): string[] {
  const all = tenant ? [tenant] : listTenants(dir);
  for (const t of all) if (!existsSync(logPath(dir, t))) throw new UsageError(`no log for tenant ${t} in ${dir}`);
  return all;
}
