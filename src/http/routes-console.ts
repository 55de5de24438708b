// The audit console: GET /v1/entries (audit role), a filtered page of decoded entries, oldest or
// newest first, with the allow/deny totals, the timeline and the per-tool and per-principal
// breakdowns; GET /v1/tools/pins (audit role), the tool pins with the definitions the log holds;
// GET /v1/payloads/:digest/erasure (audit role), the erasure entry that removed a payload; and the page itself at /audit (the Vite bundle in web/dist, Node only; see docs/console.md).
// Each tenant reads only its own log.
import type { Hono } from 'hono';
import { parseDigest, parseJson, utf8, type Digest } from '../canonical/index.js';
import { InputError, StoreError, VouchError } from '../errors.js';
import { toolDigest } from '../entries/index.js';
import type { LogPort } from '../store/log-port.js';
import { consoleHeaders } from './console-headers.js';
import { breakdownOf, chartOf } from './_console-chart.js';
import { ErasureFold } from './_console-erasures.js';
import { PinFold } from './_console-pins.js';
import { answersAuthorization, matchesFilter, parseRowFilter, rowOf, withExecutions, type ConsoleRow } from './_console-rows.js';
import type { Env } from './app.js';
import type { RestContext } from './routes-rest.js';

/** The row shape GET /v1/entries answers with; the audit page imports this type. */
export type { ConsoleRow } from './_console-rows.js';
export type { Breakdown, Chart, Series, Tally } from './_console-chart.js';
export type { PinRow } from './_console-pins.js';

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
  /** The tool pins, folded from the `pin` entries read so far. */
  pins: PinFold;
  /** The erasure entries read so far, by the digests they name. */
  erasures: ErasureFold;
  reading?: Promise<void>;
}

