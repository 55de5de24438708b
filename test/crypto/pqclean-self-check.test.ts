// The signing thread's guard on PQClean (sign-worker.mjs): before it signs anything, its first
// PQClean signature must verify under noble with the thread's own key, and a module that does not
// load stops the thread. Played as a broken or miscompiled install of pqclean (code that can be
// replaced at will holds the key: that attacker is out of this check's reach, and the README's
// threat model says so): the thread here is the real sign-worker.mjs, copied beside a
// node_modules of its own in which `pqclean` is a stand-in and `@noble` is the real package, so
// it resolves the stand-in exactly as the shipped file resolves the real module. A third stand-in
// hands the real module through, so the harness itself is shown to sign.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mldsaKeyFromSeed, verifyMldsa } from '../../src/crypto/mldsa.js';
import { createWorkerSigner } from '../../src/crypto/worker-signer.js';

const require = createRequire(import.meta.url);
const WORKER = fileURLToPath(new URL('../../src/crypto/sign-worker.mjs', import.meta.url));
const REAL_PQCLEAN = require.resolve('pqclean/wasm/index.js');
const NOBLE = join(dirname(require.resolve('@noble/post-quantum/ml-dsa.js')), '..');
const dirs: string[] = [];

/** A copy of the real signing thread whose `pqclean/wasm/index.js` is `source`. */
function workerWith(source: string): URL {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-pq-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'node_modules', 'pqclean', 'wasm'), { recursive: true });
  writeFileSync(join(dir, 'node_modules', 'pqclean', 'package.json'), '{"name":"pqclean","version":"0.8.1"}');
  writeFileSync(join(dir, 'node_modules', 'pqclean', 'wasm', 'index.js'), source);
  symlinkSync(NOBLE, join(dir, 'node_modules', '@noble'), 'dir');
  copyFileSync(WORKER, join(dir, 'sign-worker.mjs'));
  return pathToFileURL(join(dir, 'sign-worker.mjs'));
}

const SEED = Uint8Array.from({ length: 32 }, (_, i) => 200 - i);
const MESSAGE = new TextEncoder().encode('vouch.example/log\n9\nAAAA\n');

describe('the signing thread refuses a PQClean module it cannot trust', () => {
  // The engine is chosen in this process (worker-signer.ts): PQClean, whatever this Node has.
  beforeEach(() => void vi.stubEnv('VOUCH_MLDSA', 'pqclean'));
  afterEach(() => void vi.unstubAllEnvs());
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('control: a stand-in that hands the real module through signs, and its signatures verify', async () => {
    const signer = await createWorkerSigner(SEED, { workerUrl: workerWith(`module.exports = require(${JSON.stringify(REAL_PQCLEAN)});`) });
    try {
      expect(verifyMldsa(mldsaKeyFromSeed(SEED).publicKey, MESSAGE, await signer.sign(MESSAGE))).toBe(true);
    } finally {
      await signer.close?.();
    }
  });

  // Signatures of the right length that are not ML-DSA-65 signatures by this key.
  const forgers = {
    'random bytes': `exports.Sign = class { sign() { return require('node:crypto').randomBytes(3309); } };`,
    "another key's signatures": `const real = require(${JSON.stringify(REAL_PQCLEAN)}); const other = Buffer.from('${Buffer.from(mldsaKeyFromSeed(new Uint8Array(32).fill(1)).secretKey).toString('base64')}', 'base64');
      exports.Sign = class { constructor(n) { this.s = new real.Sign(n); } sign(_sk, m) { return this.s.sign(other, m); } };`,
    'a signature over other bytes': `const real = require(${JSON.stringify(REAL_PQCLEAN)});
      exports.Sign = class { constructor(n) { this.s = new real.Sign(n); } sign(sk, m) { return this.s.sign(sk, new Uint8Array([...m, 0])); } };`,
  };

  for (const [what, source] of Object.entries(forgers)) {
    it(`${what}: no signature leaves the thread, the start fails and so does every sign()`, async () => {
      const url = workerWith(source);
      await expect(createWorkerSigner(SEED, { workerUrl: url })).rejects.toMatchObject({ code: 'ERR_SIGN_FAILED', message: expect.stringContaining('does not verify under noble') });
      // As the log thread makes it (public key known): returned at once, every sign() refused.
      const signer = await createWorkerSigner(SEED, { workerUrl: url, publicKey: mldsaKeyFromSeed(SEED).publicKey });
      try {
        await expect(signer.sign(MESSAGE)).rejects.toMatchObject({ code: 'ERR_SIGN_FAILED', message: expect.stringContaining('refusing to sign') });
        await expect(signer.sign(MESSAGE)).rejects.toMatchObject({ code: 'ERR_SIGN_FAILED' });
      } finally {
        await signer.close?.();
      }
    });
  }

  it('a module that does not load stops the thread with a message naming VOUCH_MLDSA=noble', async () => {
    const url = workerWith(`throw new WebAssembly.CompileError('WebAssembly.Module(): expected magic word');`);
    await expect(createWorkerSigner(SEED, { workerUrl: url })).rejects.toMatchObject({ code: 'ERR_SIGN_FAILED', message: expect.stringMatching(/pqclean ML-DSA-65 \(WebAssembly\) does not load: .*expected magic word.*VOUCH_MLDSA=noble/) });
  });

  it('deterministic signing never touches the module (noble signs it)', async () => {
    const signer = await createWorkerSigner(SEED, { workerUrl: workerWith(`throw new Error('must not be loaded');`), deterministic: true });
    try {
      expect(verifyMldsa(mldsaKeyFromSeed(SEED).publicKey, MESSAGE, await signer.sign(MESSAGE))).toBe(true);
    } finally {
      await signer.close?.();
    }
  });
});
