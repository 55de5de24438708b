// `vouch serve --read-only` (Node only, issue 37): the audit routes and the console over a data
// directory a running gateway or `vouch serve` holds, without its writer lock and without writing a
// byte there. Each tenant's log is a verified reader (store/verified-reader.ts); every route that
// would write (decisions, policy, keys, erasure) answers 409 ERR_READ_ONLY.
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { systemClock } from '../clock.js';
import { describeMldsaBackend } from '../crypto/node.js';
import { ConfigError, codeOf, publicMessage, VouchError } from '../errors.js';
import { loadKeys, listTenants, DEFAULT_KEY_NAME } from '../store/node.js';
import { exportedKeys } from '../store/published-keys.js';
import { openVerifiedReader, readOnlyRefusal, type VerifiedReader } from '../store/verified-reader.js';
import { createApp } from './app.js';
import { createAuthenticator, type AuthConfig } from './auth.js';
import type { AppDeps } from './deps.js';
import { protectedResourceOf } from './oauth-metadata.js';
import { parseAllowedOrigins } from './web-guard.js';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1)$/;

/** Reads, whatever their method: replay and what-if re-run decisions in memory (POST for the body). */
const READ_POSTS = new Set(['/v1/replay']);

export interface ReadOnlyOptions {
  data: string;
  host?: string;
  port?: number;
  auth?: AuthConfig;
  allowOrigins?: string[];
  keyName?: string;
  logLine?: (line: Record<string, unknown>) => void;
}

export interface ReadOnlyServer {
  url: string;
  port: number;
  /** The ML-DSA-65 key file's JWKS kid (the ready line names it, as `vouch serve` does). */
  keyId: string;
  /** The tenants with a log when it started (others are opened as they are asked for). */
  tenants: string[];
  close(): Promise<void>;
}

export async function startReadOnlyServer(opts: ReadOnlyOptions): Promise<ReadOnlyServer> {
  const host = opts.host ?? '127.0.0.1';
  const keyName = opts.keyName ?? DEFAULT_KEY_NAME;
  if (!opts.auth && !LOOPBACK.test(host)) throw new ConfigError('ERR_CONFIG', `refusing to listen on ${host} without auth: development mode (no tokens) binds to loopback only; configure --auth to serve other hosts`);
  if (!existsSync(opts.data)) throw new ConfigError('ERR_CONFIG', `no data directory ${opts.data}: --read-only attaches to one a gateway or \`vouch serve\` made (it creates nothing)`);
  const allowOrigins = [...parseAllowedOrigins(opts.allowOrigins, '/allowOrigins'), ...parseAllowedOrigins(opts.auth?.allowOrigins, '/auth/allowOrigins')];
  const files = loadKeys(opts.data, keyName).keys; // the key files must be there (read only)
  const readers = new Map<string, VerifiedReader>();
  const readerOf = (tenant: string): VerifiedReader => {
    let r = readers.get(tenant);
    if (!r) readers.set(tenant, (r = openVerifiedReader(opts.data, tenant, keyName)));
    return r;
  };
  const tenants = listTenants(opts.data);
  for (const t of tenants) {
    try {
      readerOf(t).refresh(); // refused now, and said, rather than at the first request
    } catch (e) {
      opts.logLine?.({ level: 'error', msg: 'log refused: not serving it', tenant: t, code: codeOf(e), error: publicMessage(e) });
    }
  }
  // Published keys follow the log's key history; recomputed when its newest verified checkpoint changes.
  const keyCache = new Map<string, { note: string | undefined; keys: ReturnType<typeof exportedKeys> }>();
  const keysOf = (tenant: string) => {
    const note = readers.get(tenant)?.failure() ? undefined : readers.has(tenant) ? safeNote(readers.get(tenant)!) : undefined;
    const had = keyCache.get(tenant);
    if (had && had.note === note && note !== undefined) return had.keys;
    const keys = exportedKeys(opts.data, keyName, tenant);
    keyCache.set(tenant, { note, keys });
    return keys;
  };
  const published = (tenant?: string) => {
    const ts = tenant !== undefined ? [tenant] : listTenants(opts.data);
    const all = (ts.length ? ts : ['default']).map(keysOf);
    const jwks = { keys: [...new Map(all.flatMap((k) => k.jwks.keys).map((k) => [k.kid, k])).values()] };
    const vkeys = [...new Set(all.flatMap((k) => k.vkeys)), ...new Set(all.flatMap((k) => k.windows))];
    return { jwks, vkeys };
  };
  const deps: AppDeps = {
    logs: async (tenant) => {
      const r = readerOf(tenant);
      r.refresh();
      return r.port;
    },
    policy: async () => Promise.reject(readOnlyRefusal('deciding')),
    keys: {
      get jwks() {
        return published().jwks;
      },
      get vkeys() {
        return published().vkeys;
      },
      of: (tenant) => published(tenant),
      keyId: files[0].keyId,
    },
    clock: systemClock,
    mldsa: describeMldsaBackend(),
    authenticate: opts.auth && createAuthenticator(opts.auth, () => systemClock.now()),
    protectedResource: opts.auth && protectedResourceOf(opts.auth),
    allowOrigins,
    logLine: opts.logLine,
    health: () => {
      for (const r of readers.values()) {
        const f = r.failure();
        if (f) return { ok: false, code: f.code, reason: f.message };
      }
      return { ok: true };
    },
    readOnly: (method, path) => (method === 'GET' || method === 'HEAD' || method === 'OPTIONS' || (method === 'POST' && READ_POSTS.has(path)) ? undefined : readOnlyRefusal(`${method} ${path}`)),
  };
  const { app } = createApp(deps);
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: host, port: opts.port ?? 8787 }, () => resolve(s));
    s.once('error', (e: NodeJS.ErrnoException) => reject(new ConfigError('ERR_CONFIG', `cannot listen on ${host}:${opts.port ?? 8787}: ${e.code ?? e.message}`)));
  }).catch((e) => {
    for (const r of readers.values()) r.close();
    throw e;
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    keyId: (files.find((k) => k.alg === 'ML-DSA-65') ?? files[0]).keyId, // under the key name: the JWKS kid
    tenants,
    close: () =>
      (closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
        });
        for (const r of readers.values()) r.close();
      })()),
  };
}

function safeNote(r: VerifiedReader): string | undefined {
  try {
    return r.refresh()?.note;
  } catch (e) {
    if (e instanceof VouchError) return undefined;
    throw e;
  }
}
