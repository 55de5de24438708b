// Key files: created 0600 and exclusively, refused when group/other can read them or when malformed.
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatKeyText, parseKeyText } from '../../src/crypto/index.js';
import { generateSeed, readKeyFile, writeKeyFile } from '../../src/crypto/node.js';

const dir = mkdtempSync(join(tmpdir(), 'vouch-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('key files', () => {
  it('generateSeed gives 32 fresh random bytes', () => {
    const [a, b] = [generateSeed(), generateSeed()];
    expect(a).toHaveLength(32);
    expect(a).not.toEqual(b);
  });

  it('writes mode 0600 and reads the same seed back', () => {
    const path = join(dir, 'a.key');
    const seed = generateSeed();
    writeKeyFile(path, seed, 'ML-DSA-65');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readKeyFile(path)).toEqual({ alg: 'ML-DSA-65', seed });
  });

  it('refuses to overwrite an existing file', () => {
    const path = join(dir, 'b.key');
    writeKeyFile(path, generateSeed(), 'Ed25519');
    const before = readKeyFile(path);
    expect(() => writeKeyFile(path, generateSeed(), 'Ed25519')).toThrow(expect.objectContaining({ code: 'ERR_KEY_EXISTS' }));
    expect(readKeyFile(path)).toEqual(before);
  });

  it('refuses a file readable by group or others, naming the path and the fix', () => {
    const path = join(dir, 'c.key');
    writeKeyFile(path, generateSeed(), 'ML-DSA-65');
    chmodSync(path, 0o644);
    expect(() => readKeyFile(path)).toThrow(
      expect.objectContaining({ code: 'ERR_KEY_PERMISSIONS', message: expect.stringContaining(`chmod 600 ${path}`) }),
    );
    chmodSync(path, 0o640);
    expect(() => readKeyFile(path)).toThrow(expect.objectContaining({ code: 'ERR_KEY_PERMISSIONS' }));
  });

  it('refuses malformed content and a missing file with ERR_KEY_FORMAT', () => {
    const cases = ['not json', '{"v":1,"alg":"RSA","seed":"AAAA"}', formatKeyText('Ed25519', new Uint8Array(32)).replace('"v":1', '"v":2')];
    cases.forEach((text, i) => {
      const path = join(dir, `bad${i}.key`);
      writeFileSync(path, text, { mode: 0o600 });
      expect(() => readKeyFile(path)).toThrow(expect.objectContaining({ code: 'ERR_KEY_FORMAT' }));
    });
    expect(() => readKeyFile(join(dir, 'absent.key'))).toThrow(expect.objectContaining({ code: 'ERR_KEY_FORMAT' }));
    expect(() => writeKeyFile(join(dir, 'short.key'), new Uint8Array(31), 'ML-DSA-65')).toThrow(
      expect.objectContaining({ code: 'ERR_KEY_FORMAT' }),
    );
  });
});

describe('parseKeyText', () => {
  it('round-trips and lists every bad field', () => {
    const seed = new Uint8Array(32).fill(1);
    expect(parseKeyText(formatKeyText('ML-DSA-65', seed))).toEqual({ alg: 'ML-DSA-65', seed });
    try {
      parseKeyText('{"v":0,"alg":"x","seed":"AAA=","extra":1}');
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({ code: 'ERR_KEY_FORMAT' });
      expect((e as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(['/v', '/alg', '/seed', '/extra']);
    }
  });
});
