// The service's public keys, fetched once from /.well-known/vouch/keys and parsed by the core's
// own parseTrust: every receipt and bundle check in the page runs against these, in the browser.
import { parseTrust } from '../../src/receipt/index.js';
import { getJson } from './api.js';

export type Trust = ReturnType<typeof parseTrust>;

let keys: Promise<{ trust: Trust; keyIds: string[] }> | undefined;

export function loadTrust(): Promise<{ trust: Trust; keyIds: string[] }> {
  keys ??= getJson<{ keys: { kid?: string }[] }>('/.well-known/vouch/keys').then((jwks) => ({
    trust: parseTrust(JSON.stringify(jwks)),
    keyIds: jwks.keys.map((k) => k.kid ?? '(no kid)'),
  }));
  keys.catch(() => (keys = undefined));
  return keys;
}
