// The data directory's key files read (Node only): each seed checked for its algorithm, the public
// keys and note verifiers they make, and ERR_KEY_MISSING naming the key a log needs.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { toHex } from '../canonical/index.js';
import { createEd25519Verifier, createMldsa44Verifier, createMldsaVerifier, mldsa44KeyFromSeed, mldsaKeyFromSeed, noteKeyId, type SignatureAlg } from '../crypto/index.js';
import { nodeEd25519PublicKeyFromSeed, readKeyFile } from '../crypto/node.js';
import { ConfigError, StoreError } from '../errors.js';
import { formatVkey, noteVerifierFor, type NoteVerifier } from '../log/index.js';
import { KEY_FILES, logSignersOf, RESTORE_ADVICE } from './key-files-check.js';
import { rotationPending } from './key-rotation.js';
import { openSqliteStore } from './sqlite.js';
import { keyPaths, listTenants, logPath } from './data-dir-layout.js';

export const DEFAULT_KEY_NAME = 'vouch.local';

export interface KeyInfo {
  alg: SignatureAlg;
  name: string;
  publicKey: Uint8Array;
  /** C2SP key id, hex. */
  keyId: string;
  vkey: string;
}

/** Read the data directory's key files: public key facts, verifiers, and the seeds for signers. */
export interface LoadedKeys {
  keys: KeyInfo[];
  verifiers: NoteVerifier[];
  mldsaSeed: Uint8Array;
  ed25519Seed?: Uint8Array;
  mldsa44Seed?: Uint8Array;
}

/** The signing seeds in the key files, each checked for its algorithm. */
export function readKeySeeds(dir: string): { mldsaSeed: Uint8Array; ed25519Seed?: Uint8Array; mldsa44Seed?: Uint8Array } {
  const paths = keyPaths(dir);
  if (!existsSync(paths.mldsa)) {
    if (listTenants(dir).length > 0) throw missingKeyFile(dir, 'ML-DSA-65');
    throw new ConfigError('ERR_CONFIG', `no signing key at ${paths.mldsa}: run \`vouch init --data ${dir}\` first`);
  }
  const mldsa = readKeyFile(paths.mldsa);
  if (mldsa.alg !== 'ML-DSA-65') throw new ConfigError('ERR_CONFIG', `${paths.mldsa} holds a ${mldsa.alg} key, not ML-DSA-65`);
  const optional = (path: string, alg: SignatureAlg): Uint8Array | undefined => {
    if (!existsSync(path)) return undefined;
    const k = readKeyFile(path);
    if (k.alg !== alg) throw new ConfigError('ERR_CONFIG', `${path} holds a ${k.alg} key, not ${alg}`);
    return k.seed;
  };
  const ed25519Seed = optional(paths.ed25519, 'Ed25519');
  const mldsa44Seed = optional(paths.mldsa44, 'ML-DSA-44');
  return { mldsaSeed: mldsa.seed, ...(ed25519Seed && { ed25519Seed }), ...(mldsa44Seed && { mldsa44Seed }) };
}

/**
 * The keys of the seeds. `mldsaPublicKey`, `mldsa44PublicKey`: the ML-DSA-65 and ML-DSA-44 public
 * keys when they were derived already (the log thread derives them while this thread loads the
 * policy: 80 and 55 ms of start-up otherwise).
 */
export function keysOfSeeds(seeds: { mldsaSeed: Uint8Array; ed25519Seed?: Uint8Array; mldsa44Seed?: Uint8Array }, keyName: string, mldsaPublicKey?: Uint8Array, mldsa44PublicKey?: Uint8Array): LoadedKeys {
  const mldsaPub = mldsaPublicKey ?? mldsaKeyFromSeed(seeds.mldsaSeed).publicKey;
  const keys = [keyInfo('ML-DSA-65', keyName, mldsaPub)];
  const verifiers = [noteVerifierFor(keyName, createMldsaVerifier(mldsaPub))];
  if (seeds.ed25519Seed) {
    const pub = nodeEd25519PublicKeyFromSeed(seeds.ed25519Seed);
    keys.push(keyInfo('Ed25519', keyName, pub));
    verifiers.push(noteVerifierFor(keyName, createEd25519Verifier(pub)));
  }
  if (seeds.mldsa44Seed) {
    const pub = mldsa44PublicKey ?? mldsa44KeyFromSeed(seeds.mldsa44Seed).publicKey;
    keys.push(keyInfo('ML-DSA-44', keyName, pub));
    verifiers.push(noteVerifierFor(keyName, createMldsa44Verifier(pub)));
  }
  return { keys, verifiers, mldsaSeed: seeds.mldsaSeed, ...(seeds.ed25519Seed && { ed25519Seed: seeds.ed25519Seed }), ...(seeds.mldsa44Seed && { mldsa44Seed: seeds.mldsa44Seed }) };
}

export function loadKeys(dir: string, keyName = DEFAULT_KEY_NAME): LoadedKeys {
  return keysOfSeeds(readKeySeeds(dir), keyName);
}

/** ERR_KEY_MISSING for a data directory with a log: which file, the key its logs are signed with, how to restore it. */
export function missingKeyFile(dir: string, alg: SignatureAlg): StoreError {
  const signers = new Set<string>();
  for (const t of listTenants(dir)) {
    try {
      const store = openSqliteStore(logPath(dir, t), { readonly: true });
      try {
        const note = store.latestCheckpoint()?.note;
        if (note) for (const l of logSignersOf(note)) if (l.alg === alg) signers.add(`${l.label} (log of tenant ${t})`);
      } finally {
        store.close();
      }
    } catch {
      // An unreadable log names no key; the file is missing all the same.
    }
  }
  const by = signers.size ? `; its logs are signed by key ${[...signers].join(', ')}` : '';
  const next = rotationPending(dir) ? ` (a key rotation stopped half way: ${join(dir, 'keys', 'next')} holds its incoming keys and keys/history/ the outgoing ones; the key id above is the one the logs need)` : '';
  return new StoreError('ERR_KEY_MISSING', `${join(dir, KEY_FILES[alg])} is missing, and ${dir} holds a log${by}: ${RESTORE_ADVICE}${next}`);
}

export function keyInfo(alg: SignatureAlg, name: string, publicKey: Uint8Array): KeyInfo {
  return { alg, name, publicKey, keyId: toHex(noteKeyId(name, alg, publicKey)), vkey: formatVkey(name, alg, publicKey) };
}
