// Key files across a rotation (NODE-ONLY). The incoming keys are written to keys/next/ (0600)
// before any log is touched; once every tenant log has signed its handover, the outgoing files
// move to keys/history/ (kept, still 0600: old seeds are evidence, never reused) and the incoming
// ones take their place. A rotation that stopped half way leaves keys/next/: `vouch keys rotate`
// finishes it with the same keys.
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { mldsa44KeyFromSeed, mldsaKeyFromSeed, type SignatureAlg } from '../crypto/index.js';
import { nodeEd25519PublicKeyFromSeed } from '../crypto/node.js';
import { generateSeed, readKeyFile, writeKeyFile } from '../crypto/node.js';
import { ConfigError } from '../errors.js';
import type { PublicKey } from '../log/index.js';

const FILES = { mldsa: 'mldsa65.key', ed25519: 'ed25519.key', mldsa44: 'mldsa44.key' } as const;

export interface KeySeeds {
  mldsaSeed: Uint8Array;
  ed25519Seed?: Uint8Array;
  /** The ML-DSA-44 key (tlog-cosignature 0x06 lines); a data directory made before it gains one with a rotation. */
  mldsa44Seed?: Uint8Array;
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

export function publicKeysOfSeeds(mldsaSeed: Uint8Array, ed25519Seed?: Uint8Array, mldsa44Seed?: Uint8Array): PublicKey[] {
  const keys: PublicKey[] = [{ alg: 'ML-DSA-65', publicKey: mldsaKeyFromSeed(mldsaSeed).publicKey }];
  if (ed25519Seed) keys.push({ alg: 'Ed25519', publicKey: nodeEd25519PublicKeyFromSeed(ed25519Seed) });
  if (mldsa44Seed) keys.push({ alg: 'ML-DSA-44', publicKey: mldsa44KeyFromSeed(mldsa44Seed).publicKey });
  return keys;
}

function mkdir700(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chmodSync(path, 0o700);
}

/**
 * The incoming keys: those of an unfinished rotation, else new ones written now (never
 * overwriting). Every rotation brings an ML-DSA-44 key: a log made before ML-DSA-44 log signatures
 * gains one this way, in a key entry its current keys sign (the handover), as any new key.
 */
export function prepareNextKeys(dir: string, opts: { ed25519: boolean }): KeySeeds {
  const next = nextKeyDir(dir);
  mkdir700(next);
  const mldsaPath = join(next, FILES.mldsa);
  const edPath = join(next, FILES.ed25519);
  const pq44Path = join(next, FILES.mldsa44);
  // An unfinished rotation begun before ML-DSA-44 keys (its entries may name its keys already)
  // keeps the keys it began with: the ML-DSA-44 key is made only with a new ML-DSA-65 one.
  const fresh = !existsSync(mldsaPath);
  if (fresh) writeKeyFile(mldsaPath, generateSeed(), 'ML-DSA-65');
  if (opts.ed25519 && !existsSync(edPath)) writeKeyFile(edPath, generateSeed(), 'Ed25519');
  if (fresh && !existsSync(pq44Path)) writeKeyFile(pq44Path, generateSeed(), 'ML-DSA-44');
  const read = (path: string, alg: SignatureAlg): Uint8Array | undefined => {
    if (!existsSync(path)) return undefined;
    const k = readKeyFile(path);
    if (k.alg !== alg) throw new ConfigError('ERR_CONFIG', `${path} holds a ${k.alg} key, not ${alg}`);
    return k.seed;
  };
  const mldsaSeed = read(mldsaPath, 'ML-DSA-65')!;
  const ed25519Seed = read(edPath, 'Ed25519');
  const mldsa44Seed = read(pq44Path, 'ML-DSA-44');
  return { mldsaSeed, ed25519Seed, mldsa44Seed, keys: publicKeysOfSeeds(mldsaSeed, ed25519Seed, mldsa44Seed) };
}

const fingerprint = (k: PublicKey) => createHash('sha256').update(k.publicKey).digest('hex').slice(0, 16);

/** Every log has its handover: outgoing files to keys/history/, incoming into place. Returns the retired paths. */
export function retireKeyFiles(dir: string, outgoing: PublicKey[], at: string): string[] {
  const hist = keyHistoryDir(dir);
  mkdir700(hist);
  const stamp = at.replace(/[^0-9TZ]/g, '');
  const retired: string[] = [];
  for (const [alg, file] of [['ML-DSA-65', FILES.mldsa], ['Ed25519', FILES.ed25519], ['ML-DSA-44', FILES.mldsa44]] as const) {
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
