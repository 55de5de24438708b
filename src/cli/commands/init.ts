// vouch init: keys (never overwritten), the data directory, and an example config to start from.
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { jwksKid } from '../../crypto/index.js';
import { logOriginOf } from '../../log/index.js';
import { DEFAULT_KEY_NAME, initDataDir, loadKeys } from '../../store/node.js';
import { parse } from '../args.js';
import { EXIT, type Io } from '../io.js';

export const help = `vouch init [--data DIR] [--no-ed25519] [--json]

Create the data directory: an ML-DSA-65 signing key and an Ed25519 co-signing key (files with
mode 0600), the logs folder, and an example config (vouch.yaml with its Cedar policy) to edit.
Existing keys and files are kept, never overwritten.`;

const EXAMPLE_DIR = new URL('../../../fixtures/config/', import.meta.url);
const EXAMPLE = 'vouch.example.yaml';

/**
 * The example config as DIR/vouch.yaml, with the policy and schema files it names beside it.
 * Existing files are kept, never overwritten. `vouch init` and a first `vouch serve` both call it.
 */
export function writeExampleConfig(dir: string): string[] {
  const example = new URL(EXAMPLE, EXAMPLE_DIR);
  if (!existsSync(example)) return [];
  const doc = parseYaml(readFileSync(example, 'utf8')) as { policies?: { files?: unknown; schema?: unknown } } | null;
  const named = [...(Array.isArray(doc?.policies?.files) ? doc.policies.files : []), doc?.policies?.schema].filter((f): f is string => typeof f === 'string' && /^[A-Za-z0-9._-]+$/.test(f));
  const copied: string[] = [];
  // The referenced files first: a vouch.yaml never appears without the files it needs.
  for (const [from, to] of [...named.map((f) => [f, f]), [EXAMPLE, 'vouch.yaml']]) {
    const dest = join(dir, to);
    if (existsSync(dest)) continue;
    copyFileSync(new URL(from, EXAMPLE_DIR), dest);
    copied.push(dest);
  }
  return copied;
}

export async function run(argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, { 'no-ed25519': { type: 'boolean', default: false } });
  if (values.help) return io.out(help), EXIT.ok;
  const dir = values.data!;
  const res = initDataDir(dir, { ed25519: !values['no-ed25519'] });
  const copied = writeExampleConfig(dir);
  // A new log signs under its origin (tlog-checkpoint: the key name SHOULD match it), so the vkeys
  // that verify receipts are named <key name>/<tenant>: shown for the default tenant.
  const origin = logOriginOf(DEFAULT_KEY_NAME, 'default');
  const { keys } = loadKeys(dir, origin);
  if (values.json) {
    io.out(JSON.stringify({ data: dir, created: [...res.created, ...copied], kept: res.kept, origin, keys: keys.map((k) => ({ alg: k.alg, keyId: k.keyId, kid: jwksKid(DEFAULT_KEY_NAME, k.alg, k.publicKey), vkey: k.vkey })) }));
  } else {
    for (const p of res.created) io.out(`created ${p}`);
    for (const p of copied) io.out(`created ${p}`);
    for (const p of res.kept) io.out(`kept    ${p} (existing keys are never overwritten)`);
    io.out(`keys of log ${origin} (tenant T signs as ${DEFAULT_KEY_NAME}/T; a running service serves every log's at /.well-known/vouch/vkeys):`);
    // One key, two ids (issue 37): the id its checkpoint lines carry (under the log's name) and its JWKS kid.
    for (const k of keys) io.out(`${k.alg.padEnd(9)} key ${k.name}+${k.keyId} (JWKS kid ${jwksKid(DEFAULT_KEY_NAME, k.alg, k.publicKey)})  vkey ${k.vkey.length > 90 ? k.vkey.slice(0, 87) + '...' : k.vkey}`);
  }
  return EXIT.ok;
}
