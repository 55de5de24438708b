// Which interceptor servers a policy may make the service connect to (issue 35): the operator's
// list, `remoteInterceptors.allow` in the config file `vouch serve` starts with, and the remotes
// that file declares itself. A policy posted at run time, or pinned in a tenant's log, names only
// these; anything else is refused before any connection, with one answer whatever is at the URL
// (no port probe through the error text).
import { ConfigError, type Issue } from '../errors.js';
import { pointer } from './_issues.js';
import { isRemoteDeclaration, type VouchConfig } from './config-types.js';

/** URL prefixes: same scheme and host (port included), and the path itself or below it. */
export interface RemoteAllowList {
  readonly prefixes: readonly URL[];
}

const httpUrl = (s: string): URL | undefined => {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : undefined;
  } catch {
    return undefined;
  }
};

/** Why an allow-list entry is not a URL prefix, or undefined when it is one. */
export function allowEntryProblem(s: string): string | undefined {
  const u = httpUrl(s);
  if (!u) return 'must be an absolute http:// or https:// URL';
  if (u.username || u.password) return 'must not hold a user name or password';
  if (u.search || u.hash || s.includes('?') || s.includes('#')) return 'must not hold a query or fragment (it is a prefix)';
  return undefined;
}

/** The operator's list from the start-up config: its `remoteInterceptors.allow` and its own remotes. */
export function remoteAllowListOf(operatorConfig: VouchConfig): RemoteAllowList {
  const urls = [...(operatorConfig.remoteInterceptors?.allow ?? []), ...operatorConfig.interceptors.filter(isRemoteDeclaration).map((d) => d.remote.url)];
  return { prefixes: urls.map(httpUrl).filter((u): u is URL => u !== undefined && !u.username && !u.password) };
}

/**
 * Whether the list holds this URL. Both sides are WHATWG-parsed first (as the transport parses
 * it), so `..` and `%2e%2e` segments, default ports and case are compared resolved; a URL with a
 * user name (`http://allowed@elsewhere/`) never matches.
 */
export function remoteUrlAllowed(url: string, allow: RemoteAllowList): boolean {
  const u = httpUrl(url);
  if (!u || u.username || u.password) return false;
  return allow.prefixes.some((p) => {
    if (u.protocol !== p.protocol || u.host !== p.host) return false;
    const base = p.pathname;
    return u.pathname === base || u.pathname.startsWith(base.endsWith('/') ? base : `${base}/`);
  });
}

/**
 * Throws ConfigError ERR_REMOTE_NOT_ALLOWED naming every remote declaration off the list (and,
 * for a `posted` policy, an allow-list of its own: the list is never a tenant's to widen).
 */
export function assertRemotesAllowed(config: VouchConfig, allow: RemoteAllowList, opts: { posted?: boolean } = {}): void {
  const issues: Issue[] = [];
  if (opts.posted && config.remoteInterceptors !== undefined) {
    issues.push({ path: '/remoteInterceptors', message: "the allow-list is the operator's: it is read from the config file the service starts with, never from a posted policy" });
  }
  // Which TSA stamps the log, and whom to trust for it, is the operator's too (never a tenant's to redirect).
  if (opts.posted && config.timestamping !== undefined) {
    issues.push({ path: '/timestamping', message: "time-stamping is the operator's: it is read from the config file the service starts with, never from a posted policy" });
  }
  config.interceptors.forEach((d, i) => {
    if (isRemoteDeclaration(d) && !remoteUrlAllowed(d.remote.url, allow)) issues.push({ path: pointer(pointer(pointer('/interceptors', i), 'remote'), 'url'), message: "not on the operator's allow-list" });
  });
  if (issues.length) {
    throw new ConfigError('ERR_REMOTE_NOT_ALLOWED', "a remote interceptor server must be on the operator's allow-list (remoteInterceptors.allow in the config file the service starts with): nothing was connected to", issues);
  }
}
