// Issue 37: the keys of a running service, in every form a verifier takes. `vouch keys export` runs
// while the service holds the data directory (no lock), prints public material only, and every form
// it writes, and the keys.json an audit bundle carries, is taken back by `--key` on `vouch verify`
// (receipt and bundle) and `vouch replay --bundle`; a file that is none of them is refused, naming
// the forms taken.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toBase64, toHex } from '../../src/canonical/index.js';
import { main } from '../../src/cli/main.js';
import { startServer, type RunningServer } from '../../src/http/node-server.js';
import { readKeySeeds } from '../../src/store/node.js';
import { captureIo } from '../audit/_generate.js';
import { get, post } from '../http/_server.js';

const root = mkdtempSync(join(tmpdir(), 'vouch-keys-export-'));
const data = join(root, 'data');
let server: RunningServer;
let receiptFile: string;

async function cli(...argv: string[]) {
  const c = captureIo();
  const code = await main(argv, c.io);
  return { code, text: c.text(), err: c.errText() };
}

beforeAll(async () => {
  server = await startServer({ data, port: 0, idleCheckpointMs: 0 });
  for (let i = 0; i < 3; i++) await post(`${server.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: `hi ${i}` } } });
  const r = await post(`${server.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'last' } } });
  receiptFile = join(root, 'receipt.json');
  writeFileSync(receiptFile, JSON.stringify(r.json.receipt));
}, 60_000);
afterAll(async () => server?.close());

