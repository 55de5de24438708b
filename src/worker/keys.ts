// The signing keys of a Worker deployment, from secrets (key text, src/crypto/key-text.ts): the
// public side (JWKS, vkeys, key id) for the stateless Worker, the note signers for the log object.
import { toHex } from '../canonical/index.js';
import { createEd25519Signer, createMldsaSigner, ed25519PublicKeyFromSeed, mldsaKeyFromSeed, noteKeyId, parseKeyText, toJwks, type Jwks, type KeySeed, type SignatureAlg } from '../crypto/index.js';
import { ConfigError } from '../errors.js';
import { formatVkey, noteSignerFor, type NoteSigner } from '../log/index.js';
import { keyNameOf, type WorkerEnv } from './env.js';

export interface PublicKeys {
  keyName: string;
  jwks: Jwks;
  vkeys: string[];
  /** C2SP key id of the ML-DSA-65 key, hex. */
  keyId: string;
}

function readSecret(env: WorkerEnv, name: 'VOUCH_SIGNING_KEY' | 'VOUCH_ED25519_KEY', alg: KeySeed['alg']): KeySeed | undefined {
  const text = env[name];
  if (text === undefined || text === '') {
    if (name === 'VOUCH_SIGNING_KEY') throw new ConfigError('ERR_CONFIG', 'secret VOUCH_SIGNING_KEY is not set: `wrangler secret put VOUCH_SIGNING_KEY` with an ML-DSA-65 key text');
    return undefined;
  }
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

/** The public keys, derived from the secrets (the seed never leaves this function's callers). */
export function readPublicKeys(env: WorkerEnv): PublicKeys {
  const keyName = keyNameOf(env);
  const mldsa = readSecret(env, 'VOUCH_SIGNING_KEY', 'ML-DSA-65')!;
  const ed = readSecret(env, 'VOUCH_ED25519_KEY', 'Ed25519');
  const keys: { alg: SignatureAlg; publicKey: Uint8Array }[] = [{ alg: 'ML-DSA-65', publicKey: mldsaKeyFromSeed(mldsa.seed).publicKey }];
  if (ed) keys.push({ alg: 'Ed25519', publicKey: ed25519PublicKeyFromSeed(ed.seed) });
  const withIds = keys.map((k) => ({ ...k, kid: toHex(noteKeyId(keyName, k.alg, k.publicKey)) }));
  return {
    keyName,
    jwks: toJwks(withIds),
    vkeys: withIds.map((k) => formatVkey(keyName, k.alg, k.publicKey)),
    keyId: withIds[0].kid,
  };
}

/** The checkpoint signers: ML-DSA-65 first, then the optional Ed25519 co-signer. */
export function readNoteSigners(env: WorkerEnv): NoteSigner[] {
  const keyName = keyNameOf(env);
  const signers = [noteSignerFor(keyName, createMldsaSigner(readSecret(env, 'VOUCH_SIGNING_KEY', 'ML-DSA-65')!.seed))];
  const ed = readSecret(env, 'VOUCH_ED25519_KEY', 'Ed25519');
  if (ed) signers.push(noteSignerFor(keyName, createEd25519Signer(ed.seed)));
  return signers;
}
