// NODE-ONLY. Which ML-DSA-65 implementation this process signs with: node:crypto's native one
// (OpenSSL 3.5, Node >= 24.7) when the runtime has it; else PQClean's clean C implementation
// compiled to WebAssembly (npm pqclean, its wasm build: no compiler needed), about 15 times
// faster than noble here, in the signing thread; else @noble/post-quantum. All give the same key
// from the same seed and verify each other (test/crypto/mldsa-differential.test.ts); the signing
// thread also checks its first PQClean signature with noble before it signs anything else.
// VOUCH_MLDSA=noble|pqclean|native forces one; forcing one that is absent fails closed.
import { readFileSync } from 'node:fs';
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

/** Whether pqclean's WebAssembly build loads here (resolved once; the signing thread loads it). */
export function pqcleanAvailable(): boolean {
  if (pqclean === undefined) {
    try {
      createRequire(import.meta.url).resolve('pqclean/wasm/index.js');
      pqclean = true;
    } catch {
      pqclean = false;
    }
  }
  return pqclean;
}

let pqcleanVersion: string | undefined;

let nobleVersion: string | undefined;

/** The backend with its version, for /healthz, the ready line and the bench: "native (OpenSSL 3.5.1)". */
export function describeMldsaBackend(backend: MldsaBackend = mldsaBackend()): string {
  if (backend === 'native') return `native (node:crypto, OpenSSL ${process.versions.openssl})`;
  if (backend === 'pqclean') {
    try {
      const entry = createRequire(import.meta.url).resolve('pqclean/wasm/index.js');
      pqcleanVersion ??= (JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      pqcleanVersion = '?';
    }
    return `pqclean (PQClean ml-dsa-65 clean, WebAssembly, pqclean ${pqcleanVersion})`;
  }
  try {
    // The package's exports map does not list package.json: read it beside an entry it does export.
    const entry = createRequire(import.meta.url).resolve('@noble/post-quantum/ml-dsa.js');
    nobleVersion ??= (JSON.parse(readFileSync(join(dirname(entry), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    nobleVersion = '?';
  }
  return `noble (@noble/post-quantum ${nobleVersion})`;
}
