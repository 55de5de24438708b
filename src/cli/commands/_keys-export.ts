// vouch keys export (issue 37): a log's public keys in each form a verifier takes (a JWKS, signed-note
// vkey lines, an audit bundle's keys.json), read-only from the key files and the log, so it runs while
// a gateway or `vouch serve` holds the data directory. Public material only: no seed leaves here.
import { existsSync, writeFileSync } from 'node:fs';
import { bytesEqual } from '../../canonical/index.js';
import { jwksKid, toJwks, type Jwks, type PublicKeyEntry } from '../../crypto/index.js';
import { StoreError } from '../../errors.js';
import { formatVkey, logOriginOf } from '../../log/index.js';
import { loadKeys, logPath, openSqliteStore } from '../../store/node.js';
import { tenantKeysForVerify } from '../../store/tenant-keys.js';
import { EXIT, UsageError, type Io } from '../io.js';
import { originOf } from './_audit-open.js';

export const KEY_FORMATS = ['jwks', 'note', 'keys-json'] as const;
export type KeyFormat = (typeof KEY_FORMATS)[number];

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
    origin = originOf(store, tenant, keyName);
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

/** The text of one format: what `--key` (verify, verify BUNDLE, replay) takes back, each recognized by its shape. */
export function formatKeys(k: ExportedKeys, format: KeyFormat): string {
  if (format === 'jwks') return JSON.stringify(k.jwks, null, 2) + '\n';
  if (format === 'keys-json') return JSON.stringify({ vkeys: k.vkeys, jwks: k.jwks }, null, 1) + '\n'; // as audit/export.ts writes keys.json
  return [`# public keys of ${k.origin} (vouch keys export --format note): one vkey a line`, ...k.vkeys, ...k.windows].join('\n') + '\n';
}

export function runKeysExport(dir: string, opts: { tenant: string; keyName: string; format?: string; out?: string; json?: boolean }, io: Io): number {
  const format = (opts.format ?? 'jwks') as KeyFormat;
  if (!KEY_FORMATS.includes(format)) throw new UsageError(`--format must be one of ${KEY_FORMATS.join(', ')}`);
  if (opts.tenant === '*') throw new UsageError('keys export takes one --tenant (each log has its own key history)');
  const text = formatKeys(exportedKeys(dir, opts.keyName, opts.tenant), format);
  if (opts.out === undefined) {
    io.out(text.replace(/\n$/, ''));
    return EXIT.ok;
  }
  writeFileSync(opts.out, text, { mode: 0o644 }); // public: meant to be copied off the machine
  if (opts.json) io.out(JSON.stringify({ out: opts.out, format, tenant: opts.tenant }));
  else io.out(`wrote the public keys of tenant ${opts.tenant} (${format}) to ${opts.out}: verify with \`vouch verify RECEIPT --key ${opts.out}\``);
  return EXIT.ok;
}
