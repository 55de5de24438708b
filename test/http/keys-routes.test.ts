// Issue 18 §1 over REST, against a real `vouch serve` child with bearer tokens: the operator rotates
// the keys with POST /v1/keys/rotate while the service runs (a tenant admin may not: issue 35), receipts from before and after the
// rotation both verify with the key history the service publishes (JWKS and vkeys), `vouch log
// verify` stays clean; POST /v1/keys/revoke turns the retired key's checkpoints after SIZE into
// key-revoked verdicts; callers without the admin role get 403, bad bodies 400 ERR_INPUT.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, startServe, type ServeChild } from '../cli/_serve.js';
import { get, post, testIssuer } from './_server.js';

const root = mkdtempSync(join(tmpdir(), 'vouch-keys-rest-'));
const data = join(root, 'data');
const ORIGIN = 'vouch.local/acme';
let s: ServeChild;
let issuer: Awaited<ReturnType<typeof testIssuer>>;
let admin: Record<string, string>;
let auditor: Record<string, string>;
let other: Record<string, string>;
let operator: Record<string, string>;
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

/** The CLI as a child process, awaited (never spawnSync: a blocked event loop leaves dead keep-alive sockets in fetch's pool). */
function vouch(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err += d));
    c.on('close', (code) => resolve({ code, out, err }));
  });
}
function file(name: string, content: string): string {
  const p = join(root, name);
  writeFileSync(p, content);
  return p;
}
/** `vouch verify RECEIPT --key FILE` in a child process. */
function verifyReceipt(receipt: unknown, keys: string, ...extra: string[]) {
  return vouch('verify', file(`r-${Math.random().toString(36).slice(2)}.json`, JSON.stringify(receipt)), '--key', keys, '--origin', ORIGIN, ...extra);
}
async function decide(text: string, who = admin): Promise<{ seq: number; receipt: { checkpoint: string; treeSize?: number } }> {
  const r = await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text } } }, who);
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json;
}
/** The published key set, as files: the JWKS and the vkeys. */
async function published(tag: string): Promise<{ jwks: any; jwksFile: string; vkeys: string; vkeysFile: string }> {
  const jwks = (await get(`${s.url}/.well-known/vouch/keys`)).json;
  const vkeys = await (await fetch(`${s.url}/.well-known/vouch/vkeys`)).text();
  return { jwks, jwksFile: file(`${tag}.jwks.json`, JSON.stringify(jwks)), vkeys, vkeysFile: file(`${tag}.vkeys`, vkeys) };
}
const sizeOf = (checkpoint: string) => Number(checkpoint.split('\n')[1]);

let before: Awaited<ReturnType<typeof decide>>;
let after: Awaited<ReturnType<typeof decide>>;
let otherBefore: Awaited<ReturnType<typeof decide>>;
let rotated: { status: number; json: any };

beforeAll(async () => {
  issuer = await testIssuer();
  const auth = file('auth.json', JSON.stringify(issuer.auth));
  admin = bearer(await issuer.token({ sub: 'ops', tenant: 'acme', roles: ['admin', 'enforce', 'audit'] }));
  auditor = bearer(await issuer.token({ sub: 'aud', tenant: 'acme', roles: ['enforce', 'audit'] }));
  other = bearer(await issuer.token({ sub: 'bob', tenant: 'globex', roles: ['enforce', 'audit'] }));
  operator = bearer(await issuer.token({ sub: 'ops', tenant: 'ops', roles: ['operator'] }));
  s = await startServe(['--port', '0', '--data', data, '--auth', auth, '--checkpoint-idle', '0'], { timeoutMs: 120_000 });
  await decide('one');
  await decide('two');
  before = await decide('three');
  otherBefore = await decide('another tenant', other);
  rotated = await post(`${s.url}/v1/keys/rotate`, '', operator);
  after = await decide('after the rotation');
}, 180_000);
afterAll(async () => {
  await s?.stop();
});

