// Bearer JWTs checked with jose against a JWKS (a file's contents or a URL): issuer, audience,
// expiry (required) with a clock-skew allowance, and a maximum age from `iat` (required).
// Claims give principal, tenant and roles; OAuth scopes (the `scope` claim) map to roles through
// config. As an MCP resource server (RFC 9728/8707), `resource` is this server's URL and, unless
// `audience` says otherwise, the audience every token must carry.
// jose loads when a verifier is made (only with auth configured), not with this module.
import type { JSONWebKeySet } from 'jose';
import { AccessError, ConfigError, type Issue } from '../errors.js';
import { isTenant } from '../log/index.js';
import { parseAllowedOrigins } from './web-guard.js';
import { ROLES, type Authenticator, type Caller, type Role } from './deps.js';

export interface AuthConfig {
  /** A JWKS document, or the URL to fetch one from. */
  jwks: JSONWebKeySet | string;
  issuer: string;
  /** The token audience required; default `resource` (RFC 8707: a token is for one resource). */
  audience?: string;
  /**
   * This server's resource identifier (RFC 8707/9728): its public URL, e.g. https://vouch.example/mcp.
   * Advertised at /.well-known/oauth-protected-resource and in every 401's WWW-Authenticate.
   */
  resource?: string;
  /** Authorization servers that issue tokens for this resource (RFC 9728); default [issuer]. */
  authorizationServers?: string[];
  /** OAuth scope -> roles granted by it, e.g. {"mcp:enforce": ["enforce"]}; the `scope` claim is read through it. */
  scopes?: Record<string, string[]>;
  /** Tenant for tokens without a tenant claim (generic authorization servers issue none); default: such tokens are refused. */
  tenant?: string;
  clockSkewSeconds?: number;
  /**
   * Oldest token accepted, seconds since its `iat` (default 86,400: one day). Every token needs
   * `exp` and `iat`: one without either is refused, so no token is good forever.
   */
  maxTokenAgeSeconds?: number;
  /** Web origins besides the service's own that may call it (as `vouch serve --allow-origin`). */
  allowOrigins?: string[];
  /** Claim names: principal (default sub), tenant (default tenant), roles (default roles). */
  claims?: { principal?: string; tenant?: string; roles?: string };
}

export const DEFAULT_MAX_TOKEN_AGE_SECONDS = 86_400;
const MAX_TOKEN_AGE_LIMIT = 366 * 86_400;


const SCOPE_RE = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/; // RFC 6749 scope-token
const ROLE_RE = /^[A-Za-z0-9._:-]{1,64}$/;

function isAbsoluteUrl(v: unknown, resource = false): boolean {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    // RFC 8707: an absolute URI without a fragment; RFC 9728 identifiers are https (http for loopback testing).
    return (u.protocol === 'https:' || u.protocol === 'http:') && (!resource || !u.hash) && !v.includes('#');
  } catch {
    return false;
  }
}

/**
 * `opts.resourceLater`: the listener fills `resource` in (the gateway's own URL once it listens),
 * so neither `audience` nor `resource` is required here.
 */