async function catchUp(port: LogPort, cache: RowCache): Promise<void> {
  const size = await port.size();
  for (let seq = cache.rows.length; seq < size; seq++) {
    const bytes = await port.entry(seq);
    if (!bytes) throw new StoreError('ERR_STORE_INCONSISTENT', `entry ${seq} is not stored`);
    const raw = JSON.parse(utf8.decode(bytes)) as Record<string, unknown>;
    const row = rowOf(seq, raw);
    cache.rows.push(row);
    cache.pins.add(seq, raw);
    cache.erasures.add(seq, raw);
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

/** The answer of a list request is a function of the log's size (entries never change): its ETag. */
const etagOf = (origin: string, size: number) => `"${encodeURIComponent(origin)}@${size}"`;

function orderParam(v: string | undefined): 'oldest' | 'newest' {
  if (v === undefined || v === '' || v === 'oldest') return 'oldest';
  if (v === 'newest') return 'newest';
  throw new InputError('ERR_INPUT', 'order must be oldest or newest', [{ path: '/order', message: 'oldest or newest' }]);
}

/** The index of the last row with seq <= max (rows ascend by seq), or -1. */
function lastAtOrBefore(rows: ConsoleRow[], max: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid].seq <= max) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** A tool definition the log holds (a payload stored under its digest), checked against that digest. */
async function definitionOf(port: LogPort, digest: Digest | null): Promise<{ definition: unknown } | { missing: string } | null> {
  if (!digest) return null;
  const bytes = await port.payload(digest);
  if (!bytes) return { missing: 'not stored in this log (or erased): only its digest is recorded' };
  let def: unknown;
  try {
    def = parseJson(utf8.decode(bytes));
  } catch {
    return { missing: 'stored, but not JSON' };
  }
  if (typeof def !== 'object' || def === null || Array.isArray(def) || toolDigest(def as Record<string, unknown>) !== digest) return { missing: 'stored, but not matching its digest' };
  return { definition: def };
}

export function registerConsoleRoutes(app: Hono<Env>, rc: RestContext): void {
  const { deps, withRole } = rc;
  const caches = new Map<string, RowCache>();
  // CSP, no framing, no sniffing: on every answer of these routes, errors and redirects included.
  const headers = consoleHeaders();
  for (const path of ['/v1/entries', '/v1/tools/pins', '/v1/payloads/:digest/erasure', '/audit', '/audit/*']) app.use(path, headers);

  /** The tenant's rows, read up to the log's size at the call; that size. */
  async function rowsOf(port: LogPort): Promise<{ cache: RowCache; size: number }> {
    const size = await port.size();
    let cache = caches.get(port.origin);
    if (!cache) caches.set(port.origin, (cache = { rows: [], executions: new Map(), pins: new PinFold(), erasures: new ErasureFold() }));
    // One reader per log at a time: two requests must not append the same rows twice.
    while (cache.reading) await cache.reading;
    if (cache.rows.length < size) {
      cache.reading = catchUp(port, cache).finally(() => (cache!.reading = undefined));
      await cache.reading;
    }
    return { cache, size };
  }

  app.get('/v1/entries', withRole('audit'), async (c) => {
    const filter = parseRowFilter((n) => c.req.query(n));
    const order = orderParam(c.req.query('order'));
    const from = countParam(c.req.query('from'), 'from', Number.MAX_SAFE_INTEGER);
    const limit = countParam(c.req.query('limit'), 'limit', MAX_PAGE) ?? DEFAULT_PAGE;
    const port = await deps.logs(c.get('caller').tenant);
    // Live updates poll with If-None-Match: nothing appended since, nothing to read or send.
    const etag = etagOf(port.origin, await port.size());
    if (c.req.header('if-none-match') === etag) return c.body(null, 304, { etag, 'cache-control': 'no-cache' });
    const { cache, size } = await rowsOf(port);

    const rows = cache.rows;
    const byseq = (seq: number) => (seq < rows.length ? rows[seq] : undefined);
    // Only what the log held when this request began: a linked row appended since does not count.
    const decorated = (r: ConsoleRow): ConsoleRow => withExecutions(r, cache.executions.get(r.seq)?.filter((x) => x.seq < size), byseq);
    const matching = rows.slice(0, size).map(decorated).filter((r) => matchesFilter(r, filter));
    let page: ConsoleRow[];
    let next: number | null;
    if (order === 'newest') {
      // From the newest at or before `from` (default: the newest) down.
      const end = lastAtOrBefore(matching, from ?? Number.MAX_SAFE_INTEGER);
      page = matching.slice(Math.max(0, end - limit + 1), end + 1).reverse();
      next = end - limit >= 0 ? matching[end - limit].seq : null;
    } else {
      const start = matching.findIndex((r) => r.seq >= (from ?? 0));
      page = start < 0 ? [] : matching.slice(start, start + limit);
      next = start < 0 ? null : (matching[start + limit]?.seq ?? null);
    }
    c.header('etag', etagOf(port.origin, size));
    c.header('cache-control', 'no-cache');
    return c.json({
      size,
      order,
      total: matching.length,
      counts: { allow: matching.filter((r) => r.effect === 'allow').length, deny: matching.filter((r) => r.effect === 'deny').length },
      chart: chartOf(matching),
      breakdown: { tool: breakdownOf(matching, 'target'), principal: breakdownOf(matching, 'principal') },
      rows: page,
      next,
    });
  });

  // What `vouch tools list` lists, for the console: each pin, a changed definition awaiting
  // approval, and both definitions where the log holds them (else their digests only).
  app.get('/v1/tools/pins', withRole('audit'), async (c) => {
    const port = await deps.logs(c.get('caller').tenant);
    const { cache } = await rowsOf(port);
    const pins = [];
    for (const p of cache.pins.rows()) {
      const [pinned, pending] = await Promise.all([definitionOf(port, p.pinned), definitionOf(port, p.pending)]);
      pins.push({ ...p, definitions: { pinned, pending } });
    }
    return c.json({ pins });
  });

  // Which erasure entry removed a payload the console could not fetch: `after` is the seq of the
  // entry that names it (the first erasure after it counts). 404 when no erasure entry names it
  // after that entry: then the payload was never stored, or is missing (a finding for the audit).
  app.get('/v1/payloads/:digest/erasure', withRole('audit'), async (c) => {
    const digest = parseDigest(c.req.param('digest'), '/digest');
    const after = countParam(c.req.query('after'), 'after', Number.MAX_SAFE_INTEGER) ?? -1;
    const { cache, size } = await rowsOf(await deps.logs(c.get('caller').tenant));
    const erasure = cache.erasures.after(digest, after, size);
    if (!erasure) throw new VouchError('ERR_NOT_FOUND', `no erasure entry names ${digest}${after >= 0 ? ` after entry ${after}` : ''}`);
    return c.json({ digest, erasure });
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
