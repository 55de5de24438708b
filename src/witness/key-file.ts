// Cosigner key files (Node only): {"v":1,"alg":"Ed25519"|"ML-DSA-44","name":...,"seed":...},
// created exclusively with mode 0600, refused when group or others can read them (as the log's
// own key files are: a readable witness key lets anyone cosign a forked log).
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fchmodSync, fstatSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { fromBase64, toBase64 } from '../canonical/index.js';
import { CryptoError, InputError } from '../errors.js';
import { isValidKeyName } from '../log/note.js';
import { COSIGN_ALGS, createCosigner, type CosignAlg, type Cosigner } from './cosignature.js';

export function writeCosignerKeyFile(path: string, name: string, alg: CosignAlg): void {
  if (!isValidKeyName(name)) throw new InputError('ERR_KEY_FORMAT', `invalid cosigner name ${JSON.stringify(name)}: non-empty, without spaces or "+"`);
  const text = `${JSON.stringify({ v: 1, alg, name, seed: toBase64(new Uint8Array(randomBytes(32))) })}\n`;
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code === 'EEXIST' ? 'ERR_KEY_EXISTS' : 'ERR_KEY_FORMAT';
    throw new CryptoError(code, `cannot create key file ${path}: ${(cause as Error).message}`, { cause });
  }
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The name, algorithm and seed a key file holds (checked: mode 0600, well formed). */
export function readCosignerSeed(path: string): { name: string; alg: CosignAlg; seed: Uint8Array } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (cause) {
    throw new CryptoError('ERR_KEY_FORMAT', `cannot read key file ${path}: ${(cause as Error).message}`, { cause });
  }
  let text: string;
  try {
    const st = fstatSync(fd);
    if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
      throw new CryptoError('ERR_KEY_PERMISSIONS', `key file ${path} has mode ${(st.mode & 0o777).toString(8)}, readable by other users; run: chmod 600 ${path}`);
    }
    if (st.size > 4096) throw new CryptoError('ERR_KEY_FORMAT', `key file ${path} is too large to be a key`);
    text = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new InputError('ERR_KEY_FORMAT', `key file ${path} is not JSON`);
  }
  let seed: Uint8Array | undefined;
  try {
    seed = fromBase64(o.seed as string);
  } catch {
    seed = undefined;
  }
  if (o.v !== 1 || !COSIGN_ALGS.includes(o.alg as CosignAlg) || !isValidKeyName(o.name) || seed?.length !== 32) {
    throw new InputError('ERR_KEY_FORMAT', `key file ${path}: want {"v":1,"alg":"Ed25519"|"ML-DSA-44","name":...,"seed":<32 bytes base64>}`);
  }
  return { name: o.name as string, alg: o.alg as CosignAlg, seed };
}

export function readCosignerKeyFile(path: string): Cosigner {
  const k = readCosignerSeed(path);
  return createCosigner(k.name, k.alg, k.seed);
}

/** Read the key file, creating it first when missing (first run). */
export function loadOrCreateCosigner(path: string, name: string, alg: CosignAlg): Cosigner {
  if (!existsSync(path)) writeCosignerKeyFile(path, name, alg);
  const c = readCosignerKeyFile(path);
  if (c.name !== name) throw new InputError('ERR_CONFIG', `key file ${path} belongs to cosigner ${JSON.stringify(c.name)}, not ${JSON.stringify(name)}: the name is part of the key id`);
  return c;
}
