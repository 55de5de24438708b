// Key files across a rotation (NODE-ONLY). The incoming keys are written to keys/next/ (0600)
// before any log is touched; once every tenant log has signed its handover, the outgoing files
// move to keys/history/ (kept, still 0600: old seeds are evidence, never reused) and the incoming
// ones take their place. A rotation that stopped half way leaves keys/next/: `vouch keys rotate`
// finishes it with the same keys.
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { mldsaKeyFromSeed } from '../crypto/index.js';
import { nodeEd25519PublicKeyFromSeed } from '../crypto/node.js';
import { generateSeed, readKeyFile, writeKeyFile } from '../crypto/node.js';
import { ConfigError } from '../errors.js';
import type { PublicKey } from '../log/index.js';

const FILES = { mldsa: 'mldsa65.key', ed25519: 'ed25519.key' } as const;

export interface KeySeeds {
  mldsaSeed: Uint8Array;
  ed25519Seed?: Uint8Array;
  keys: PublicKey[];
}

export const nextKeyDir = (dir: string) => join(dir, 'keys', 'next');
export const keyHistoryDir = (dir: string) => join(dir, 'keys', 'history');

export function rotationPending(dir: string): boolean {
  return existsSync(nextKeyDir(dir)) && readdirSync(nextKeyDir(dir)).length > 0;
}

/** The incoming ML-DSA-65 seed of an unfinished rotation, if there is one (read only; nothing is written). */
export function pendingMldsaSeed(dir: string): Uint8Array | undefined {
  const path = join(nextKeyDir(dir), FILES.mldsa);
  if (!existsSync(path)) return undefined;
  const k = readKeyFile(path);
  return k.alg === 'ML-DSA-65' ? k.seed : undefined;
}

export function publicKeysOfSeeds(mldsaSeed: Uint8Array, ed25519Seed?: Uint8Array): PublicKey[] {
  const keys: PublicKey[] = [{ alg: 'ML-DSA-65', publicKey: mldsaKeyFromSeed(mldsaSeed).publicKey }];
  if (ed25519Seed) keys.push({ alg: 'Ed25519', publicKey: nodeEd25519PublicKeyFromSeed(ed25519Seed) });
  return keys;
}

function mkdir700(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chmodSync(path, 0o700);
}

/** The incoming keys: those of an unfinished rotation, else new ones written now (never overwriting). */
export function prepareNextKeys(dir: string, opts: { ed25519: boolean }): KeySeeds {
  const next = nextKeyDir(dir);
  mkdir700(next);
  const mldsaPath = join(next, FILES.mldsa);
  const edPath = join(next, FILES.ed25519);
  if (!existsSync(mldsaPath)) writeKeyFile(mldsaPath, generateSeed(), 'ML-DSA-65');
  if (opts.ed25519 && !existsSync(edPath)) writeKeyFile(edPath, generateSeed(), 'Ed25519');
  const mldsa = readKeyFile(mldsaPath);
  if (mldsa.alg !== 'ML-DSA-65') throw new ConfigError('ERR_CONFIG', `${mldsaPath} holds a ${mldsa.alg} key, not ML-DSA-65`);
  const ed = existsSync(edPath) ? readKeyFile(edPath) : undefined;
  if (ed && ed.alg !== 'Ed25519') throw new ConfigError('ERR_CONFIG', `${edPath} holds a ${ed.alg} key, not Ed25519`);
  return { mldsaSeed: mldsa.seed, ed25519Seed: ed?.seed, keys: publicKeysOfSeeds(mldsa.seed, ed?.seed) };
}

const fingerprint = (k: PublicKey) => createHash('sha256').update(k.publicKey).digest('hex').slice(0, 16);

/** Every log has its handover: outgoing files to keys/history/, incoming into place. Returns the retired paths. */
export function retireKeyFiles(dir: string, outgoing: PublicKey[], at: string): string[] {
  const hist = keyHistoryDir(dir);
  mkdir700(hist);
  const stamp = at.replace(/[^0-9TZ]/g, '');
  const retired: string[] = [];
  for (const [alg, file] of [['ML-DSA-65', FILES.mldsa], ['Ed25519', FILES.ed25519]] as const) {
    const cur = join(dir, 'keys', file);
    const key = outgoing.find((k) => k.alg === alg);
    if (existsSync(cur) && key) {
      const to = join(hist, `${stamp}-${fingerprint(key)}.${file}`);
      renameSync(cur, to); // rename keeps the 0600 mode and never copies the seed
      retired.push(to);
    }
    const incoming = join(nextKeyDir(dir), file);
    if (existsSync(incoming)) renameSync(incoming, cur);
  }
  rmdirSync(nextKeyDir(dir));
  return retired;
}