describe('vouch keys export (while the service holds the data directory)', () => {
  it.each(['jwks', 'note', 'keys-json'])('--format %s: written while serve runs, and `vouch verify --key` takes it', async (format) => {
    const out = join(root, `keys-${format}`);
    const e = await cli('keys', 'export', '--data', data, '--format', format, '--out', out);
    expect(e.err).toBe('');
    expect(e.code).toBe(0);
    const v = await cli('verify', receiptFile, '--key', out);
    expect(v.text + v.err).toMatch(/VALID/);
    expect(v.code).toBe(0);
  });

  it('the JWKS is the one the service publishes at /.well-known/vouch/keys', async () => {
    const served = (await get(`${server.url}/.well-known/vouch/keys`)).json;
    const printed = JSON.parse((await cli('keys', 'export', '--data', data)).text);
    expect(printed).toEqual(served);
  });

  it('the note form names each key under the log origin its checkpoints are signed with', async () => {
    const text = (await cli('keys', 'export', '--data', data, '--format', 'note')).text;
    const note = (await get(`${server.url}/v1/checkpoint`)).json.checkpoint as string;
    const signers = [...note.matchAll(/^\u2014 (\S+) /gm)].map((m) => m[1]);
    expect(signers).toContain('vouch.local/default');
    for (const line of text.split('\n').filter((l) => l && !l.startsWith('#'))) expect(line).toMatch(/^[^\s+]+\+[0-9a-f]{8}\+[A-Za-z0-9+/]+=*$/);
    expect(text).toMatch(/^vouch\.local\/default\+[0-9a-f]{8}\+/m);
    expect(text).toMatch(/^# key vouch\.local\/default\+[0-9a-f]{8} log vouch\.local\/default from 0 to - revoked-after -$/m);
  });

  it('never prints private material, in any form', async () => {
    const seeds = readKeySeeds(data);
    const secrets = [seeds.mldsaSeed, seeds.ed25519Seed!].flatMap((s) => [toHex(s), toBase64(s), toBase64(s).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'), toBase64(s.subarray(0, 16))]);
    const keyFiles = ['mldsa65.key', 'ed25519.key'].map((f) => readFileSync(join(data, 'keys', f), 'utf8').trim());
    for (const format of ['jwks', 'note', 'keys-json']) {
      const text = (await cli('keys', 'export', '--data', data, '--format', format)).text;
      expect(text.length).toBeGreaterThan(100);
      for (const s of [...secrets, ...keyFiles]) expect(text).not.toContain(s);
      expect(text).not.toMatch(/"(d|priv|seed)"\s*:/);
    }
  });

  it('a bad --format or --tenant * is a usage error', async () => {
    expect((await cli('keys', 'export', '--data', data, '--format', 'pem')).code).toBe(2);
    expect((await cli('keys', 'export', '--data', data, '--tenant', '*')).code).toBe(2);
  });
});

describe('--key takes every form, by its shape', () => {
  it("an audit bundle's own keys.json verifies a receipt, the bundle, and gates replay --bundle", async () => {
    const bundle = join(root, 'bundle');
    expect((await cli('export', '--data', data, '-o', bundle, '--payloads')).code).toBe(0);
    const keysJson = join(bundle, 'keys.json');
    const r = await cli('verify', receiptFile, '--key', keysJson);
    expect(r.text).toMatch(/VALID/);
    expect(r.code).toBe(0);
    const b = await cli('verify', bundle, '--key', keysJson, '--no-replay');
    expect(b.text).toMatch(/verify bundle: clean/);
    expect(b.code).toBe(0);
    const rp = await cli('replay', '--bundle', bundle, '--key', keysJson);
    expect(rp.err).not.toMatch(/does not verify|not checked against a key/);
    expect(rp.text).toMatch(/mismatch/);
    expect(rp.code).toBe(0);
  });

  it('a keys.json whose JWKS names a key its vkeys do not is refused, not trusted as a union', async () => {
    const other = mkdtempSync(join(tmpdir(), 'vouch-keys-other-'));
    await cli('init', '--data', other);
    const mine = JSON.parse((await cli('keys', 'export', '--data', data, '--format', 'keys-json')).text);
    const theirs = JSON.parse((await cli('keys', 'export', '--data', other, '--format', 'keys-json')).text);
    const mixed = join(root, 'mixed-keys.json');
    writeFileSync(mixed, JSON.stringify({ vkeys: theirs.vkeys, jwks: mine.jwks }));
    const v = await cli('verify', receiptFile, '--key', mixed);
    expect(v.code).toBe(3);
    expect(v.err).toMatch(/ERR_KEY_FORMAT.*not one of its vkeys/);
  });

  it.each([
    ['a JSON object of another kind', '{"hello": "world"}'],
    ['JSON that does not parse', '{"keys": ['],
    ['a line that is no vkey', 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI alice@host\n'],
    ['an empty file', '\n'],
    // JSON with a "keys" list that holds no JWK: the shape of a bundle's manifest.json (issue 37 follow-up)
    ['a "keys" list of no JWKs', '{"keys": [{"alg": "ML-DSA-65", "keyId": "0a1b2c3d", "vkey": "vouch.local+0a1b2c3d+AQ=="}]}'],
    ['a JWKS with no key', '{"keys": []}'],
    ['a JWKS with no key vouch verifies with', '{"keys": [{"kty": "RSA", "kid": "r1", "n": "AQAB", "e": "AQAB"}]}'],
    ['a single JWK of a key type vouch does not verify with', '{"kty": "EC", "crv": "P-256", "kid": "e1", "x": "AA", "y": "AA"}'],
  ])('%s is refused with ERR_KEY_FORMAT naming the three forms (verify RECEIPT, verify BUNDLE, replay)', async (_, body) => {
    const bad = join(root, `bad-${Math.random()}.txt`);
    writeFileSync(bad, body);
    const forms = /vkey lines.*a JWKS.*keys\.json/;
    const v = await cli('verify', receiptFile, '--key', bad);
    expect(v.code).toBe(3);
    expect(v.err).toMatch(/ERR_KEY_FORMAT/);
    expect(v.err).toMatch(forms);
    const bundle = join(root, 'bundle');
    const b = await cli('verify', bundle, '--key', bad);
    expect(b.code).toBe(3);
    expect(b.err).toMatch(forms);
    const rp = await cli('replay', '--bundle', bundle, '--key', bad);
    expect(rp.code).not.toBe(0);
    expect(rp.err).toMatch(forms);
  });

  it("a bundle's manifest.json given as --key: ERR_KEY_FORMAT naming the forms and the keys.json beside it, never a verdict (verify RECEIPT, verify BUNDLE, replay)", async () => {
    const bundle = join(root, 'bundle-for-manifest');
    expect((await cli('export', '--data', data, '-o', bundle)).code).toBe(0);
    const manifest = join(bundle, 'manifest.json');
    const runs = {
      receipt: await cli('verify', receiptFile, '--key', manifest),
      bundle: await cli('verify', bundle, '--key', manifest),
      replay: await cli('replay', '--bundle', bundle, '--key', manifest),
    };
    for (const [what, r] of Object.entries(runs)) {
      expect(r.code, what).not.toBe(0);
      expect(r.err, what).toMatch(/ERR_KEY_FORMAT/);
      expect(r.err, what).toMatch(/manifest\.json of an audit bundle, not a key file/);
      expect(r.err, what).toContain(`--key ${join(bundle, 'keys.json')}`);
      expect(r.err, what).toMatch(/vkey lines.*a JWKS.*keys\.json/);
      expect(r.text, what).not.toMatch(/INVALID|VALID|trusted: none/);
    }
    expect(runs.receipt.code).toBe(3);
    expect(runs.bundle.code).toBe(3);
    // The keys.json it points to is taken; and the manifest given as the receipt is named, not called a JWKS.
    expect((await cli('verify', receiptFile, '--key', join(bundle, 'keys.json'))).code).toBe(0);
    const asReceipt = await cli('verify', manifest, '--key', join(bundle, 'keys.json'));
    expect(asReceipt.code).toBe(3);
    expect(asReceipt.err).toMatch(/manifest\.json of an audit bundle: verify the bundle itself/);
    expect(asReceipt.err).not.toMatch(/JWKS/);
  });

  it('a receipt given as --key still says where it goes', async () => {
    const v = await cli('verify', receiptFile, '--key', receiptFile);
    expect(v.code).toBe(3);
    expect(v.err).toMatch(/this is a receipt, not a key file/);
  });
});