export function parseAuthConfig(input: unknown, path = '/auth', opts: { resourceLater?: boolean } = {}): AuthConfig {
  const issues: Issue[] = [];
  const o = (input ?? {}) as Record<string, unknown>;
  if (typeof input !== 'object' || input === null) throw new ConfigError('ERR_CONFIG', 'auth must be an object', [{ path, message: 'not an object' }]);
  if (typeof o.jwks !== 'string' && (typeof o.jwks !== 'object' || o.jwks === null || !Array.isArray((o.jwks as JSONWebKeySet).keys))) issues.push({ path: `${path}/jwks`, message: 'a JWKS object or a URL' });
  if (typeof o.issuer !== 'string' || !o.issuer) issues.push({ path: `${path}/issuer`, message: 'required string' });
  if (o.audience !== undefined && (typeof o.audience !== 'string' || !o.audience)) issues.push({ path: `${path}/audience`, message: 'a non-empty string' });
  if (o.resource !== undefined && !isAbsoluteUrl(o.resource, true)) issues.push({ path: `${path}/resource`, message: 'an absolute http(s) URL without a fragment' });
  if (o.audience === undefined && o.resource === undefined && !opts.resourceLater) issues.push({ path: `${path}/audience`, message: 'give audience or resource (the audience defaults to the resource)' });
  if (o.authorizationServers !== undefined && (!Array.isArray(o.authorizationServers) || !o.authorizationServers.length || !o.authorizationServers.every((u) => isAbsoluteUrl(u)))) issues.push({ path: `${path}/authorizationServers`, message: 'a non-empty list of absolute http(s) URLs' });
  if (o.tenant !== undefined && !isTenant(o.tenant)) issues.push({ path: `${path}/tenant`, message: 'a tenant name (lower case letters, digits, _ and -)' });
  if (o.scopes !== undefined) {
    if (typeof o.scopes !== 'object' || o.scopes === null || Array.isArray(o.scopes)) issues.push({ path: `${path}/scopes`, message: 'an object: scope -> list of roles' });
    else
      for (const [scope, roles] of Object.entries(o.scopes)) {
        const at = `${path}/scopes/${scope.replaceAll('~', '~0').replaceAll('/', '~1')}`;
        if (!SCOPE_RE.test(scope)) issues.push({ path: at, message: 'not an OAuth scope token' });
        if (!Array.isArray(roles) || !roles.every((r) => typeof r === 'string' && ROLE_RE.test(r))) issues.push({ path: at, message: 'a list of role names' });
      }
  }
  if (o.clockSkewSeconds !== undefined && (!Number.isInteger(o.clockSkewSeconds) || (o.clockSkewSeconds as number) < 0 || (o.clockSkewSeconds as number) > 600)) issues.push({ path: `${path}/clockSkewSeconds`, message: 'integer 0..600' });
  if (o.maxTokenAgeSeconds !== undefined && (!Number.isInteger(o.maxTokenAgeSeconds) || (o.maxTokenAgeSeconds as number) < 1 || (o.maxTokenAgeSeconds as number) > MAX_TOKEN_AGE_LIMIT)) issues.push({ path: `${path}/maxTokenAgeSeconds`, message: `integer 1..${MAX_TOKEN_AGE_LIMIT}` });
  try {
    parseAllowedOrigins(o.allowOrigins, `${path}/allowOrigins`);
  } catch (e) {
    issues.push(...((e as { issues?: Issue[] }).issues ?? []));
  }
  if (issues.length) throw new ConfigError('ERR_CONFIG', 'bad auth config', issues);
  return o as unknown as AuthConfig;
}

/** A verified token: the caller (vouch roles only) and every role it grants (for policy, as `--role`). */
export interface Verified {
  caller: Caller;
  roles: string[];
}

export type TokenVerifier = (authorization: string | undefined) => Promise<Verified>;

export function createAuthenticator(cfg: AuthConfig, now: () => Date): Authenticator {
  const verify = createTokenVerifier(cfg, now);
  return async (authorization) => (await verify(authorization)).caller;
}

export function createTokenVerifier(cfg: AuthConfig, now: () => Date): TokenVerifier {
  const audience = cfg.audience ?? cfg.resource;
  // Fail closed: a verifier with no audience would take a token minted for any resource.
  if (!audience) throw new ConfigError('ERR_CONFIG', 'auth: no audience and no resource: tokens for other resources would be accepted', [{ path: '/auth/audience', message: 'required (or resource)' }]);
  const jwks = cfg.jwks;
  const jose = import('jose').then((j) => ({ jwtVerify: j.jwtVerify, keys: typeof jwks === 'string' ? j.createRemoteJWKSet(new URL(jwks)) : j.createLocalJWKSet(jwks) }));
  jose.catch(() => undefined); // a failure is each verify's (a refused token), never an unhandled rejection
  const names = { principal: cfg.claims?.principal ?? 'sub', tenant: cfg.claims?.tenant ?? 'tenant', roles: cfg.claims?.roles ?? 'roles' };
  return async (authorization) => {
    const m = /^Bearer ([A-Za-z0-9_\-.]+)$/.exec(authorization ?? '');
    if (!m) throw new AccessError('ERR_UNAUTHENTICATED', 'a bearer token is required');
    let payload: Record<string, unknown>;
    try {
      const { jwtVerify, keys } = await jose;
      ({ payload } = await jwtVerify(m[1], keys, {
        issuer: cfg.issuer,
        audience,
        clockTolerance: cfg.clockSkewSeconds ?? 30,
        currentDate: now(),
        requiredClaims: ['exp', 'iat'],
        maxTokenAge: cfg.maxTokenAgeSeconds ?? DEFAULT_MAX_TOKEN_AGE_SECONDS,
      }));
    } catch (e) {
      // jose's codes say which check failed (expired, signature, claim); the token itself is never echoed.
      const { code, claim, reason } = e as { code?: string; claim?: string; reason?: string };
      const head = `token rejected: ${code ?? 'invalid'}${typeof claim === 'string' ? ` (${claim})` : ''}`;
      const fix = fixOf(code, claim, reason, { audience, issuer: cfg.issuer, maxAge: cfg.maxTokenAgeSeconds ?? DEFAULT_MAX_TOKEN_AGE_SECONDS, skew: cfg.clockSkewSeconds ?? 30 });
      throw new AccessError('ERR_UNAUTHENTICATED', fix ? `${head}: ${fix}` : head);
    }
    return fromClaims(payload, names, cfg);
  };
}

