// The signing keys of a Worker deployment, from secrets (key text, src/crypto/key-text.ts): the
// current set (VOUCH_SIGNING_KEY, VOUCH_ED25519_KEY, VOUCH_MLDSA44_KEY) and, during a key handover,
// the outgoing set (the same names with _PREVIOUS; docs/workers-keys.md). Seeds stay here
// and in the log object; the stateless Worker only derives public keys.
import { toHex } from '../canonical/index.js';
import { createEd25519Signer, createMldsa44Signer, createMldsaSigner, ed25519PublicKeyFromSeed, mldsa44KeyFromSeed, mldsaKeyFromSeed, noteKeyId, parseKeyText, toJwks, type Jwks, type KeySeed, type SignatureAlg } from '../crypto/index.js';
import { ConfigError } from '../errors.js';
import { formatVkey, noteSignerFor, sameKey, type NoteSigner, type PublicKey } from '../log/index.js';
import { keyNameOf, type WorkerEnv } from './env.js';

type SecretName = 'VOUCH_SIGNING_KEY' | 'VOUCH_ED25519_KEY' | 'VOUCH_MLDSA44_KEY' | 'VOUCH_SIGNING_KEY_PREVIOUS' | 'VOUCH_ED25519_KEY_PREVIOUS' | 'VOUCH_MLDSA44_KEY_PREVIOUS';

/** One set of signing keys and the secrets that hold it. */
export interface WorkerKeySet {
  /** The secrets holding it: ML-DSA-65 first, then Ed25519 and ML-DSA-44. */
  secrets: { mldsa: SecretName; ed25519: SecretName; mldsa44: SecretName };
  mldsaSeed: Uint8Array;
  ed25519Seed?: Uint8Array;
  /** The ML-DSA-44 key (tlog-cosignature 0x06 lines, c2sp.org/tlog-checkpoint). */
  mldsa44Seed?: Uint8Array;
  keys: PublicKey[];
}

export interface WorkerKeySets {
  current: WorkerKeySet;
  /** The outgoing keys of a handover: logs they still sign are handed over to `current` on their next activation. */
  previous?: WorkerKeySet;
}

export interface PublicKeys {
  keyName: string;
  jwks: Jwks;
  vkeys: string[];
  /** C2SP key id of the current ML-DSA-65 key, hex. */
  keyId: string;
}

function readSecret(env: WorkerEnv, name: SecretName, alg: KeySeed['alg']): KeySeed | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  let key: KeySeed;
  try {
    key = parseKeyText(text);
  } catch (e) {
    // parseKeyText never echoes the secret; keep its issue list, name the secret.
    throw new ConfigError('ERR_CONFIG', `secret ${name}: ${(e as Error).message}`, (e as ConfigError).issues ?? []);
  }
  if (key.alg !== alg) throw new ConfigError('ERR_CONFIG', `secret ${name} holds a ${key.alg} key, not ${alg}`);
  return key;
}

function setOf(mldsa: KeySeed, ed: KeySeed | undefined, pq44: KeySeed | undefined, secrets: WorkerKeySet['secrets']): WorkerKeySet {
  const keys: PublicKey[] = [{ alg: 'ML-DSA-65', publicKey: mldsaKeyFromSeed(mldsa.seed).publicKey }];
  if (ed) keys.push({ alg: 'Ed25519', publicKey: ed25519PublicKeyFromSeed(ed.seed) });
  if (pq44) keys.push({ alg: 'ML-DSA-44', publicKey: mldsa44KeyFromSeed(pq44.seed).publicKey });
  return { secrets, mldsaSeed: mldsa.seed, ...(ed && { ed25519Seed: ed.seed }), ...(pq44 && { mldsa44Seed: pq44.seed }), keys };
}

export const sameKeys = (a: PublicKey[], b: PublicKey[]): boolean => a.length === b.length && a.every((k) => b.some((x) => sameKey(k, x)));

/**
 * The key sets the secrets hold. A `_PREVIOUS` Ed25519 key without a `_PREVIOUS` ML-DSA-65 key is
 * refused: a handover is signed by the whole outgoing set, and the classical key alone never
 * authorizes one. A previous set equal to the current one is no handover (step 1 of the procedure).
 */
