// The file-level attacker who cannot read the keys but can replace them (issue 18 section 1): key
// files swapped for fresh ones without `vouch keys rotate` must not be accepted silently. The log's
// newest checkpoint was signed by the old keys and its history names them, so the log refuses to
// sign with the new files, and says why, for both key files and for the ML-DSA-65 file alone.
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateSeed, writeKeyFile } from '../../src/crypto/node.js';
import { initDataDir, keyPaths, openDataDir } from '../../src/store/node.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

async function logWithEntries(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-key-swap-'));
  dirs.push(dir);
  initDataDir(dir);
  const dd = await openDataDir(dir, { thread: false });
  const { appender } = dd.log('default');
  for (let i = 0; i < 3; i++) await appender.append({ type: 'decision', time: '2026-12-01T00:00:00Z', event: 'tools/call', id: `e${i}` });
  await dd.close();
  return dir;
}

describe('key files swapped without `vouch keys rotate`', () => {
  for (const which of ['both key files', 'the ML-DSA-65 key file alone'] as const) {
    it(`${which}: the log refuses to sign, naming the reason`, async () => {
      const dir = await logWithEntries();
      const paths = keyPaths(dir);
      const swap = (path: string, alg: 'ML-DSA-65' | 'Ed25519') => (unlinkSync(path), writeKeyFile(path, generateSeed(), alg));
      swap(paths.mldsa, 'ML-DSA-65');
      if (which === 'both key files') swap(paths.ed25519, 'Ed25519');
      const dd = await openDataDir(dir, { thread: false });
      try {
        let error: unknown;
        try {
          dd.log('default');
        } catch (e) {
          error = e;
        }
        // Named as what it looks like to the operator (issue 37): keys that did not sign this log.
        expect(error, 'opening the log with swapped key files must fail').toMatchObject({ code: 'ERR_KEY_MISMATCH' });
        expect((error as Error).message).toMatch(/is signed by key \S+ \(ML-DSA-65\), which is not in keys\/: wrong data directory or key files\?/);
      } finally {
        await dd.close();
      }
    });
  }

  it('the untouched key files open the same log (control)', async () => {
    const dir = await logWithEntries();
    const dd = await openDataDir(dir, { thread: false });
    try {
      expect(dd.log('default').store.size()).toBe(3);
    } finally {
      await dd.close();
    }
  });
});
