// NODE-ONLY. Which ML-DSA-65 implementation this process signs with: node:crypto's native one
// (OpenSSL 3.5, Node >= 24.7) when the runtime has it, @noble/post-quantum otherwise. Both give
// the same key from the same seed and verify each other (test/crypto/mldsa-differential.test.ts).
// VOUCH_MLDSA=noble|native forces one; forcing native where it is absent fails closed.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CryptoError } from '../errors.js';
import { nativeMldsaAvailable } from './native-mldsa.js';

export type MldsaBackend = 'native' | 'noble';

/** The backend in use: the VOUCH_MLDSA override, else native when available. */
export function mldsaBackend(env: Record<string, string | undefined> = process.env): MldsaBackend {
  const forced = env.VOUCH_MLDSA;
  if (forced === 'noble') return 'noble';
  if (forced === 'native') {
    if (!nativeMldsaAvailable()) throw new CryptoError('ERR_KEY_FORMAT', `VOUCH_MLDSA=native but node:crypto has no ML-DSA-65 on Node ${process.versions.node} (needs >= 24.7)`);
    return 'native';
  }
  if (forced !== undefined && forced !== '') throw new CryptoError('ERR_KEY_FORMAT', `VOUCH_MLDSA must be "native" or "noble", not ${JSON.stringify(forced)}`);
  return nativeMldsaAvailable() ? 'native' : 'noble';
}

let nobleVersion: string | undefined;

/** The backend with its version, for /healthz, the ready line and the bench: "native (OpenSSL 3.5.1)". */
export function describeMldsaBackend(backend: MldsaBackend = mldsaBackend()): string {
  if (backend === 'native') return `native (node:crypto, OpenSSL ${process.versions.openssl})`;
  try {
    // The package's exports map does not list package.json: read it beside an entry it does export.
    const entry = createRequire(import.meta.url).resolve('@noble/post-quantum/ml-dsa.js');
    nobleVersion ??= (JSON.parse(readFileSync(join(dirname(entry), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    nobleVersion = '?';
  }
  return `noble (@noble/post-quantum ${nobleVersion})`;
}