export function readKeySets(env: WorkerEnv): WorkerKeySets {
  const mldsa = readSecret(env, 'VOUCH_SIGNING_KEY', 'ML-DSA-65');
  if (!mldsa) throw new ConfigError('ERR_CONFIG', 'secret VOUCH_SIGNING_KEY is not set: `wrangler secret put VOUCH_SIGNING_KEY` with an ML-DSA-65 key text');
  const current = setOf(mldsa, readSecret(env, 'VOUCH_ED25519_KEY', 'Ed25519'), readSecret(env, 'VOUCH_MLDSA44_KEY', 'ML-DSA-44'), { mldsa: 'VOUCH_SIGNING_KEY', ed25519: 'VOUCH_ED25519_KEY', mldsa44: 'VOUCH_MLDSA44_KEY' });
  const prevMldsa = readSecret(env, 'VOUCH_SIGNING_KEY_PREVIOUS', 'ML-DSA-65');
  const prevEd = readSecret(env, 'VOUCH_ED25519_KEY_PREVIOUS', 'Ed25519');
  const prev44 = readSecret(env, 'VOUCH_MLDSA44_KEY_PREVIOUS', 'ML-DSA-44');
  if (!prevMldsa) {
    const orphan = prevEd ? 'VOUCH_ED25519_KEY_PREVIOUS' : prev44 ? 'VOUCH_MLDSA44_KEY_PREVIOUS' : undefined;
    if (orphan) throw new ConfigError('ERR_CONFIG', `secret ${orphan} is set without VOUCH_SIGNING_KEY_PREVIOUS: a handover is signed by every outgoing key, ML-DSA-65 first (docs/workers-keys.md)`);
    return { current };
  }
  const previous = setOf(prevMldsa, prevEd, prev44, { mldsa: 'VOUCH_SIGNING_KEY_PREVIOUS', ed25519: 'VOUCH_ED25519_KEY_PREVIOUS', mldsa44: 'VOUCH_MLDSA44_KEY_PREVIOUS' });
  return sameKeys(previous.keys, current.keys) ? { current } : { current, previous };
}

/** The public keys of the secrets under the deployment's key name (the JWKS kid's name; a log's own names come from its history). */
export function readPublicKeys(env: WorkerEnv): PublicKeys {
  const keyName = keyNameOf(env);
  const sets = readKeySets(env);
  const all = [...sets.current.keys, ...(sets.previous?.keys.filter((k) => !sets.current.keys.some((c) => sameKey(c, k))) ?? [])];
  const withIds = all.map((k) => ({ ...k, kid: toHex(noteKeyId(keyName, k.alg, k.publicKey)) }));
  return {
    keyName,
    jwks: toJwks(withIds),
    vkeys: withIds.map((k) => formatVkey(keyName, k.alg, k.publicKey)),
    keyId: withIds[0].kid,
  };
}

/** A set's checkpoint signers under `name`: ML-DSA-65 first, then the optional Ed25519 and ML-DSA-44 keys. */
export function noteSignersOf(set: WorkerKeySet, name: string): NoteSigner[] {
  const signers = [noteSignerFor(name, createMldsaSigner(set.mldsaSeed))];
  if (set.ed25519Seed) signers.push(noteSignerFor(name, createEd25519Signer(set.ed25519Seed)));
  if (set.mldsa44Seed) signers.push(noteSignerFor(name, createMldsa44Signer(set.mldsa44Seed)));
  return signers;
}

/** `name+keyid` of a key, as a note's signature line names it. */
export function keyLabel(name: string, k: PublicKey): string {
  return `${name}+${toHex(noteKeyId(name, k.alg, k.publicKey))}`;
}

export const secretOf = (set: WorkerKeySet, alg: SignatureAlg): string => (alg === 'ML-DSA-65' ? set.secrets.mldsa : alg === 'ML-DSA-44' ? set.secrets.mldsa44 : set.secrets.ed25519);
