// NODE-ONLY. Which ML-DSA-65 implementation this process signs with: node:crypto's native one
// (OpenSSL 3.5, Node >= 24.7) when the runtime has it; else PQClean's clean C implementation
// compiled to WebAssembly (npm pqclean, its wasm build: no compiler needed), about 15 times
// faster than noble here, in the signing thread; else @noble/post-quantum. All give the same key
// from the same seed and verify each other (test/crypto/mldsa-differential.test.ts); the signing
// thread also checks its first PQClean signature with noble before it signs anything else.
// VOUCH_MLDSA=noble|pqclean|native forces one; forcing one that is absent fails closed.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CryptoError } from '../errors.js';
import { nativeMldsaAvailable } from './native-mldsa.js';

export type MldsaBackend = 'native' | 'pqclean' | 'noble';

/** The backend in use: the VOUCH_MLDSA override, else native when available. */
export function mldsaBackend(env: Record<string, string | undefined> = process.env): MldsaBackend {
  const forced = env.VOUCH_MLDSA;
  if (forced === 'noble') return 'noble';
  if (forced === 'native') {
    if (!nativeMldsaAvailable()) throw new CryptoError('ERR_KEY_FORMAT', `VOUCH_MLDSA=native but node:crypto has no ML-DSA-65 on Node ${process.versions.node} (needs >= 24.7)`);
    return 'native';
  }
  if (forced === 'pqclean') {
    if (!pqcleanAvailable()) throw new CryptoError('ERR_KEY_FORMAT', 'VOUCH_MLDSA=pqclean but the pqclean package does not load');
    return 'pqclean';
  }
  if (forced !== undefined && forced !== '') throw new CryptoError('ERR_KEY_FORMAT', `VOUCH_MLDSA must be "native", "pqclean" or "noble", not ${JSON.stringify(forced)}`);
  if (nativeMldsaAvailable()) return 'native';
  return pqcleanAvailable() ? 'pqclean' : 'noble';
}

let pqclean: boolean | undefined;

/**
 * Whether pqclean's WebAssembly build is installed here: its entry resolves and its .wasm file is
 * beside it (checked once). Loading it is the signing thread's (19 ms of compiling, kept off the
 * main thread's start-up); a module that is there but does not load stops that thread with a
 * message naming VOUCH_MLDSA=noble: signed callers get that error, and once the coverage bound
 * passes nothing is allowed (sign-worker.mjs).
 */
export function pqcleanAvailable(): boolean {
  if (pqclean === undefined) {
    try {
      const entry = createRequire(import.meta.url).resolve('pqclean/wasm/index.js');
      pqclean = existsSync(join(dirname(entry), 'gen', 'pqclean.wasm'));
    } catch {
      pqclean = false;
    }
  }
  return pqclean;
}

const versions = new Map<string, string>();

/**
 * A package's version from its package.json, found from an entry it exports (exports maps do not
 * always list package.json): `up` is how many folders above the entry's the package root is.
 */
function packageVersion(entry: string, up: number): string {
  let v = versions.get(entry);
  if (v === undefined) {
    try {
      const dir = dirname(createRequire(import.meta.url).resolve(entry));
      v = (JSON.parse(readFileSync(join(dir, ...Array<string>(up).fill('..'), 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      v = '?';
    }
    versions.set(entry, v);
  }
  return v;
}

/** The backend with its version, for /healthz, the ready line and the bench: "native (OpenSSL 3.5.1)". */
export function describeMldsaBackend(backend: MldsaBackend = mldsaBackend()): string {
  if (backend === 'native') return `native (node:crypto, OpenSSL ${process.versions.openssl})`;
  if (backend === 'pqclean') return `pqclean (PQClean ml-dsa-65 clean, WebAssembly, pqclean ${packageVersion('pqclean/wasm/index.js', 1)})`;
  return `noble (@noble/post-quantum ${packageVersion('@noble/post-quantum/ml-dsa.js', 0)})`;
}
