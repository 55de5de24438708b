// vouch as an OAuth 2.1 resource server, as MCP's authorization spec requires: the RFC 9728
// protected resource metadata document, where it is served, and the WWW-Authenticate header a
// 401 (or a 403 for a missing scope) carries so a client can discover how to get a token.
import type { AuthConfig } from './auth.js';

export const PRM_PATH = '/.well-known/oauth-protected-resource';

export interface ProtectedResource {
  /** RFC 8707 resource identifier: what tokens must be issued for. */
  resource: string;
  authorizationServers: string[];
  scopes: string[];
  /** Scope -> roles it grants (the config's map), to name the scopes a 403 would need. */
  grants: Record<string, string[]>;
  /** Where the document is, absolute (RFC 9728 §3.1: the well-known prefix before the resource's path). */
  metadataUrl: string;
  /** Paths this server answers the document on: the bare well-known path and the path-suffixed one. */
  paths: string[];
}

/** The metadata for `cfg`, its resource given (or `resource` when the listener knows its own URL). */
export function protectedResourceOf(cfg: AuthConfig, resource = cfg.resource): ProtectedResource | undefined {
  if (!resource) return undefined;
  const u = new URL(resource);
  const suffix = u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '');
  const paths = [...new Set([PRM_PATH, PRM_PATH + suffix])];
  return {
    resource,
    authorizationServers: cfg.authorizationServers ?? [cfg.issuer],
    scopes: Object.keys(cfg.scopes ?? {}),
    grants: cfg.scopes ?? {},
    metadataUrl: new URL(PRM_PATH + suffix, u.origin).href,
    paths,
  };
}

/** The RFC 9728 document. */
export function metadataDocument(p: ProtectedResource): Record<string, unknown> {
  return {
    resource: p.resource,
    authorization_servers: p.authorizationServers,
    ...(p.scopes.length ? { scopes_supported: p.scopes } : {}),
    bearer_methods_supported: ['header'],
  };
}

/** A quoted-string parameter value: no quotes, backslashes or control characters survive. */
const quoted = (v: string) => `"${v.replace(/[\\"\x00-\x1f\x7f]/g, '').slice(0, 300)}"`;

export interface Challenge {
  /** RFC 6750 §3.1: invalid_token when a token was presented and refused; none when no token came. */
  error?: 'invalid_token' | 'insufficient_scope' | 'invalid_request';
  description?: string;
  /** Scopes that would do (insufficient_scope). */
  scope?: string[];
}

/** `Bearer resource_metadata="...", error="..."`: the header on every 401 (RFC 6750, RFC 9728 §5.1). */
export function wwwAuthenticate(p: ProtectedResource | undefined, c: Challenge = {}): string {
  const params: string[] = [];
  if (p) params.push(`resource_metadata=${quoted(p.metadataUrl)}`);
  if (c.error) params.push(`error=${quoted(c.error)}`);
  if (c.description) params.push(`error_description=${quoted(c.description)}`);
  if (c.scope?.length) params.push(`scope=${quoted(c.scope.join(' '))}`);
  return params.length ? `Bearer ${params.join(', ')}` : 'Bearer';
}

/** The challenge for a refused request: invalid_token if it carried an Authorization header. */
export function challengeFor(authorization: string | undefined, description?: string): Challenge {
  return authorization ? { error: 'invalid_token', description } : {};
}

/** Scopes whose roles include `role` (what to ask for on a 403 insufficient_scope). */
export function scopesGranting(p: Pick<ProtectedResource, 'grants'>, role: string): string[] {
  return Object.entries(p.grants)
    .filter(([, roles]) => roles.includes(role))
    .map(([s]) => s);
}
