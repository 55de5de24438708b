// createApp(deps): the one Hono app behind both entries (Node and Workers). Routes are thin:
// authenticate, check the role, parse, call the core, map errors through http/errors.ts.
import { apiHeaders } from './console-headers.js';
import { Hono, type Context } from 'hono';
import { AccessError, codeOf, publicMessage } from '../errors.js';
import { DEV_CALLER, requireRole } from './auth.js';
import { readJsonBody } from './body.js';
import { DEFAULT_LIMITS, rolesForPolicy, type AppDeps, type Caller, type Limits, type Role } from './deps.js';
import { errorJson, httpStatusOf } from './errors.js';
import { JSONRPC, rpcCodeOf } from '../protocol/index.js';
import type { McpEndpoint } from './mcp-endpoint.js';
import { challengeFor, metadataDocument, scopesGranting, wwwAuthenticate } from './oauth-metadata.js';
import { webGuard } from './web-guard.js';
import { Metrics } from './metrics.js';
import { registerRestRoutes } from './routes-rest.js';
import { registerAuditRoutes } from './routes-audit.js';
import { registerExecutionRoutes } from './routes-execution.js';
import { registerConsoleRoutes } from './routes-console.js';
import { registerKeyRoutes } from './routes-keys.js';
import { registerMonitorRoutes } from './routes-monitor.js';
import { registerTileRoutes } from './routes-tiles.js';

export type Env = { Variables: { caller: Caller } };

const LOOPBACK_HOST = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?$/;

export interface VouchApp {
  app: Hono<Env>;
  metrics: Metrics;
}

/** What every app over AppDeps shares: errors, challenges, headers, the web guard, the keys, and who calls with which role. */
export interface AppCore {
  app: Hono<Env>;
  limits: Limits;
  refuse(c: Context, e: unknown): Response;
  authenticate(c: Context<Env>): Promise<Caller>;
  needRole(c: Context, caller: Caller, role: Role): void;
  withRole(role: Role): (c: Context<Env>, next: () => Promise<void>) => Promise<void>;
}

/**
 * The edge every app shares (the service's createApp, the gateway's read-only audit app): one
 * place for error shapes, auth challenges, response headers and the Origin guard, so an app that
 * serves fewer routes never serves them with weaker protections.
 */
export function createAppCore(deps: AppDeps, metrics: Metrics): AppCore {
  const app = new Hono<Env>();
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };

  app.onError((e, c) => {
    metrics.error(codeOf(e), c.get('caller')?.tenant);
    if (codeOf(e) === 'ERR_INTERNAL') deps.logLine?.({ level: 'error', msg: 'internal error', path: c.req.path, code: 'ERR_INTERNAL', error: (e as Error).message });
    return c.json(errorJson(e), httpStatusOf(e) as 400);
  });
  app.notFound((c) => c.json({ error: { code: 'ERR_NOT_FOUND', message: `no route ${c.req.method} ${c.req.path}` } }, 404));

  /** An error before routing, in the shape the path speaks: JSON-RPC on /mcp, REST elsewhere. */
  const refuse = (c: Context, e: unknown): Response => {
    metrics.error(codeOf(e));
    if (c.req.path === '/mcp') return c.json({ jsonrpc: '2.0', id: null, error: { code: rpcCodeOf(e), message: publicMessage(e), data: { code: codeOf(e) } } }, httpStatusOf(e) as 400);
    return c.json(errorJson(e), httpStatusOf(e) as 400);
  };
  // Every 401 says how to get a token (RFC 6750 §3, RFC 9728 §5.1): where this resource's metadata is.
  // A 403 for a missing role names the scopes that grant it (insufficient_scope), so a client can step up.
  const missingRole = new WeakMap<Request, Role>();
  if (deps.authenticate) {
    app.use('*', async (c, next) => {
      await next();
      if (c.res.status === 401) c.res.headers.set('www-authenticate', wwwAuthenticate(deps.protectedResource, challengeFor(c.req.header('authorization'))));
      const role = missingRole.get(c.req.raw);
      const scope = role && deps.protectedResource ? scopesGranting(deps.protectedResource, role) : [];
      if (c.res.status === 403 && scope.length) c.res.headers.set('www-authenticate', wwwAuthenticate(deps.protectedResource, { error: 'insufficient_scope', scope }));
    });
  }
  /** requireRole, remembering which role was missing for the challenge above. */
  const needRole = (c: Context, caller: Caller, role: Role) => {
    if (!caller.roles.includes(role)) missingRole.set(c.req.raw, role);
    requireRole(caller, role);
  };
  // Every answer: no sniffing, no framing, nothing to run (the console's own routes set their CSP).
  app.use('*', apiHeaders());
  // RFC 9728 metadata: public, read-only and token-free, so any origin may read it (before the web guard).
  for (const path of deps.protectedResource?.paths ?? []) {
    const doc = metadataDocument(deps.protectedResource!);
    app.get(path, (c) => c.json(doc, 200, { 'access-control-allow-origin': '*', 'cache-control': 'max-age=300' }));
  }
  // First on every route: foreign web origins are refused, bodies must be application/json.
  app.use('*', webGuard(deps.allowOrigins ?? [], refuse));
  // Attached read-only: a write is refused before it is authenticated or parsed (it cannot happen here at all).
  if (deps.readOnly) {
    app.use('*', async (c, next) => {
      const no = deps.readOnly!(c.req.method, c.req.path);
      if (no) return refuse(c, no);
      await next();
    });
  }

  app.get('/healthz', async (c) => {
    const h = (await deps.health?.()) ?? { ok: true as const };
    const mldsa = deps.mldsa === undefined ? {} : { mldsa: deps.mldsa };
    return h.ok ? c.json({ ok: true, ...mldsa, ...(h.notice !== undefined && { notice: h.notice }) }) : c.json({ ok: false, ...mldsa, error: { code: h.code, message: h.reason } }, 503);
  });
  const published = () => deps.keys.published?.() ?? deps.keys;
  app.get('/.well-known/vouch/keys', async (c) => c.json((await published()).jwks));
  app.get('/.well-known/vouch/vkeys', async (c) => c.text((await published()).vkeys.join('\n') + '\n'));

  /** Who is calling: a verified token, or the local operator in development mode (loopback hosts only). */
  const authenticate = async (c: Context<Env>): Promise<Caller> => {
    if (!deps.authenticate) {
      if (!LOOPBACK_HOST.test(c.req.header('host') ?? '')) throw new AccessError('ERR_FORBIDDEN', 'development mode (no auth configured) serves loopback hosts only');
      return DEV_CALLER;
    }
    return deps.authenticate(c.req.header('authorization'));
  };
  const withRole = (role: Role) => async (c: Context<Env>, next: () => Promise<void>) => {
    const caller = await authenticate(c);
    c.set('caller', caller); // before the role check: a refusal counts for the caller's tenant
    needRole(c, caller, role);
    await next();
  };
  return { app, limits, refuse, authenticate, needRole, withRole };
}

