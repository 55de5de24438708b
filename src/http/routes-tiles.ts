// The log as C2SP tlog-tiles, per tenant under /tlog/<tenant>/: checkpoint, hash tiles and entry
// bundles, read from the store (log/tiles.ts). Audit role; the URL's tenant must be the token's.
import type { Context, Hono } from 'hono';
import { AccessError, VouchError } from '../errors.js';
import { bundleRange, encodeEntryBundle, parseTilePath, readHashTile, TILE_WIDTH } from '../log/tiles.js';
import type { Env } from './app.js';
import type { AppDeps, Role, TenantLogPort } from './deps.js';

export interface TileRouteContext {
  deps: AppDeps;
  withRole: (role: Role) => (c: Context<Env>, next: () => Promise<void>) => Promise<void>;
}

/** Where a tenant's tiled log lives: `<prefix>/checkpoint`, `<prefix>/tile/...`. */
export const tilePrefix = (tenant: string): string => `/tlog/${tenant}`;

// tlog-tiles: the checkpoint is mutable (cache a few seconds at most); full tiles and bundles
// are immutable; partial ones are too, but a log may drop them once the full one exists.
const CACHE_CHECKPOINT = 'max-age=5';
const CACHE_FULL = 'max-age=31536000, immutable';
const CACHE_PARTIAL = 'max-age=60';

async function tenantLog(c: Context<Env>, deps: AppDeps): Promise<TenantLogPort> {
  const caller = c.get('caller');
  if (c.req.param('tenant') !== caller.tenant) throw new AccessError('ERR_FORBIDDEN', 'a token reads only its own tenant\'s log');
  return deps.logs(caller.tenant);
}

async function signedSize(log: TenantLogPort): Promise<number> {
  const cp = await log.latestCheckpoint();
  if (!cp) throw new VouchError('ERR_NOT_FOUND', 'the log has no checkpoint yet');
  return cp.size;
}

/** Entry bundles SHOULD be compressed: gzip when the client accepts it (Go's client does, transparently). */
async function maybeGzip(c: Context<Env>, bytes: Uint8Array<ArrayBuffer>): Promise<{ body: Uint8Array<ArrayBuffer>; headers: Record<string, string> }> {
  if (!/\bgzip\b/.test(c.req.header('accept-encoding') ?? '')) return { body: bytes, headers: { vary: 'accept-encoding' } };
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('gzip'));
  return { body: new Uint8Array(await new Response(stream).arrayBuffer()), headers: { 'content-encoding': 'gzip', vary: 'accept-encoding' } };
}

export function registerTileRoutes(app: Hono<Env>, rc: TileRouteContext): void {
  const { deps, withRole } = rc;

  app.get('/tlog/:tenant/checkpoint', withRole('audit'), async (c) => {
    const log = await tenantLog(c, deps);
    const cp = await log.latestCheckpoint();
    if (!cp) throw new VouchError('ERR_NOT_FOUND', 'the log has no checkpoint yet');
    return c.body(cp.note, 200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': CACHE_CHECKPOINT });
  });

  app.get('/tlog/:tenant/tile/*', withRole('audit'), async (c) => {
    const log = await tenantLog(c, deps);
    // The raw path after /tlog/<tenant>/tile/ (segments 4 on): percent-escapes are not decoded, so
    // only the canonical spelling of a tile matches.
    const t = parseTilePath(new URL(c.req.url).pathname.split('/').slice(4).join('/'));
    const size = await signedSize(log);
    const cache = t.width === TILE_WIDTH ? CACHE_FULL : CACHE_PARTIAL;
    const octets = { 'content-type': 'application/octet-stream', 'cache-control': cache };
    if (t.level !== 'entries') {
      if (!log.nodes) throw new VouchError('ERR_NOT_FOUND', 'this deployment does not serve hash tiles');
      const nodes = log.nodes.bind(log);
      const bytes = await readHashTile(t, size, { nodes });
      return c.body(bytes, 200, octets);
    }
    const { from, to } = bundleRange(t, size);
    const entries: { seq: number; bytes: Uint8Array }[] = [];
    for await (const e of log.entries(from, to)) entries.push(e);
    const bundle = encodeEntryBundle(entries, from, to - from);
    const { body, headers } = await maybeGzip(c, bundle);
    return c.body(body, 200, { ...octets, ...headers });
  });
}
