// The audit console: GET /v1/entries (audit role), a filtered page of decoded entries with the
// allow/deny totals and chart, and the page itself at /audit (the Vite bundle in web/dist, Node only;
// see README "Audit console"). Each tenant reads only its own log.
import type { Hono } from 'hono';
import { utf8 } from '../canonical/index.js';
import { InputError, StoreError } from '../errors.js';
import type { LogPort } from '../store/log-port.js';
import { consoleHeaders } from './console-headers.js';
import { answersAuthorization, chartOf, matchesFilter, parseRowFilter, rowOf, withExecutions, type ConsoleRow } from './_console-rows.js';
import type { Env } from './app.js';
import type { RestContext } from './routes-rest.js';

/** The row shape GET /v1/entries answers with; the audit page imports this type. */
export type { ConsoleRow } from './_console-rows.js';

export const MAX_PAGE = 500;
const DEFAULT_PAGE = 100;

/**
 * Rows already read, per log origin. Entries never change once appended, so a row is read once;
 * a request reads only the entries appended since. One `entry(seq)` at a time, as routes-audit.ts
 * does: an open SQLite iterator held across awaits would make the service's own appends fail.
 */
interface RowCache {
  rows: ConsoleRow[];
  /** decision seq -> every row that reports it ran (executions, response decisions), in log order. */
  executions: Map<number, ConsoleRow[]>;
  reading?: Promise<void>;
}

async function catchUp(port: LogPort, cache: RowCache): Promise<void> {
  const size = await port.size();
  for (let seq = cache.rows.length; seq < size; seq++) {
    const bytes = await port.entry(seq);
    if (!bytes) throw new StoreError('ERR_STORE_INCONSISTENT', `entry ${seq} is not stored`);
    const row = rowOf(seq, JSON.parse(utf8.decode(bytes)) as Record<string, unknown>);
    cache.rows.push(row);
    if (answersAuthorization(row)) {
      const list = cache.executions.get(row.link!);
      if (list) list.push(row);
      else cache.executions.set(row.link!, [row]);
    }
  }
}

function countParam(v: string | undefined, name: string, max: number): number | undefined {
  if (v === undefined || v === '') return undefined;
  if (!/^(0|[1-9][0-9]{0,15})$/.test(v) || Number(v) > max) throw new InputError('ERR_INPUT', `${name} must be an integer in [0, ${max}]`, [{ path: `/${name}`, message: 'out of range' }]);
  return Number(v);
}

const CONTENT_TYPES: Record<string, string> = { html: 'text/html; charset=utf-8', js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', svg: 'image/svg+xml' };
const ASSET_PATH = /^(index\.html|assets\/[A-Za-z0-9_-]+\.(js|css|svg))$/;

/**
 * The built page, read from web/dist. Node only, and loaded by a computed specifier so that no
 * bundler (wrangler for Workers) follows it into node:*: the Worker answers 404 for /audit.
 */
async function readAsset(path: string): Promise<Uint8Array | undefined> {
  const proc = (globalThis as { process?: { versions?: { node?: string } } }).process;
  if (!proc?.versions?.node) return undefined;
  const fsName = ['node', 'fs/promises'].join(':');
  const fs = (await import(/* @vite-ignore */ fsName)) as { readFile(u: URL): Promise<Uint8Array> };
  try {
    return await fs.readFile(new URL(`../../web/dist/${path}`, import.meta.url));
  } catch {
    return undefined;
  }
}

export function registerConsoleRoutes(app: Hono<Env>, rc: RestContext): void {
  const { deps, withRole } = rc;
  const caches = new Map<string, RowCache>();
  // CSP, no framing, no sniffing: on every answer of these routes, errors and redirects included.
  const headers = consoleHeaders();
  for (const path of ['/v1/entries', '/audit', '/audit/*']) app.use(path, headers);

  app.get('/v1/entries', withRole('audit'), async (c) => {
    const filter = parseRowFilter((n) => c.req.query(n));
    const from = countParam(c.req.query('from'), 'from', Number.MAX_SAFE_INTEGER) ?? 0;
    const limit = countParam(c.req.query('limit'), 'limit', MAX_PAGE) ?? DEFAULT_PAGE;
    const port = await deps.logs(c.get('caller').tenant);
    let cache = caches.get(port.origin);
    if (!cache) caches.set(port.origin, (cache = { rows: [], executions: new Map() }));
    // One reader per log at a time: two requests must not append the same rows twice.
    while (cache.reading) await cache.reading;
    cache.reading = catchUp(port, cache).finally(() => (cache!.reading = undefined));
    await cache.reading;

    const size = await port.size();
    const rows = cache.rows;
    const byseq = (seq: number) => (seq < rows.length ? rows[seq] : undefined);
    // Only what the log held when this request began: a linked row appended since does not count.
    const decorated = (r: ConsoleRow): ConsoleRow => withExecutions(r, cache!.executions.get(r.seq)?.filter((x) => x.seq < size), byseq);
    const matching = rows.slice(0, size).map(decorated).filter((r) => matchesFilter(r, filter));
    const start = matching.findIndex((r) => r.seq >= from);
    const page = start < 0 ? [] : matching.slice(start, start + limit);
    const after = start < 0 ? undefined : matching[start + limit];
    return c.json({
      size: cache.rows.length,
      total: matching.length,
      counts: { allow: matching.filter((r) => r.effect === 'allow').length, deny: matching.filter((r) => r.effect === 'deny').length },
      chart: chartOf(matching),
      rows: page,
      next: after ? after.seq : null,
    });
  });

  app.get('/audit', (c) => c.redirect('/audit/', 302));
  app.get('/audit/*', async (c) => {
    const path = c.req.path.slice('/audit/'.length) || 'index.html';
    if (!ASSET_PATH.test(path)) return c.json({ error: { code: 'ERR_NOT_FOUND', message: `no console file ${path}` } }, 404);
    const bytes = await readAsset(path);
    if (!bytes) {
      const message = path === 'index.html' ? 'the audit console is not built here: run `npm run build:web` (Node only)' : `no console file ${path}`;
      return c.json({ error: { code: 'ERR_NOT_FOUND', message } }, 404);
    }
    return c.body(bytes as Uint8Array<ArrayBuffer>, 200, { 'content-type': CONTENT_TYPES[path.split('.').pop()!] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
  });
}
