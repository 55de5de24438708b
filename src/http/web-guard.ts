// Web pages cannot drive the service: a request whose Origin is not the service's own (or one the
// operator allowed) is refused with 403, and every request that carries a body must be
// application/json (415), which a page can only send cross-site after a CORS preflight we refuse.
import type { Context, MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { AccessError, ConfigError, type Issue } from '../errors.js';
import { requireJsonMediaType } from './body.js';

/** `--allow-origin` values and auth config `allowOrigins`: serialized origins (scheme://host[:port]). */
export function parseAllowedOrigins(input: unknown, path = '/allowOrigins'): string[] {
  if (input === undefined) return [];
  if (!Array.isArray(input)) throw new ConfigError('ERR_CONFIG', 'allowed origins must be a list', [{ path, message: 'not an array' }]);
  const issues: Issue[] = [];
  const out: string[] = [];
  input.forEach((v, i) => {
    let origin: string | undefined;
    try {
      const u = new URL(String(v));
      if ((u.protocol === 'http:' || u.protocol === 'https:') && (u.pathname === '/' || u.pathname === '') && !u.search && !u.hash && !u.username && !u.password) origin = u.origin;
    } catch {
      /* reported below */
    }
    if (typeof v !== 'string' || !origin || v.replace(/\/$/, '').toLowerCase() !== origin.toLowerCase()) issues.push({ path: `${path}/${i}`, message: 'an origin: http(s)://host[:port], no path' });
    else out.push(origin);
  });
  if (issues.length) throw new ConfigError('ERR_CONFIG', 'bad allowed origin', issues);
  return out;
}

/** The service's own origin is the one the page was loaded from: http(s)://<the Host it asked>. */
export function isOwnOrigin(origin: string, host: string | undefined): boolean {
  if (!host) return false;
  try {
    const o = new URL(origin);
    if (o.origin !== origin || (o.protocol !== 'http:' && o.protocol !== 'https:')) return false;
    return new URL(`${o.protocol}//${host}`).origin === o.origin;
  } catch {
    return false;
  }
}

/** Methods that carry a body: POST, PUT, PATCH always; DELETE when it has one. */
function carriesBody(method: string, headers: Headers): boolean {
  if (method === 'POST' || method === 'PUT' || method === 'PATCH') return true;
  if (method !== 'DELETE') return false;
  return headers.has('transfer-encoding') || Number(headers.get('content-length') ?? 0) > 0;
}

/**
 * The guard, first on every route. `refuse` renders the error (REST or JSON-RPC shape, by path).
 * Configured origins also get CORS answers (preflight and response headers); nothing else does.
 */
export function webGuard(allowOrigins: readonly string[], refuse: (c: Context, e: unknown) => Response): MiddlewareHandler {
  const allowed = new Set(allowOrigins);
  const corsFor = allowed.size
    ? cors({
        origin: (o) => (allowed.has(o) ? o : null),
        allowMethods: ['GET', 'POST', 'DELETE'],
        allowHeaders: ['authorization', 'content-type', 'accept', 'mcp-protocol-version', 'mcp-session-id', 'x-vouch-caller-signature'],
        maxAge: 600,
      })
    : undefined;
  return async (c, next) => {
    const origin = c.req.header('origin');
    try {
      if (origin !== undefined && !allowed.has(origin) && !isOwnOrigin(origin, c.req.header('host'))) {
        throw new AccessError('ERR_FORBIDDEN', 'cross-origin requests are refused: this service is not for web pages on other origins (vouch serve --allow-origin URL allows one)');
      }
      // Browsers send no Origin on no-cors GETs (<img>, <script>); their Fetch Metadata still says
      // another site asked. Following a link (a navigation, e.g. to /audit/) stays allowed.
      const site = c.req.header('sec-fetch-site');
      if (origin === undefined && (site === 'cross-site' || site === 'same-site') && c.req.header('sec-fetch-mode') !== 'navigate') {
        throw new AccessError('ERR_FORBIDDEN', 'cross-site requests are refused: this service is not for web pages on other origins');
      }
      if (carriesBody(c.req.method, c.req.raw.headers)) requireJsonMediaType(c.req.header('content-type'));
    } catch (e) {
      return refuse(c, e);
    }
    if (corsFor && origin !== undefined && allowed.has(origin)) return corsFor(c, next);
    await next();
  };
}
