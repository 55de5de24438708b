// The keys every receipt and bundle check in the page runs against: online, the service's own,
// fetched once from /.well-known/vouch/keys and parsed by the core's parseTrust; opened from a
// file, the keys the auditor pinned (pinned-keys.ts), or none.
import { parseTrust } from '../../src/receipt/index.js';
import { getJson, isOffline } from './api.js';
import { loadPinned } from './pinned-keys.js';

export type Trust = ReturnType<typeof parseTrust>;

let keys: Promise<{ trust: Trust; keyIds: string[] }> | undefined;

export function loadTrust(): Promise<{ trust: Trust; keyIds: string[] }> {
  if (isOffline()) {
    const p = loadPinned();
    return p ? Promise.resolve({ trust: p.trust, keyIds: p.ids }) : Promise.reject(new Error("no keys pinned: paste or drop the log's published keys under Trusted keys"));
  }
  keys ??= getJson<{ keys: { kid?: string }[] }>('/.well-known/vouch/keys').then((jwks) => ({
    trust: parseTrust(JSON.stringify(jwks)),
    keyIds: jwks.keys.map((k) => k.kid ?? '(no kid)'),
  }));
  keys.catch(() => (keys = undefined));
  return keys;
}
