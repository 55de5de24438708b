// The key lifecycle over REST (issue 18). Rotation acts on the whole data directory (one key set
// signs every tenant log: each gets its signed `key` entry and handover, as `vouch keys rotate`),
// so it needs the operator role, which no tenant token carries (issue 35); a tenant admin revokes
// a retired key of its own log after a size and reads its own log's key history. Each `key` entry
// records who (`by`). Portable: the work is behind the KeyAdmin port (Node: node-key-admin.ts).
import type { Hono } from 'hono';
import { toBase64 } from '../canonical/index.js';
import { ConfigError, InputError } from '../errors.js';
import type { HistoryKey, KeyHistory } from '../log/index.js';
import type { Env } from './app.js';
import type { AppDeps } from './deps.js';
import { readJsonBody } from './body.js';
import type { RestContext } from './routes-rest.js';

export interface KeyAdmin {
  rotate(time: string, by: string): Promise<{ logs: { tenant: string; seq: number; size: number }[]; keys: { alg: string; publicKey: string }[] }>;
  revoke(tenant: string, keyId: string, after: number, time: string, by: string): Promise<{ key: HistoryKey; seq: number }>;
  history(tenant: string): Promise<KeyHistory | undefined>;
}

export type KeyAppDeps = AppDeps & { keyAdmin?: KeyAdmin };

const keyJson = (k: HistoryKey) => ({ name: k.name, keyId: k.keyId, alg: k.alg, publicKey: toBase64(k.publicKey), ...k.window });

export function registerKeyRoutes(app: Hono<Env>, rc: RestContext): void {
  const { deps, limits, withRole } = rc;
  const admin = (deps as KeyAppDeps).keyAdmin;
  const need = (): KeyAdmin => {
    if (!admin) throw new ConfigError('ERR_CONFIG', 'this deployment cannot change its keys at run time');
    return admin;
  };

  registerKeyReadRoutes(app, rc);

  // Rotation is for the whole data directory (one key set signs every tenant log): the operator's,
  // never a tenant admin's. The operator is answered with every log it rotated.
  app.post('/v1/keys/rotate', withRole('operator'), async (c) => {
    const r = await need().rotate(deps.clock.now().toISOString(), c.get('caller').principal);
    return c.json({ rotated: true, logs: r.logs, keys: r.keys });
  });

  app.post('/v1/keys/revoke', withRole('admin'), async (c) => {
    const body = (await readJsonBody(c.req.raw, limits.bodyBytes)) as Record<string, unknown> | null;
    const keyId = body?.keyId;
    const after = body?.after;
    if (typeof keyId !== 'string' || !/^[0-9a-fA-F]{8}$/.test(keyId) || !Number.isSafeInteger(after) || (after as number) < 0) {
      throw new InputError('ERR_INPUT', 'body must be {"keyId": "<8 hex digits>", "after": <tree size>}', [{ path: '/keyId', message: '8 hex digits' }, { path: '/after', message: 'a non-negative integer' }]);
    }
    const caller = c.get('caller');
    const r = await need().revoke(caller.tenant, keyId, after as number, deps.clock.now().toISOString(), caller.principal);
    return c.json({ revoked: true, key: keyJson(r.key), seq: r.seq });
  });
}

/** The log's key history (names, windows, revocations): admin role, as on the service. Also on the gateway's listener. */
export function registerKeyReadRoutes(app: Hono<Env>, rc: Pick<RestContext, 'deps' | 'withRole'>): void {
  const admin = (rc.deps as KeyAppDeps).keyAdmin;
  app.get('/v1/keys', rc.withRole('admin'), async (c) => {
    if (!admin) throw new ConfigError('ERR_CONFIG', 'this deployment keeps no key history to read');
    const h = await admin.history(c.get('caller').tenant);
    return c.json({ keys: h?.keys.map(keyJson) ?? [] });
  });
}
