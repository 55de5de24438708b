// vouch init: keys (never overwritten), the data directory, and an example config to start from.
import { copyFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { initDataDir, loadKeys } from '../../store/node.js';
import { parse } from '../args.js';
import { EXIT, type Io } from '../io.js';

export const help = `vouch init [--data DIR] [--no-ed25519] [--json]

Create the data directory: an ML-DSA-65 signing key and an Ed25519 co-signing key (files with
mode 0600), the logs folder, and an example config (vouch.yaml with its Cedar policy) to edit.
Existing keys and files are kept, never overwritten.`;

const EXAMPLE_DIR = new URL('../../../fixtures/config/', import.meta.url);

export async function run(argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, { 'no-ed25519': { type: 'boolean', default: false } });
  if (values.help) return io.out(help), EXIT.ok;
  const dir = values.data!;
  const res = initDataDir(dir, { ed25519: !values['no-ed25519'] });
  const copied: string[] = [];
  if (existsSync(EXAMPLE_DIR)) {
    for (const f of readdirSync(EXAMPLE_DIR)) {
      if (!/\.(ya?ml|cedar|json)$/.test(f)) continue;
      const to = join(dir, f === 'vouch.example.yaml' ? 'vouch.yaml' : f);
      if (existsSync(to)) continue;
      copyFileSync(new URL(f, EXAMPLE_DIR), to);
      copied.push(to);
    }
  }
  const { keys } = loadKeys(dir);
  if (values.json) {
    io.out(JSON.stringify({ data: dir, created: [...res.created, ...copied], kept: res.kept, keys: keys.map((k) => ({ alg: k.alg, keyId: k.keyId, vkey: k.vkey })) }));
  } else {
    for (const p of res.created) io.out(`created ${p}`);
    for (const p of copied) io.out(`created ${p}`);
    for (const p of res.kept) io.out(`kept    ${p} (existing keys are never overwritten)`);
    for (const k of keys) io.out(`${k.alg.padEnd(9)} key ${k.keyId}  vkey ${k.vkey.length > 90 ? k.vkey.slice(0, 87) + '...' : k.vkey}`);
  }
  return EXIT.ok;
}
