// Issue 37 item 4: one key went by two unexplained ids: the JWKS kid (shown in the ready line and
// the console) and the key id on the log's checkpoint lines (shown by every verifier). Both are
// C2SP key ids of the same key, under different names: the kid under the data directory's key name
// (one kid per key for every log), the checkpoint's under the log's origin. Wherever a key id is
// shown, it now says which one it is, and where both are known, both: the real `vouch serve`, its
// JWKS, a real receipt and the real `vouch verify`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toHex } from '../../src/canonical/index.js';
import { noteKeyId, parseJwks } from '../../src/crypto/index.js';
import { describeNoteKeys, parseTrust } from '../../src/receipt/index.js';
import { BIN, ROOT, startServe, type ServeChild } from './_serve.js';

const ORIGIN = 'vouch.local/default';
let s: ServeChild;
let dir: string;
let keys: { alg: string; kid: string; note: string }[];
let receipt: { checkpoint: string };
let jwksText: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vouch-key-ids-'));
  s = await startServe(['--port', '0', '--data', join(dir, 'data')]);
  const jwks = await (await fetch(`${s.url}/.well-known/vouch/keys`)).json();
  jwksText = JSON.stringify(jwks);
  writeFileSync(join(dir, 'keys.json'), jwksText);
  writeFileSync(join(dir, 'vkeys.txt'), await (await fetch(`${s.url}/.well-known/vouch/vkeys`)).text());
  keys = parseJwks(jwks).map((k) => ({ alg: k.alg, kid: k.kid, note: toHex(noteKeyId(ORIGIN, k.alg, k.publicKey)) }));
  const r = await fetch(`${s.url}/v1/authorize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { message: 'hi' } } }) });
  receipt = (await r.json()).receipt;
  writeFileSync(join(dir, 'receipt.json'), JSON.stringify(receipt));
}, 120_000);
afterAll(async () => {
  await s?.stop();
});

const verify = (...args: string[]) => spawnSync(process.execPath, [BIN, 'verify', join(dir, 'receipt.json'), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });

describe('a key is named by both its ids, each said for what it is', () => {
  it('the two ids differ (different key names), so neither may appear unexplained', () => {
    expect(keys.map((k) => k.alg).sort()).toEqual(['Ed25519', 'ML-DSA-44', 'ML-DSA-65']);
    for (const k of keys) expect(k.kid).not.toBe(k.note);
  });

  it('the ready block names each key by its JWKS kid and by its id in the log\'s checkpoints', () => {
    const ml = keys.find((k) => k.alg === 'ML-DSA-65')!;
    expect(s.ready).toMatch(new RegExp(`key ${ml.kid} \\(JWKS kid\\)`));
    for (const k of keys) expect(s.ready).toContain(`${k.alg}: JWKS kid ${k.kid}, in checkpoints ${ORIGIN}+${k.note}`);
  });

  it('vouch verify with the JWKS says which JWKS kid made each checkpoint line it checked', () => {
    const r = verify('--key', join(dir, 'keys.json'));
    expect(r.status, r.stdout + r.stderr).toBe(0);
    for (const k of keys) expect(r.stdout).toContain(`${ORIGIN} (${k.alg} ${k.note}, JWKS kid ${k.kid})`);
    const json = JSON.parse(verify('--key', join(dir, 'keys.json'), '--json').stdout);
    expect(json.signatures).toEqual(expect.arrayContaining(keys.map((k) => expect.objectContaining({ name: ORIGIN, alg: k.alg, keyId: k.note, kid: k.kid }))));
  });

  it('with vkeys (no kid in them) it names the checkpoint id alone', () => {
    const r = verify('--key', join(dir, 'vkeys.txt'));
    expect(r.status, r.stdout + r.stderr).toBe(0);
    for (const k of keys) expect(r.stdout).toContain(`${ORIGIN} (${k.alg} ${k.note})`);
    expect(r.stdout).not.toContain('JWKS kid');
  });

  it('vouch init names each key by its checkpoint id under the log\'s name and by its JWKS kid', () => {
    const data = join(dir, 'init-data');
    const text = spawnSync(process.execPath, [BIN, 'init', '--data', data], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    const json = JSON.parse(spawnSync(process.execPath, [BIN, 'init', '--data', data, '--json'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 }).stdout);
    for (const k of json.keys as { alg: string; keyId: string; kid: string }[]) {
      expect(k.kid).not.toBe(k.keyId);
      expect(text.stdout).toContain(`key ${ORIGIN}+${k.keyId} (JWKS kid ${k.kid})`);
    }
  });

  it('the console\'s account (describeNoteKeys): each line of a checkpoint with the JWKS kid that made it', () => {
    // The JWKS as served at start (a later fetch could meet a keep-alive socket the server closed
    // while the verify children ran on a loaded machine: nothing this test is about).
    const jwks = parseTrust(jwksText).jwks;
    const named = describeNoteKeys(jwks, receipt.checkpoint);
    expect(named).toEqual(expect.arrayContaining(keys.map((k) => ({ name: ORIGIN, keyId: k.note, alg: k.alg, kid: k.kid }))));
    expect(named).toHaveLength(3);
  });
});