describe('POST /v1/keys/rotate (operator)', () => {
  it('rotates the running service: a key entry in every tenant log, signed into it by a checkpoint of the outgoing keys', async () => {
    expect(rotated.status, JSON.stringify(rotated.json)).toBe(200);
    expect(rotated.json.rotated).toBe(true);
    expect(rotated.json.logs).toEqual([
      { tenant: 'acme', seq: before.seq + 1, size: before.seq + 2 },
      { tenant: 'globex', seq: otherBefore.seq + 1, size: otherBefore.seq + 2 },
    ]);
    expect(rotated.json.keys.map((k: { alg: string }) => k.alg).sort()).toEqual(['Ed25519', 'ML-DSA-44', 'ML-DSA-65']);
    // The entry is a `key` entry of the log, naming who rotated.
    const e = await get(`${s.url}/v1/entries/${before.seq + 1}`, admin);
    expect(e.json.entry).toMatchObject({ type: 'key', action: 'rotate', by: 'ops' });
    // The receipt after the rotation is signed by the new keys, under the log's origin as key name.
    const signer = /^\u2014 (\S+) /m.exec(after.receipt.checkpoint)![1];
    expect(signer).toBe(ORIGIN);
    // The other tenant signs on with the new keys too, under its own origin.
    const next = await decide('globex after', other);
    expect(/^\u2014 (\S+) /m.exec(next.receipt.checkpoint)![1]).toBe('vouch.local/globex');
    const pub = await published('globex');
    for (const r of [otherBefore, next]) {
      const v = await vouch('verify', file(`g-${r.seq}.json`, JSON.stringify(r.receipt)), '--key', pub.jwksFile, '--origin', 'vouch.local/globex');
      expect(v.code, v.out + v.err).toBe(0);
    }
  }, 60_000);

  it('GET /v1/keys: the caller log\'s history, each key with the sizes it signs', async () => {
    const r = await get(`${s.url}/v1/keys`, admin);
    expect(r.status).toBe(200);
    const keys = r.json.keys as { name: string; keyId: string; alg: string; from: number; to?: number }[];
    expect(keys).toHaveLength(6);
    for (const k of keys) expect(k.name).toBe(ORIGIN);
    const cut = before.seq + 2;
    expect(keys.filter((k) => k.from === 0 && k.to === cut).map((k) => k.alg).sort()).toEqual(['Ed25519', 'ML-DSA-44', 'ML-DSA-65']);
    expect(keys.filter((k) => k.from === cut && k.to === undefined).map((k) => k.alg).sort()).toEqual(['Ed25519', 'ML-DSA-44', 'ML-DSA-65']);
  });

  it('receipts from before and after verify with the served JWKS and with the served vkeys', async () => {
    const pub = await published('rotated');
    const windows = pub.jwks.keys.map((k: any) => k.vouch_logs?.[ORIGIN]);
    expect(windows).toContainEqual({ from: 0, to: before.seq + 2 });
    expect(windows).toContainEqual({ from: before.seq + 2 });
    expect(pub.vkeys).toMatch(new RegExp(`^# key ${ORIGIN.replace('/', '\\/')}\\+[0-9a-f]{8} log ${ORIGIN.replace('/', '\\/')} from 0 to ${before.seq + 2} revoked-after -$`, 'm'));
    for (const keys of [pub.jwksFile, pub.vkeysFile]) {
      for (const r of [before, after]) {
        const v = await verifyReceipt(r.receipt, keys);
        expect(v.code, v.out + v.err).toBe(0);
        expect(v.out).toMatch(/ML-DSA-65/);
      }
    }
    // Without the history (only the keys signing now), the old receipt does not verify.
    const current = { keys: pub.jwks.keys.filter((k: any) => k.vouch_logs?.[ORIGIN]?.to === undefined) };
    expect((await verifyReceipt(before.receipt, file('current.jwks.json', JSON.stringify(current)))).code).toBe(1);
  }, 60_000);

  it("each tenant's bundle (GET /v1/export) carries its own log's key history and names no other tenant", async () => {
    for (const [who, mine, theirs] of [[admin, ORIGIN, 'vouch.local/globex'], [other, 'vouch.local/globex', ORIGIN]] as const) {
      const res = await fetch(`${s.url}/v1/export`, { headers: who });
      expect(res.status).toBe(200);
      const tar = gunzipSync(Buffer.from(await res.arrayBuffer())).toString('latin1');
      const keys = JSON.parse(/\{\n "vkeys"[\s\S]*?\n\}\n/.exec(tar)![0]) as { vkeys: string[]; jwks: { keys: { vouch_logs?: Record<string, { from: number; to?: number }> }[] } };
      expect(keys.jwks.keys.filter((k) => k.vouch_logs?.[mine]).length).toBe(6); // three rotated out, three signing now
      expect(tar).not.toContain(theirs);
      expect(keys.vkeys.some((v) => v.startsWith(`${mine}+`))).toBe(true);
    }
  });

  it('vouch log verify stays clean across the rotation', async () => {
    const v = await vouch('log', 'verify', '--data', data, '--tenant', 'acme', '--json');
    expect(v.code, v.out + v.err).toBe(0);
    const log = JSON.parse(v.out).logs[0];
    expect(log.findings).toEqual([]);
    expect(log.keys.map((k: { alg: string }) => k.alg).sort()).toEqual(['Ed25519', 'Ed25519', 'ML-DSA-44', 'ML-DSA-44', 'ML-DSA-65', 'ML-DSA-65']);
  }, 60_000);
});

