// Tenant names and log origins: a tenant's log is named `<keyName>/<tenant>` (the origin line of
// every checkpoint note). One rule for every deployment: Node's data directory, auth, the Worker.
import { ConfigError } from '../errors.js';

/** A tenant name: lower-case letters, digits, `_` and `-`, at most 63 characters (a file name and a URL segment). */
export const TENANT_RE = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export function isTenant(name: unknown): name is string {
  return typeof name === 'string' && TENANT_RE.test(name);
}

/** Throws ConfigError ERR_CONFIG for a name that is not a tenant name. */
export function assertTenant(name: string): void {
  if (!isTenant(name)) throw new ConfigError('ERR_CONFIG', `bad tenant name ${JSON.stringify(name)}`);
}

/** The origin of a tenant's log under a signing key name. */
export function logOriginOf(keyName: string, tenant: string): string {
  assertTenant(tenant);
  return `${keyName}/${tenant}`;
}
