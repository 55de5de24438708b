// c2sp.org/tlog-witness "Monitor Retrieval Mechanism", served by the log for its own origins:
//   GET <monitoring prefix>/<lowercase hex SHA-256 of the origin>/checkpoint
// with the monitoring prefix <base>/tlog. The answer is the newest checkpoint a witness cosigned,
// with the log's signatures and every witness cosignature collected for it (the spec's "logs can
// facilitate that by ... serving those to monitors"); 404 when no witness has cosigned one.
// Audit role, and a token reads only its own tenant's log: another origin's hash is a 404.
import type { Context, Hono } from 'hono';
import { sha256, toHex, utf8 } from '../canonical/index.js';
import { VouchError } from '../errors.js';
import type { Env } from './app.js';
import type { TileRouteContext } from './routes-tiles.js';

/** The path segment a monitor forms from nothing but the origin it audits. */
export const originHash = (origin: string): string => toHex(sha256(utf8.encode(origin)));

/** `<prefix>/<origin hash>/checkpoint` under the tiles' /tlog: 64 hex digits are no tenant name (TENANT_RE allows 63). */
export const MONITOR_ROUTE = '/tlog/:hash{[0-9a-f]{64}}/checkpoint';

export function registerMonitorRoutes(app: Hono<Env>, rc: TileRouteContext): void {
  const { deps, withRole } = rc;
  app.get(MONITOR_ROUTE, withRole('audit'), async (c: Context<Env>) => {
    const log = await deps.logs(c.get('caller').tenant);
    if (originHash(log.origin) !== c.req.param('hash')) throw new VouchError('ERR_NOT_FOUND', 'no log of this token has that origin hash (lowercase hex SHA-256 of the origin line)');
    const w = log.witnessed && (await log.witnessed());
    if (!w) throw new VouchError('ERR_NOT_FOUND', `no witness has cosigned a checkpoint of ${log.origin}${log.witnessed ? '' : ' (witnessing is off: docs/witnesses.md)'}`);
    const cp = await log.checkpointAt(w.size);
    if (!cp) throw new VouchError('ERR_NOT_FOUND', `the cosigned checkpoint of size ${w.size} is not stored`);
    // A monitor MAY be served a checkpoint up to an hour old (the spec): a short cache keeps it fresh.
    return c.body(cp.note, 200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'max-age=60' });
  });
}
