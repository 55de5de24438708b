// The published key set on Workers (/.well-known/vouch/keys, vkeys, bundles): the secrets' keys and
// every tenant log's key history with each key's sizes per log (JWK `vouch_logs`, `# key` lines),
// as Node publishes them (store/data-dir-keys.ts). The Worker cannot list its log objects, so each
// history is merged into one registry object when a log is activated or revokes a key; retired
// keys stay published after their secrets are gone, and old receipts go on verifying.
import { fromBase64, toBase64 } from '../canonical/index.js';
import { isSignatureAlg, jwksKid, toJwks, type Jwks, type PublicKeyEntry } from '../crypto/index.js';
import { formatVkey, sameKey, type HistoryKey, type KeyWindow, type PublicKey } from '../log/index.js';
import type { WorkerEnv } from './env.js';
import { keyLabel, sameKeys, type WorkerKeySets } from './keys.js';
import type { PublishedKey, StateObjectRpc } from './state-object.js';

/** The VouchState object that holds the published key set (one per deployment). */
export const KEY_REGISTRY = 'keys\u0000published';

export function keyRegistry(env: Pick<WorkerEnv, 'VOUCH_STATE'>): StateObjectRpc {
  return env.VOUCH_STATE.get(env.VOUCH_STATE.idFromName(KEY_REGISTRY)) as unknown as StateObjectRpc;
}

export function publishedOf(origin: string, history: HistoryKey[]): PublishedKey[] {
  return history.map((k) => ({ origin, name: k.name, alg: k.alg, publicKey: toBase64(k.publicKey), window: k.window }));
}

type Row = PublicKey & { origin: string; name: string; window: KeyWindow };

function rowsOf(published: PublishedKey[]): Row[] {
  return published.flatMap((p) => (isSignatureAlg(p.alg) ? [{ origin: p.origin, name: p.name, alg: p.alg, publicKey: fromBase64(p.publicKey), window: p.window }] : []));
}

/**
 * The key set: the secrets' keys (under the deployment's key name, the JWKS kid's) and the
 * histories' keys with their windows. `origin`: one log's history only (its bundle names no other
 * tenant), plus the secrets.
 */
export function publishedKeySet(keyName: string, sets: WorkerKeySets, published: PublishedKey[], origin?: string): { jwks: Jwks; vkeys: string[] } {
  const rows = rowsOf(published).filter((r) => origin === undefined || r.origin === origin);
  const out: (PublicKeyEntry & { logs: Record<string, KeyWindow> })[] = [];
  const add = (k: PublicKey, r?: Row) => {
    let e = out.find((x) => sameKey(x, k));
    if (!e) out.push((e = { alg: k.alg, publicKey: k.publicKey, kid: jwksKid(keyName, k.alg, k.publicKey), logs: {} }));
    if (r) e.logs[r.origin] = r.window;
  };
  const secrets = [...sets.current.keys, ...(sets.previous?.keys ?? [])];
  for (const k of secrets) add(k);
  for (const r of rows) add(r, r);
  const lines = new Set<string>(secrets.map((k) => formatVkey(keyName, k.alg, k.publicKey)));
  const notes: string[] = [];
  for (const r of rows) {
    lines.add(formatVkey(r.name, r.alg, r.publicKey));
    const w = r.window;
    notes.push(`# key ${keyLabel(r.name, r)} log ${r.origin} from ${w.from} to ${w.to ?? '-'} revoked-after ${w.revokedAfter ?? '-'}`);
  }
  return { jwks: toJwks(out), vkeys: [...lines, ...notes] };
}

export type KeysHealth = { ok: true; notice?: string } | { ok: false; code: string; reason: string };

/**
 * The start-up check of the keys against the logs this deployment has published: a log whose
 * history says keys sign it that neither the current nor the previous secrets hold cannot decide
 * (ERR_KEY_MISMATCH). Logs still signed by the previous secrets are counted, so the operator knows
 * when the handover is over. /healthz is public: no origin or tenant is named.
 */
export function keysHealth(keyName: string, sets: WorkerKeySets, published: PublishedKey[]): KeysHealth {
  const current = new Map<string, PublicKey[]>();
  for (const r of rowsOf(published)) {
    if (!r.origin.startsWith(`${keyName}/`) || r.window.to !== undefined) continue;
    current.set(r.origin, [...(current.get(r.origin) ?? []), r]);
  }
  let stranded = 0;
  let pending = 0;
  for (const keys of current.values()) {
    if (sameKeys(keys, sets.current.keys)) continue;
    if (sets.previous && sameKeys(keys, sets.previous.keys)) pending++;
    else stranded++;
  }
  if (stranded > 0) {
    return {
      ok: false,
      code: 'ERR_KEY_MISMATCH',
      reason: `${stranded} tenant log(s) are signed by keys that neither VOUCH_SIGNING_KEY nor VOUCH_SIGNING_KEY_PREVIOUS holds: their decisions are refused. Put back the secrets that sign them, or keep them as the _PREVIOUS secrets beside the new ones until every log has handed over (docs/workers-keys.md)`,
    };
  }
  if (pending > 0) return { ok: true, notice: `key handover: ${pending} tenant log(s) still signed by the _PREVIOUS secrets; each is handed over on its next request. Keep the _PREVIOUS secrets until this is 0 (docs/workers-keys.md)` };
  return { ok: true };
}
