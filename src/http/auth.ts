// Bearer JWTs checked with jose against a JWKS (a file's contents or a URL): issuer, audience,
// expiry (required) with a clock-skew allowance, and a maximum age from `iat` (required).
// Claims give principal, tenant and roles.
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { AccessError, ConfigError, type Issue } from '../errors.js';
import { parseAllowedOrigins } from './web-guard.js';
import { ROLES, type Authenticator, type Caller, type Role } from './deps.js';

export interface AuthConfig {
  /** A JWKS document, or the URL to fetch one from. */
  jwks: JSONWebKeySet | string;
  issuer: string;
  audience: string;
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

const TENANT_RE = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export function parseAuthConfig(input: unknown, path = '/auth'): AuthConfig {
  const issues: Issue[] = [];
  const o = (input ?? {}) as Record<string, unknown>;
  if (typeof input !== 'object' || input === null) throw new ConfigError('ERR_CONFIG', 'auth must be an object', [{ path, message: 'not an object' }]);
  if (typeof o.jwks !== 'string' && (typeof o.jwks !== 'object' || o.jwks === null || !Array.isArray((o.jwks as JSONWebKeySet).keys))) issues.push({ path: `${path}/jwks`, message: 'a JWKS object or a URL' });
  if (typeof o.issuer !== 'string' || !o.issuer) issues.push({ path: `${path}/issuer`, message: 'required string' });
  if (typeof o.audience !== 'string' || !o.audience) issues.push({ path: `${path}/audience`, message: 'required string' });
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

export function createAuthenticator(cfg: AuthConfig, now: () => Date): Authenticator {
  const keys = typeof cfg.jwks === 'string' ? createRemoteJWKSet(new URL(cfg.jwks)) : createLocalJWKSet(cfg.jwks);
  const names = { principal: cfg.claims?.principal ?? 'sub', tenant: cfg.claims?.tenant ?? 'tenant', roles: cfg.claims?.roles ?? 'roles' };
  return async (authorization) => {
    const m = /^Bearer ([A-Za-z0-9_\-.]+)$/.exec(authorization ?? '');
    if (!m) throw new AccessError('ERR_UNAUTHENTICATED', 'a bearer token is required');
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(m[1], keys, {
        issuer: cfg.issuer,
        audience: cfg.audience,
        clockTolerance: cfg.clockSkewSeconds ?? 30,
        currentDate: now(),
        requiredClaims: ['exp', 'iat'],
        maxTokenAge: cfg.maxTokenAgeSeconds ?? DEFAULT_MAX_TOKEN_AGE_SECONDS,
      }));
    } catch (e) {
      // jose's codes say which check failed (expired, signature, claim); the token itself is never echoed.
      const { code, claim } = e as { code?: string; claim?: string };
      throw new AccessError('ERR_UNAUTHENTICATED', `token rejected: ${code ?? 'invalid'}${typeof claim === 'string' ? ` (${claim})` : ''}`);
    }
    return callerFromClaims(payload, names);
  };
}

function callerFromClaims(p: Record<string, unknown>, names: { principal: string; tenant: string; roles: string }): Caller {
  const principal = p[names.principal];
  const tenant = p[names.tenant];
  const roles = p[names.roles];
  if (typeof principal !== 'string' || !principal) throw new AccessError('ERR_UNAUTHENTICATED', `token has no ${names.principal} claim`);
  if (typeof tenant !== 'string' || !TENANT_RE.test(tenant)) throw new AccessError('ERR_UNAUTHENTICATED', `token has no valid ${names.tenant} claim`);
  const list = typeof roles === 'string' ? roles.split(/[ ,]+/) : Array.isArray(roles) ? roles : [];
  return { principal, tenant, roles: list.filter((r): r is Role => ROLES.includes(r as Role)) };
}

/** Development mode: no tokens, one local operator with every role (the server binds loopback only). */
export const DEV_CALLER: Caller = { principal: 'local-operator', tenant: 'default', roles: ['enforce', 'audit', 'admin', 'delegate'] };

export function requireRole(caller: Caller, role: Role): void {
  if (!caller.roles.includes(role)) throw new AccessError('ERR_FORBIDDEN', `this needs the ${role} role`);
}
