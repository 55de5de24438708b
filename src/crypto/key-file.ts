// Private key files (NODE-ONLY): the key text of key-text.ts in a file created exclusively with
// mode 0600. Reading refuses a file any group or other user can access, as ssh does, because a
// readable signing key lets anyone forge checkpoints.
import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fstatSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { CryptoError, InputError } from '../errors.js';
import { formatKeyText, KEY_SEED_BYTES, parseKeyText, type KeySeed } from './key-text.js';
import type { SignatureAlg } from './types.js';

export function generateSeed(): Uint8Array {
  return new Uint8Array(randomBytes(KEY_SEED_BYTES));
}

/** Creates `path` (never overwrites: ERR_KEY_EXISTS) holding the seed, mode 0600, synced to disk. */
export function writeKeyFile(path: string, seed: Uint8Array, alg: SignatureAlg): void {
  const text = formatKeyText(alg, seed);
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new CryptoError('ERR_KEY_EXISTS', `key file ${path} already exists; refusing to overwrite it`, { cause });
    }
    throw new CryptoError('ERR_KEY_FORMAT', `cannot create key file ${path}: ${(cause as Error).message}`, { cause });
  }
  try {
    fchmodSync(fd, 0o600); // the umask may only clear bits, but be explicit
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Reads a key file; refuses group/other permission bits (ERR_KEY_PERMISSIONS) and bad content (ERR_KEY_FORMAT). */
export function readKeyFile(path: string): KeySeed {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (cause) {
    throw new CryptoError('ERR_KEY_FORMAT', `cannot read key file ${path}: ${(cause as Error).message}`, { cause });
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new CryptoError('ERR_KEY_FORMAT', `key file ${path} is not a regular file`);
    // Windows has no POSIX modes; there the file ACL is the operator's job.
    if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
      const mode = (st.mode & 0o777).toString(8).padStart(3, '0');
      throw new CryptoError(
        'ERR_KEY_PERMISSIONS',
        `key file ${path} has mode ${mode}, readable by other users; run: chmod 600 ${path}`,
      );
    }
    if (st.size > 4096) throw new CryptoError('ERR_KEY_FORMAT', `key file ${path} is too large to be a key`);
    const text = readFileSync(fd, 'utf8');
    try {
      return parseKeyText(text);
    } catch (cause) {
      const detail = cause instanceof InputError ? cause.message : 'unreadable';
      throw new InputError('ERR_KEY_FORMAT', `key file ${path}: ${detail}`, cause instanceof InputError ? cause.issues : [], { cause });
    }
  } finally {
    closeSync(fd);
  }
}