describe('POST /v1/keys/revoke (admin)', () => {
  it('refuses a key that still signs, and a key the log never had', async () => {
    const keys = (await get(`${s.url}/v1/keys`, admin)).json.keys as { keyId: string; to?: number }[];
    const live = keys.find((k) => k.to === undefined)!;
    const r = await post(`${s.url}/v1/keys/revoke`, { keyId: live.keyId, after: 1 }, admin);
    expect(r.status).toBe(400);
    expect(r.json.error.message).toMatch(/rotate/);
    const none = await post(`${s.url}/v1/keys/revoke`, { keyId: '00000000', after: 1 }, admin);
    expect(none.status).toBe(400);
    expect(none.json.error.message).toMatch(/no key 00000000/);
  });

  it("turns the retired ML-DSA key's checkpoints after SIZE into key-revoked verdicts, not bad signatures", async () => {
    const keys = (await get(`${s.url}/v1/keys`, admin)).json.keys as { keyId: string; alg: string; to?: number }[];
    const old = keys.find((k) => k.to !== undefined && k.alg === 'ML-DSA-65')!;
    const SIZE = 1;
    expect(sizeOf(before.receipt.checkpoint)).toBeGreaterThan(SIZE);
    const r = await post(`${s.url}/v1/keys/revoke`, { keyId: old.keyId, after: SIZE }, admin);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json).toMatchObject({ revoked: true, key: { keyId: old.keyId, alg: 'ML-DSA-65', revokedAfter: SIZE } });
    const listed = (await get(`${s.url}/v1/keys`, admin)).json.keys.find((k: { keyId: string }) => k.keyId === old.keyId);
    expect(listed.revokedAfter).toBe(SIZE);

    const pub = await published('revoked');
    expect(pub.jwks.keys.map((k: any) => k.vouch_logs?.[ORIGIN]?.revokedAfter)).toContain(SIZE);
    expect(pub.vkeys).toMatch(new RegExp(`^# key \\S+\\+${old.keyId} log \\S+ from 0 to \\d+ revoked-after ${SIZE}$`, 'm'));
    for (const keys of [pub.jwksFile, pub.vkeysFile]) {
      const old1 = await verifyReceipt(before.receipt, keys, '--json');
      expect(old1.code, old1.out + old1.err).toBe(1);
      expect(old1.out).toMatch(/key-revoked/);
      expect(old1.out).not.toMatch(/does not verify/);
      const now = await verifyReceipt(after.receipt, keys);
      expect(now.code, now.out + now.err).toBe(0);
    }
    // log verify: the checkpoints the key signed after SIZE are findings of their own kind.
    const v = await vouch('log', 'verify', '--data', data, '--tenant', 'acme', '--json');
    expect(v.code).toBe(1);
    const codes = new Set(JSON.parse(v.out).logs[0].findings.map((f: { code: string }) => f.code));
    expect([...codes]).toEqual(['ERR_KEY_REVOKED']);
  }, 60_000);
});

describe('the key routes refuse', () => {
  it('callers without the admin role (403) and callers without a token (401)', async () => {
    for (const [method, path, body] of [['GET', '/v1/keys'], ['POST', '/v1/keys/rotate', ''], ['POST', '/v1/keys/revoke', { keyId: '00000000', after: 0 }]] as const) {
      const r = method === 'GET' ? await get(`${s.url}${path}`, auditor) : await post(`${s.url}${path}`, body, auditor);
      expect(r.status, path).toBe(403);
      expect(r.json.error.code).toBe('ERR_FORBIDDEN');
      const anon = method === 'GET' ? await get(`${s.url}${path}`) : await post(`${s.url}${path}`, body);
      expect(anon.status, path).toBe(401);
    }
    // Rotation is the operator's: the tenant's admin is refused too.
    const byAdmin = await post(`${s.url}/v1/keys/rotate`, '', admin);
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.json.error.code).toBe('ERR_FORBIDDEN');
    // Nothing was rotated by the refused calls: the log still has the one rotation.
    expect((await get(`${s.url}/v1/keys`, admin)).json.keys).toHaveLength(6);
  });

  it('bad bodies with 400 ERR_INPUT, changing nothing', async () => {
    const size = (await get(`${s.url}/v1/checkpoint`, admin)).json.size;
    for (const body of ['not json', '[]', 'null', {}, { keyId: 'zz', after: 1 }, { keyId: 'abcdef0', after: 1 }, { keyId: 'abcdef01' }, { keyId: 'abcdef01', after: -1 }, { keyId: 'abcdef01', after: '3' }, { keyId: 'abcdef01', after: 1.5 }]) {
      const r = await post(`${s.url}/v1/keys/revoke`, body, admin);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(['ERR_INPUT', 'ERR_JSON_PARSE']).toContain(r.json.error.code);
      if (typeof body === 'object') expect(r.json.error.code).toBe('ERR_INPUT');
    }
    expect((await get(`${s.url}/v1/checkpoint`, admin)).json.size).toBe(size);
  });
});
