// A tenant log's published key set (issue 37), read-only from the key files and the log: what
// `vouch keys export` prints and what a read-only attached server publishes. Public keys only.
import { existsSync } from 'node:fs';
import { bytesEqual } from '../canonical/index.js';
import { jwksKid, toJwks, type Jwks, type PublicKeyEntry } from '../crypto/index.js';
import { StoreError } from '../errors.js';
import { formatVkey, logOriginOf } from '../log/index.js';
import { logPath } from './data-dir-layout.js';
import { loadKeys } from './data-dir-key-files.js';
import { openSqliteStore } from './sqlite.js';
import { tenantKeysForVerify } from './tenant-keys.js';

export interface ExportedKeys {
  origin: string;
  /** vkey lines (c2sp.org/signed-note): each key under the data directory's key name and under every name it signs the log with. */
  vkeys: string[];
  /** `# key <name>+<id> log <origin> from N to M revoked-after R` lines: the sizes each key signs (vouch's parseTrust reads them). */
  windows: string[];
  jwks: Jwks;
}

/**
 * The tenant log's published key set: the key files' public keys and the log's checked key history.
 * A history that cannot be trusted is refused (ERR_STORE_INCONSISTENT), never exported in part: an
 * auditor pins what this prints. A tenant without a log yet: its first checkpoints will sign under
 * its origin (store/tenant-keys.ts genesisName), so the vkeys name that too.
 */
export function exportedKeys(dir: string, keyName: string, tenant: string): ExportedKeys {
  const { keys: files } = loadKeys(dir, keyName);
  const vkeys = files.map((k) => k.vkey);
  const windows: string[] = [];
  const entries: PublicKeyEntry[] = files.map((k) => ({ alg: k.alg, publicKey: k.publicKey, kid: k.keyId }));
  let origin = logOriginOf(keyName, tenant);
  const add = (vkey: string) => void (vkeys.includes(vkey) || vkeys.push(vkey));
  if (!existsSync(logPath(dir, tenant))) {
    for (const k of files) add(formatVkey(origin, k.alg, k.publicKey));
    return { origin, vkeys, windows, jwks: toJwks(entries) };
  }
  const store = openSqliteStore(logPath(dir, tenant), { readonly: true });
  try {
    origin = store.meta('origin') ?? origin;
    const { keys: h, problems } = tenantKeysForVerify(store, origin, files, keyName);
    if (problems.length) throw new StoreError('ERR_STORE_INCONSISTENT', `the key history of tenant ${tenant} cannot be trusted, so no keys are exported (\`vouch log verify --tenant ${tenant}\` says more): ${problems.map((p) => p.message).join('; ')}`);
    for (const k of h.history.keys) {
      add(formatVkey(k.name, k.alg, k.publicKey));
      const w = k.window;
      windows.push(`# key ${k.name}+${k.keyId} log ${origin} from ${w.from} to ${w.to ?? '-'} revoked-after ${w.revokedAfter ?? '-'}`);
      let e = entries.find((x) => x.alg === k.alg && bytesEqual(x.publicKey, k.publicKey));
      if (!e) entries.push((e = { alg: k.alg, publicKey: k.publicKey, kid: jwksKid(keyName, k.alg, k.publicKey) }));
      e.logs = { ...e.logs, [origin]: k.window };
    }
  } finally {
    store.close();
  }
  return { origin, vkeys, windows, jwks: toJwks(entries) };
}

