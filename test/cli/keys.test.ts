// Issue 18 §1 end to end on the CLI: a service writes a log, `vouch keys rotate` hands over to new
// keys with a `key` entry the old keys sign, the service signs on with the new keys, `log verify`
// stays clean and lists the key ids it verified with (issue 15), old and new receipts verify with
// the published key history, and `vouch keys revoke` turns the retired key's checkpoints after a
// size into key-revoked verdicts (log verify and receipt verify), never bad signatures.
import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startServer } from '../../src/http/node-server.js';
import { captureIo } from '../audit/_generate.js';
import { get, post } from '../http/_server.js';

const root = mkdtempSync(join(tmpdir(), 'vouch-keys-'));
const data = join(root, 'data');
const decide = (url: string) => post(`${url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'hi' } } });

async function cli(...argv: string[]) {
  const c = captureIo();
  const code = await main([...argv, '--data', data], c.io);
  return { code, text: c.text(), err: c.errText() };
}
async function cliJson(...argv: string[]) {
  const r = await cli(...argv, '--json');
  return { code: r.code, json: JSON.parse(r.text || '{}'), err: r.err };
}
async function verifyReceipt(receipt: unknown, jwks: unknown) {
  const rp = join(root, `r-${Math.random()}.json`);
  const kp = join(root, `k-${Math.random()}.json`);
  writeFileSync(rp, JSON.stringify(receipt));
  writeFileSync(kp, JSON.stringify(jwks));
  const c = captureIo();
  const code = await main(['verify', rp, '--key', kp], c.io);
  return { code, text: c.text() + c.errText() };
}

let before: { receipt: any; size: number };
let after: { receipt: any };
let rotation: any;
let jwks: any;

beforeAll(async () => {
  const s1 = await startServer({ data, port: 0, idleCheckpointMs: 0 });
  await decide(s1.url);
  const r = await decide(s1.url);
  before = { receipt: r.json.receipt, size: r.json.receipt.treeSize ?? 0 };
  await s1.close();
  rotation = await cliJson('keys', 'rotate');
  const s2 = await startServer({ data, port: 0, idleCheckpointMs: 0 });
  after = { receipt: (await decide(s2.url)).json.receipt };
  jwks = (await get(`${s2.url}/.well-known/vouch/keys`)).json;
  await s2.close();
}, 120_000);

describe('vouch keys rotate', () => {
  it('appends a key entry per log, signed into the log by the outgoing keys, and keeps the old key files (0600)', () => {
    expect(rotation.code).toBe(0);
    expect(rotation.json.logs).toHaveLength(1);
    const { seq, size } = rotation.json.logs[0];
    expect(size).toBe(seq + 1); // the handover checkpoint covers exactly the rotation
    const hist = join(data, 'keys', 'history');
    const files = readdirSync(hist);
    expect(files.length).toBe(3); // the outgoing ML-DSA-65, Ed25519 and ML-DSA-44 keys
    for (const f of files) expect(statSync(join(hist, f)).mode & 0o777).toBe(0o600);
  });

  it('log verify stays clean across the rotation and lists every key id and algorithm it verified with', async () => {
    const r = await cliJson('log', 'verify');
    expect(r.json.logs[0].findings).toEqual([]);
    expect(r.code).toBe(0);
    const keys = r.json.logs[0].keys as { name: string; alg: string; keyId: string; checkpoints: number }[];
    expect(keys.map((k) => k.alg).sort()).toEqual(['Ed25519', 'Ed25519', 'ML-DSA-44', 'ML-DSA-44', 'ML-DSA-65', 'ML-DSA-65']);
    for (const k of keys) expect(k.name).toBe('vouch.local/default'); // key name = checkpoint origin
    const text = await cli('log', 'verify');
    expect(text.text).toMatch(/key vouch\.local\/default\+[0-9a-f]{8} ML-DSA-65: verified \d+ checkpoint/);
  });

  it('publishes the history: each key with the sizes it signs; old and new receipts verify with it', async () => {
    const { seq } = rotation.json.logs[0];
    const windows = jwks.keys.map((k: any) => k.vouch_logs?.['vouch.local/default']);
    expect(windows).toContainEqual({ from: 0, to: seq + 1 });
    expect(windows).toContainEqual({ from: seq + 1 });
    expect((await verifyReceipt(before.receipt, jwks)).code).toBe(0);
    expect((await verifyReceipt(after.receipt, jwks)).code).toBe(0);
  });

  it('keys list shows the history', async () => {
    const r = await cliJson('keys', 'list');
    expect(r.code).toBe(0);
    expect(r.json.logs[0].keys).toHaveLength(6);
  });

  it('keys list names each key by its JWKS kid too (the kid `keys export` and the served JWKS give it), labelled, in text and --json', async () => {
    const listed = (await cliJson('keys', 'list')).json.logs[0].keys as { name: string; keyId: string; alg: string; publicKey: string; kid: string }[];
    const exported = JSON.parse((await cli('keys', 'export')).text).keys as { kid: string; pub?: string; x?: string }[];
    const b64url = (b64: string) => b64.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
    for (const k of listed) {
      const same = exported.find((j) => (j.pub ?? j.x) === b64url(k.publicKey));
      expect(same, `${k.alg} ${k.keyId}`).toBeDefined();
      expect(k.kid).toBe(same!.kid);
      expect(k.kid).not.toBe(k.keyId); // two ids of one key: both shown, each said for what it is
    }
    expect(jwks.keys.map((j: any) => j.kid).sort()).toEqual(listed.map((k) => k.kid).sort()); // and the service published the same
    const text = (await cli('keys', 'list')).text;
    for (const k of listed) expect(text).toMatch(new RegExp(`${k.name}\\+${k.keyId} ${k.alg} +\\(JWKS kid ${k.kid}\\) `));
  });
});

describe('vouch keys revoke', () => {
  it('refuses a key that still signs', async () => {
    const current = jwks.keys.find((k: any) => k.vouch_logs?.['vouch.local/default']?.to === undefined);
    const listed = (await cliJson('keys', 'list')).json.logs[0].keys.find((k: any) => k.to === undefined && k.alg === current.alg);
    const r = await cli('keys', 'revoke', listed.keyId, '--after', '1');
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/rotate/);
  });

  it('turns the retired key\'s checkpoints after SIZE into key-revoked, in log verify and receipt verify', async () => {
    const old = (await cliJson('keys', 'list')).json.logs[0].keys.find((k: any) => k.to !== undefined && k.alg === 'ML-DSA-65');
    const r = await cliJson('keys', 'revoke', old.keyId, '--after', '1');
    expect(r.code).toBe(0);
    const v = await cliJson('log', 'verify');
    expect(v.code).toBe(1);
    const codes = new Set(v.json.logs[0].findings.map((f: any) => f.code));
    expect([...codes]).toEqual(['ERR_KEY_REVOKED']);
    // the published key set now says so; the old receipt (size > 1) is key-revoked, the new one verifies
    const s3 = await startServer({ data, port: 0, idleCheckpointMs: 0 });
    const revokedSet = (await get(`${s3.url}/.well-known/vouch/keys`)).json;
    await s3.close();
    const old1 = await verifyReceipt(before.receipt, revokedSet);
    expect(old1.code).toBe(1);
    expect(old1.text).toMatch(/key-revoked/);
    expect(old1.text).not.toMatch(/does not verify/);
    expect((await verifyReceipt(after.receipt, revokedSet)).code).toBe(0);
  }, 60_000);
});
