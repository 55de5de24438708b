// `vouch init` (Node only): the data directory's folders (0700) and its first keys (0600 files),
// made only where no log exists yet; existing keys are never overwritten.
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SignatureAlg } from '../crypto/index.js';
import { generateSeed, writeKeyFile } from '../crypto/node.js';
import { keyPaths, listTenants } from './data-dir-layout.js';
import { missingKeyFile } from './data-dir-key-files.js';

export interface InitResult {
  created: string[];
  kept: string[];
}

/**
 * Create keys where missing; existing keys are kept, never overwritten. Only a directory without a
 * log gets new keys (its first run): a key made beside a log it did not sign would only be refused
 * as a stranger's, and the log's own key would look lost. There, a missing key file is an error.
 */
export function initDataDir(dir: string, opts: { ed25519?: boolean; mldsa44?: boolean } = {}): InitResult {
  const out: InitResult = { created: [], kept: [] };
  if (listTenants(dir).length > 0) {
    const paths = keyPaths(dir);
    if (!existsSync(paths.mldsa)) throw missingKeyFile(dir, 'ML-DSA-65');
    // Nor an Ed25519 or ML-DSA-44 file: whether the log needs one, opening it says (tenant-keys.ts).
    // A log made before ML-DSA-44 log signatures gains that key with \`vouch keys rotate\` (a signed
    // key entry), never by a file appearing beside it (its checkpoints would then lack a line).
    out.kept.push(...[paths.mldsa, paths.ed25519, paths.mldsa44].filter((p) => existsSync(p)));
    return out;
  }
  // The directory itself only when vouch creates it (it may be one the operator made for more);
  // keys/ and logs/ are vouch's own: 0700 whatever they were.
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  }
  for (const sub of ['keys', 'logs']) {
    mkdirSync(join(dir, sub), { recursive: true, mode: 0o700 });
    chmodSync(join(dir, sub), 0o700);
  }
  const paths = keyPaths(dir);
  const want: [string, SignatureAlg][] = [[paths.mldsa, 'ML-DSA-65']];
  if (opts.ed25519 !== false) want.push([paths.ed25519, 'Ed25519']);
  // tlog-checkpoint: logs SHOULD sign with ML-DSA-44 (type 0x06), what public witnesses read.
  if (opts.mldsa44 !== false) want.push([paths.mldsa44, 'ML-DSA-44']);
  for (const [path, alg] of want) {
    if (existsSync(path)) out.kept.push(path);
    else {
      writeKeyFile(path, generateSeed(), alg);
      out.created.push(path);
    }
  }
  return out;
}
