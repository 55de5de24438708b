// Key changes on a tenant's open log in its object: the handover to new secrets (Node's
// rotation) and the revocation of a retired key (Node's `vouch keys revoke`).
import { toHex } from '../canonical/index.js';
import { noteKeyId } from '../crypto/index.js';
import { ConfigError } from '../errors.js';
import { revokeEntryBody, rotateEntryBody, sameKey, type HistoryKey } from '../log/index.js';
import { tenantKeys } from '../store/tenant-keys.js';
import { noteSignersOf } from './keys.js';
import { HANDOVER_BY } from './log-object-rpc.js';
import { signing, type OpenLog } from './open-log.js';

/**
 * The handover (Node's rotation): a `key` rotate entry naming the outgoing and incoming keys,
 * committed alone and covered by a checkpoint of exactly its size signed by the outgoing keys;
 * the incoming keys sign every later checkpoint, under the log's origin. `legacy`: the
 * deployment's key name (env.ts keyNameOf).
 */
export async function handOver(log: OpenLog, time: string, legacy: string): Promise<void> {
  const next = log.handoverTo!;
  const body = rotateEntryBody(time, log.keys.history.current, { name: log.origin, keys: next.keys }, HANDOVER_BY);
  await log.appender.rotate(body, signing(noteSignersOf(next, log.origin)));
  log.keys = tenantKeys(log.store, log.origin, next.keys, legacy);
  log.handoverTo = undefined;
}

/**
 * As DataDirKeys.revoke on Node: KEYID is any id of the key (under the log's names, or the JWKS
 * kid's). `committed` runs once the revoke entry is committed (the alarm's follow-ups).
 */
export async function revokeKey(log: OpenLog, req: { keyId: string; after: number; time: string; by: string }, legacy: string, committed: () => void): Promise<{ key: HistoryKey; seq: number; keys: HistoryKey[] }> {
  const { keyId, after, time, by } = req;
  const ids = (k: HistoryKey) => [k.keyId, toHex(noteKeyId(legacy, k.alg, k.publicKey)), toHex(noteKeyId(log.origin, k.alg, k.publicKey))];
  const key = log.keys.history.keys.find((k) => ids(k).includes(keyId.toLowerCase()));
  if (!key) throw new ConfigError('ERR_CONFIG', `no key ${keyId} in the history of ${log.origin} (GET /v1/keys lists it)`);
  if (log.keys.history.current.keys.some((k) => sameKey(k, key))) throw new ConfigError('ERR_CONFIG', `key ${keyId} still signs ${log.origin}: hand the log over to new secrets first (docs/workers-keys.md), then revoke it`);
  if (!Number.isSafeInteger(after) || after < 0) throw new ConfigError('ERR_CONFIG', 'after must be a tree size (a non-negative integer)');
  const a = await log.appender.append(revokeEntryBody(time, key, after, by));
  committed();
  log.keys = tenantKeys(log.store, log.origin, log.keys.history.current.keys, legacy);
  const now = log.keys.history.keys;
  return { key: now.find((k) => k.name === key.name && sameKey(k, key)) ?? key, seq: a.seq, keys: now };
}
