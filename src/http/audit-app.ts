// The read-only audit app: what an auditor reads of one log (an entry with its receipt, the
// checkpoint, proofs, payloads, replay and export, tiles, key history, the console), and nothing
// that decides or writes. The gateway's listener serves it beside /mcp (mcp/gateway-http.ts).
import type { Hono } from 'hono';
import { createAppCore, type Env } from './app.js';
import type { AppDeps } from './deps.js';
import { Metrics } from './metrics.js';
import { registerAuditReadRoutes } from './routes-audit.js';
import { registerConsoleRoutes } from './routes-console.js';
import { registerKeyReadRoutes, type KeyAppDeps } from './routes-keys.js';
import { registerRestReadRoutes } from './routes-rest.js';
import { registerMonitorRoutes } from './routes-monitor.js';
import { registerTileRoutes } from './routes-tiles.js';

/** The paths the audit app answers (a listener in front of it routes these here). */
export const AUDIT_PATHS = /^\/(v1\/(checkpoint|entries|proofs|payloads|replay|export|keys|tools\/pins)(\/|$)|tlog\/|audit(\/|$))/;

/** Same edge as the service's app (createAppCore: errors, headers, Origin guard, roles); read routes only. */
export function createAuditApp(deps: AppDeps & KeyAppDeps, metrics = new Metrics()): Hono<Env> {
  const { app, limits, withRole } = createAppCore(deps, metrics);
  const rc = { deps, limits, metrics, withRole };
  registerRestReadRoutes(app, rc);
  registerAuditReadRoutes(app, rc);
  registerConsoleRoutes(app, rc);
  registerKeyReadRoutes(app, rc);
  registerMonitorRoutes(app, rc); // before the tiles: /tlog/<hash>/checkpoint is no tenant's
  registerTileRoutes(app, rc);
  return app;
}