export function createApp(deps: AppDeps, metrics = new Metrics()): VouchApp {
  const { app, limits, refuse, authenticate, needRole, withRole } = createAppCore(deps, metrics);

  // Operational counters: the operator role reads every tenant's; a token with the audit or admin
  // role reads its own tenant's only (issue 35: no tenant learns another's traffic or log sizes).
  app.get('/metrics', async (c) => {
    const caller = await authenticate(c);
    c.set('caller', caller);
    const all = caller.roles.includes('operator');
    if (!all && !caller.roles.includes('audit')) needRole(c, caller, 'admin');
    await deps.beforeMetrics?.(metrics);
    return c.text(metrics.render(all ? 'all' : { tenant: caller.tenant }), 200, { 'content-type': 'text/plain; version=0.0.4' });
  });

  const precheck = registerExecutionRoutes(app, { deps, limits, metrics, withRole });
  // The MCP SDK loads with the first /mcp request, not at start-up: its modules take longer to
  // load than the rest of the service, and /v1/authorize, receipts and audit never need them.
  let mcpEndpoint: Promise<McpEndpoint> | undefined;
  const mcp = () => (mcpEndpoint ??= import('./mcp-endpoint.js').then((m) => m.createMcpEndpoint()));

  app.post('/mcp', async (c) => {
    let body: unknown;
    let caller: Caller;
    try {
      caller = await authenticate(c);
      needRole(c, caller, 'enforce');
      body = await readJsonBody(c.req.raw, limits.bodyBytes);
    } catch (e) {
      return refuse(c, e);
    }
    const t0 = deps.clock.monotonic();
    const [log, policy] = await Promise.all([deps.logs(caller.tenant), deps.policy(caller.tenant)]);
    return (await mcp()).handle(c.req.raw, body, {
      principal: caller.principal,
      tenant: caller.tenant,
      roles: rolesForPolicy(caller),
      policy,
      log,
      now: deps.clock.now,
      clock: deps.clock,
      onDecision: (o) => {
        metrics.decision(caller.tenant, o.effect, deps.clock.monotonic() - t0);
        deps.observe?.({ tenant: caller.tenant, seq: o.appended.seq, leaf: o.appended.leaf, bytes: o.appended.bytes });
      },
      signResult: deps.signResult,
      precheck: (p) => precheck(caller, log, policy, p),
    });
  });
  app.on(['GET', 'DELETE'], '/mcp', (c) =>
    c.json({ jsonrpc: '2.0', id: null, error: { code: JSONRPC.invalidRequest, message: 'this interceptor server is stateless: POST only' } }, 405),
  );

  registerRestRoutes(app, { deps, limits, metrics, withRole, precheck });
  registerAuditRoutes(app, { deps, limits, metrics, withRole });
  registerConsoleRoutes(app, { deps, limits, metrics, withRole });
  registerKeyRoutes(app, { deps, limits, metrics, withRole });
  registerMonitorRoutes(app, { deps, withRole }); // before the tiles: /tlog/<hash>/checkpoint is no tenant's
  registerTileRoutes(app, { deps, withRole });
  return { app, metrics };
}