/**
 * What the token's holder can do about a refusal, from what this service requires (issue 37): the
 * audience and issuer it expects, the age limit, the clock skew. Only the configuration is named:
 * these are public (OAuth metadata), and the token's own claims are never echoed.
 */
function fixOf(code: string | undefined, claim: string | undefined, reason: string | undefined, want: { audience: string; issuer: string; maxAge: number; skew: number }): string | undefined {
  if (code === 'ERR_JWT_EXPIRED') return claim === 'iat' ? `issued more than ${want.maxAge} seconds ago (maxTokenAgeSeconds): get a fresh token` : 'expired: get a fresh token';
  if (code !== 'ERR_JWT_CLAIM_VALIDATION_FAILED') return code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' || code === 'ERR_JWKS_NO_MATCHING_KEY' ? 'not signed by a key of the configured JWKS (auth.jwks)' : undefined;
  if (reason === 'missing') return `the token has no ${claim} claim (exp and iat are required)`;
  if (claim === 'aud') return `the token's audience must be ${JSON.stringify(want.audience)}`;
  if (claim === 'iss') return `the token's issuer must be ${JSON.stringify(want.issuer)}`;
  if (claim === 'iat' || claim === 'nbf') return `not valid yet (more than ${want.skew} seconds of clock skew allowed): check the issuer's clock`;
  return undefined;
}

function fromClaims(p: Record<string, unknown>, names: { principal: string; tenant: string; roles: string }, cfg: AuthConfig): Verified {
  const principal = p[names.principal];
  const tenant = p[names.tenant] ?? cfg.tenant;
  const roles = p[names.roles];
  if (typeof principal !== 'string' || !principal) throw new AccessError('ERR_UNAUTHENTICATED', `token has no ${names.principal} claim`);
  if (!isTenant(tenant)) throw new AccessError('ERR_UNAUTHENTICATED', `token has no valid ${names.tenant} claim`);
  const list = typeof roles === 'string' ? roles.split(/[ ,]+/) : Array.isArray(roles) ? roles.filter((r): r is string => typeof r === 'string') : [];
  // OAuth scopes grant roles only through the configured map: an unmapped scope grants nothing.
  const scope = p.scope;
  if (cfg.scopes && typeof scope === 'string') for (const s of scope.split(' ')) if (Object.hasOwn(cfg.scopes, s)) list.push(...cfg.scopes[s]);
  const all = [...new Set(list.filter((r) => r.length > 0))];
  return { caller: { principal, tenant, roles: all.filter((r): r is Role => ROLES.includes(r as Role)), policyRoles: all }, roles: all };
}

/** The role the example policy asks of tool calls (fixtures/config/policy.cedar; the scope `mcp:tools` maps to it in docs/auth.md). */
export const TOOL_USER_ROLE = 'tool-user';

/**
 * Development mode: no tokens, one local operator with every role (the server binds loopback only),
 * and for policy `tool-user` too, so the example policy's tools work out of the box.
 */
export const DEV_CALLER: Caller = { principal: 'local-operator', tenant: 'default', roles: ['enforce', 'audit', 'admin', 'delegate', 'operator'], policyRoles: ['enforce', 'audit', 'admin', 'delegate', 'operator', TOOL_USER_ROLE] };

export function requireRole(caller: Caller, role: Role): void {
  if (!caller.roles.includes(role)) throw new AccessError('ERR_FORBIDDEN', `this needs the ${role} role`);
}
