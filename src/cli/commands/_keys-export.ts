// vouch keys export (issue 37): a log's public keys in each form a verifier takes (a JWKS, signed-note
// vkey lines, an audit bundle's keys.json), read-only from the key files and the log, so it runs while
// a gateway or `vouch serve` holds the data directory. Public material only: no seed leaves here.
import { writeFileSync } from 'node:fs';
import { exportedKeys, type ExportedKeys } from '../../store/published-keys.js';
import { EXIT, UsageError, type Io } from '../io.js';

export const KEY_FORMATS = ['jwks', 'note', 'keys-json'] as const;
export type KeyFormat = (typeof KEY_FORMATS)[number];

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
