// Issue 37: key files that are missing or belong to another instance, as an operator meets them.
// A data directory that holds a log never gets a new key: serve, gateway, init and the read-only
// commands refuse with ERR_KEY_MISSING naming the file, the key the log was signed with, and the
// restore; nothing stored is written. A log signed by keys not in keys/ (another instance's log
// copied in, or its key files) is "signed by key X, which is not in keys/: wrong data directory or
// key files?" (ERR_KEY_MISMATCH), not "the note was altered". A fresh directory still gets keys.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startServer } from '../../src/http/node-server.js';
import { captureIo } from '../audit/_generate.js';
import { post } from '../http/_server.js';

const root = mkdtempSync(join(tmpdir(), 'vouch-key-files-'));
const data = join(root, 'data');
const stranger = join(root, 'stranger'); // another instance, made by `vouch init`

async function cli(...argv: string[]) {
  const c = captureIo();
  const code = await main(argv, c.io);
  return { code, out: c.text(), err: c.errText() };
}

/** A copy of the data directory to break. */
function copy(name: string): string {
  const to = join(root, name);
  cpSync(data, to, { recursive: true });
  return to;
}

/** Every file of a directory tree and its SHA-256: what must not change. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      // SQLite's own housekeeping is not content: the shared-memory index, an empty WAL (removed on close).
      else if (!e.name.endsWith('.lock') && !e.name.endsWith('-shm') && !(e.name.endsWith('-wal') && readFileSync(p).length === 0)) out[p.slice(dir.length)] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

let ids: { mldsa: string; ed25519: string }; // the labels the log's checkpoints carry

beforeAll(async () => {
  const s = await startServer({ data, port: 0, idleCheckpointMs: 0 });
  try {
    for (const text of ['one', 'two']) await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text } } });
  } finally {
    await s.close();
  }
  const listed = JSON.parse((await cli('keys', 'list', '--data', data, '--json')).out).logs[0].keys as { alg: string; keyId: string; name: string }[];
  const label = (alg: string) => listed.filter((k) => k.alg === alg).map((k) => `${k.name}+${k.keyId}`)[0];
  ids = { mldsa: label('ML-DSA-65'), ed25519: label('Ed25519') };
  expect((await cli('init', '--data', stranger)).code).toBe(0);
}, 120_000);

describe('a key file missing from a data directory with a log', () => {
  it('serve, gateway and init refuse (ERR_KEY_MISSING, exit 4), name the file, the key and the restore; no key is made, nothing stored changes', async () => {
    const dir = copy('no-mldsa');
    rmSync(join(dir, 'keys', 'mldsa65.key'));
    const before = snapshot(dir);
    const runs = {
      serve: await cli('serve', '--data', dir, '--port', '0'),
      gateway: await cli('gateway', '--data', dir, '--upstream-cmd', 'node -e 0', '--quiet'),
      init: await cli('init', '--data', dir),
    };
    for (const [what, r] of Object.entries(runs)) {
      expect(r.code, `${what}: ${r.err}`).toBe(4);
      expect(r.err, what).toMatch(/error ERR_KEY_MISSING: .*keys\/mldsa65\.key is missing/);
      expect(r.err, what).toContain(ids.mldsa); // the key to look for in the backups
      expect(r.err, what).toMatch(/restore it from your backup/);
      expect(r.err, what).not.toMatch(/run `vouch init|note was altered/);
    }
    expect(existsSync(join(dir, 'keys', 'mldsa65.key'))).toBe(false);
    expect(snapshot(dir)).toMatchObject(before);
  }, 120_000);

  it('the commands that read the log say the same (never "run vouch init")', async () => {
    const dir = copy('no-mldsa-readers');
    rmSync(join(dir, 'keys', 'mldsa65.key'));
    for (const argv of [['log', 'verify'], ['keys', 'list'], ['policy', 'history'], ['tools', 'list'], ['export', '-o', join(root, 'never')]]) {
      const r = await cli(...argv, '--data', dir);
      expect(r.code, argv.join(' ')).toBe(4);
      expect(r.err, argv.join(' ')).toMatch(/ERR_KEY_MISSING: .*keys\/mldsa65\.key is missing/);
      expect(r.err, argv.join(' ')).not.toMatch(/run `vouch init/);
    }
  }, 60_000);

  it('keys/ed25519.key missing: refused by name (the log is signed with it); no Ed25519 key is made', async () => {
    const dir = copy('no-ed25519');
    rmSync(join(dir, 'keys', 'ed25519.key'));
    const before = snapshot(dir);
    const r = await cli('serve', '--data', dir, '--port', '0');
    expect(r.code, r.err).toBe(4);
    expect(r.err).toMatch(/ERR_KEY_MISSING: .*keys\/ed25519\.key is missing/);
    expect(r.err).toContain(ids.ed25519);
    expect(r.err).not.toMatch(/note was altered/);
    expect(existsSync(join(dir, 'keys', 'ed25519.key'))).toBe(false);
    // every file there before is unchanged (serve may add the example config where none is: its first-run step)
    expect(snapshot(dir)).toMatchObject(before);
  }, 60_000);
});

describe('a log and key files of different instances', () => {
  const mismatch = (r: { code: number; err: string }, signer: string) => {
    expect(r.code, r.err).toBe(4);
    expect(r.err).toMatch(/ERR_KEY_MISMATCH/);
    expect(r.err).toContain(`signed by key ${signer} (ML-DSA-65), which is not in keys/`);
    expect(r.err).toMatch(/which is not in keys\/: wrong data directory or key files\?/);
    expect(r.err).not.toMatch(/note was altered/);
  };

  it("another instance's log copied into a data directory: named as such, by serve and by log verify", async () => {
    const dir = join(root, 'stranger-with-log');
    cpSync(stranger, dir, { recursive: true });
    cpSync(join(data, 'logs'), join(dir, 'logs'), { recursive: true });
    const before = snapshot(dir);
    mismatch(await cli('serve', '--data', dir, '--port', '0'), ids.mldsa);
    const v = await cli('log', 'verify', '--data', dir);
    expect(v.code).not.toBe(0);
    expect(v.out + v.err).toMatch(/which is not in keys\/: wrong data directory or key files\?/);
    expect(snapshot(dir)).toMatchObject(before);
  }, 60_000);

  it("another instance's key files in this data directory: the same", async () => {
    const dir = copy('stranger-keys');
    rmSync(join(dir, 'keys'), { recursive: true });
    cpSync(join(stranger, 'keys'), join(dir, 'keys'), { recursive: true });
    mismatch(await cli('serve', '--data', dir, '--port', '0'), ids.mldsa);
  }, 60_000);
});

describe('first run', () => {
  it('a fresh directory, and one with keys/ but no log, still get keys', async () => {
    const fresh = join(root, 'fresh');
    expect((await cli('init', '--data', fresh)).code).toBe(0);
    expect(readdirSync(join(fresh, 'keys')).sort()).toEqual(['ed25519.key', 'mldsa44.key', 'mldsa65.key']);
    rmSync(join(fresh, 'keys', 'ed25519.key'));
    expect((await cli('init', '--data', fresh)).code).toBe(0);
    expect(existsSync(join(fresh, 'keys', 'ed25519.key'))).toBe(true);
  });
});
