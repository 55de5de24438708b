// Issue 38 on the Worker: keys change with the secrets (docs/workers-keys.md). Each "deployment"
// here is a VouchLog built over the same Durable Object storage with other secrets (what a restart
// with new secrets is) and the app over it. Played: an operator rotating with traffic before,
// during and after (old receipts verify against the published history, new ones under the new
// keys); an operator who replaced the secrets without a handover (a coded refusal, /healthz 503,
// nothing signed); a forger holding only the classical (Ed25519) key.
import { env, runInDurableObject } from 'cloudflare:test';
import type { DurableObjectState } from '@cloudflare/workers-types/index.ts';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromBase64, toBase64, utf8 } from '../../../src/canonical/index.js';
import { createEd25519Verifier, createMldsaVerifier, ed25519PublicKeyFromSeed, mldsaKeyFromSeed } from '../../../src/crypto/index.js';
import { noteVerifierFor, openSignedCheckpoint, parseNote, type NoteVerifier } from '../../../src/log/index.js';
import { parseTrust, verifiersFor, verifyReceipt } from '../../../src/receipt/index.js';
import { openDurableObjectStore } from '../../../src/store/durable-object.js';
import { buildWorkerApp } from '../../../src/worker/app.js';
import { WORKER_CONFIG_DOCUMENT as configDocument } from './_config.js';
import type { WorkerEnv } from '../../../src/worker/env.js';
import { noteSignersOf, readKeySets } from '../../../src/worker/keys.js';
import { VouchLog } from '../../../src/worker/log-object.js';
import { HANDOVER_BY } from '../../../src/worker/log-object-rpc.js';
import { WORKER_MIGRATIONS } from '../../../src/worker/migrations.js';

const ISSUER = 'https://issuer.test';
const seed = (byte: number) => new Uint8Array(32).fill(byte);
const keyText = (alg: string, byte: number) => JSON.stringify({ v: 1, alg, seed: toBase64(seed(byte)) });

type Secrets = Partial<Pick<WorkerEnv, 'VOUCH_SIGNING_KEY' | 'VOUCH_ED25519_KEY' | 'VOUCH_SIGNING_KEY_PREVIOUS' | 'VOUCH_ED25519_KEY_PREVIOUS'>>;
const OLD: Secrets = { VOUCH_SIGNING_KEY: keyText('ML-DSA-65', 41), VOUCH_ED25519_KEY: keyText('Ed25519', 42) };
const NEW: Secrets = { VOUCH_SIGNING_KEY: keyText('ML-DSA-65', 51), VOUCH_ED25519_KEY: keyText('Ed25519', 52) };
const WRONG: Secrets = { VOUCH_SIGNING_KEY: keyText('ML-DSA-65', 61), VOUCH_ED25519_KEY: keyText('Ed25519', 62) };
const handover = (from: Secrets, to: Secrets): Secrets => ({ ...to, VOUCH_SIGNING_KEY_PREVIOUS: from.VOUCH_SIGNING_KEY, VOUCH_ED25519_KEY_PREVIOUS: from.VOUCH_ED25519_KEY });

let auth: string;
let token: (tenant: string, roles: string[]) => Promise<string>;
beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  auth = JSON.stringify({ jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'EdDSA', use: 'sig' }] }, issuer: ISSUER, audience: 'vouch' });
  token = (tenant, roles) => new SignJWT({ tenant, roles }).setProtectedHeader({ alg: 'EdDSA', kid: 'k1' }).setSubject('alice').setIssuer(ISSUER).setAudience('vouch').setIssuedAt().setExpirationTime('10m').sign(privateKey);
});

/** One deployment over the tenant's object storage: these secrets, this key name (each test its own, so /healthz sees its logs only). */
async function deploy(state: DurableObjectState, keyName: string, tenant: string, secrets: Secrets) {
  const e: WorkerEnv = { ...env, VOUCH_KEY_NAME: keyName, VOUCH_AUTH: auth, VOUCH_SIGNING_KEY: undefined, VOUCH_ED25519_KEY: undefined, VOUCH_SIGNING_KEY_PREVIOUS: undefined, VOUCH_ED25519_KEY_PREVIOUS: undefined, ...secrets };
  const object = new VouchLog(state as never, e);
  const app = await buildWorkerApp(e, configDocument, { logObject: () => object });
  const headers = async (roles = ['enforce', 'audit', 'admin', 'tool-user']) => ({ authorization: `Bearer ${await token(tenant, roles)}`, 'content-type': 'application/json' });
  const json = async (res: Response) => ({ status: res.status, json: (await res.json()) as any });
  return {
    env: e,
    decide: async (text: string) => json(await app.app.fetch(new Request('https://vouch.test/v1/authorize', { method: 'POST', headers: await headers(), body: JSON.stringify({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text } } }) }))),
    get: async (path: string) => json(await app.app.fetch(new Request(`https://vouch.test${path}`, { headers: await headers() }))),
    post: async (path: string, body: unknown, roles?: string[]) => json(await app.app.fetch(new Request(`https://vouch.test${path}`, { method: 'POST', headers: await headers(roles), body: JSON.stringify(body) }))),
    /** The published key set as a verifier reads it (JWKS: names bound to the note's lines). */
    trust: async () => parseTrust(JSON.stringify((await (await app.app.fetch(new Request('https://vouch.test/.well-known/vouch/keys'))).json()))),
    vkeys: async () => (await app.app.fetch(new Request('https://vouch.test/.well-known/vouch/vkeys'))).text(),
  };
}

/** The body runs in the tenant's object: its storage outlives every deployment built over it. */
function inObject<R>(tenant: string, body: (state: DurableObjectState) => Promise<R>): Promise<R> {
  return runInDurableObject(env.VOUCH_LOG.get(env.VOUCH_LOG.idFromName(tenant)), (_i: unknown, state: DurableObjectState) => body(state));
}

function expectVerifies(receipt: any, trust: ReturnType<typeof parseTrust>) {
  const report = verifyReceipt(receipt, { verifiers: verifiersFor(trust, receipt.checkpoint) });
  expect(report.checks.filter((c) => !c.ok)).toEqual([]);
  expect(report.ok).toBe(true);
}

/** Verifiers of a secret set's keys under `name` (what a checkpoint signed by exactly those keys opens with). */
function verifiersOf(secrets: Secrets, name: string): NoteVerifier[] {
  const sets = readKeySets({ ...env, ...secrets } as WorkerEnv);
  return sets.current.keys.map((k) => noteVerifierFor(name, k.alg === 'ML-DSA-65' ? createMldsaVerifier(k.publicKey) : createEd25519Verifier(k.publicKey)));
}

const signerNames = (note: string) => parseNote(note).signatures.map((s) => s.name);

describe('key rotation on the Worker, with the secrets (docs/workers-keys.md)', () => {
  it('an operator rotates with traffic before, during and after: old receipts verify against the published history, new ones under the new keys', async () => {
    const tenant = 'rot-a';
    const origin = `rot.vouch/${tenant}`;
    await inObject(tenant, async (state) => {
      // Before: the old secrets sign; a new log signs under its origin (tlog-checkpoint).
      const before = await deploy(state, 'rot.vouch', tenant, OLD);
      const old = [];
      for (let i = 0; i < 3; i++) {
        const r = await before.decide(`before ${i}`);
        expect(r.status).toBe(200);
        old.push(r.json.receipt);
      }
      expect(signerNames(old[2].checkpoint)).toEqual([origin, origin]);
      expect((await before.get('/healthz')).status).toBe(200);

      // The handover deployment: new secrets, the old ones as _PREVIOUS. Traffic arrives together.
      const during = await deploy(state, 'rot.vouch', tenant, handover(OLD, NEW));
      const answers = await Promise.all([0, 1, 2, 3, 4].map((i) => during.decide(`during ${i}`)));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
      const keys = (await during.get('/v1/keys')).json.keys as any[];
      expect(keys).toHaveLength(4);
      const retired = keys.filter((k) => k.to !== undefined);
      expect(retired.map((k) => k.alg).sort()).toEqual(['Ed25519', 'ML-DSA-65']);
      const handoverSize = retired[0].to as number;
      // The handover checkpoint (exactly the rotation's size) is signed by the outgoing keys, strictly.
      const cp = await (async () => (await during.get(`/v1/checkpoint`)).json)();
      expect(cp.size).toBeGreaterThan(handoverSize);
      const store = openDurableObjectStore(state.storage, WORKER_MIGRATIONS);
      const handoverNote = store.checkpointAt(handoverSize)!.note;
      expect(() => openSignedCheckpoint(handoverNote, verifiersOf(OLD, origin), { strict: true })).not.toThrow();
      const rotation = JSON.parse(utf8.decode(store.entry(handoverSize - 1)!.bytes));
      expect(rotation).toMatchObject({ type: 'key', action: 'rotate', by: HANDOVER_BY, name: origin });
      // Every answer during the handover verifies, under whichever keys signed its checkpoint.
      const trustDuring = await during.trust();
      for (const a of answers) expectVerifies(a.json.receipt, trustDuring);
      const health = await during.get('/healthz');
      expect(health).toMatchObject({ status: 200, json: { ok: true } });
      expect(health.json.notice).toBeUndefined(); // the one log this deployment knows was handed over

      // After: the _PREVIOUS secrets removed. Old keys stay published with their window.
      const after = await deploy(state, 'rot.vouch', tenant, NEW);
      const fresh = await after.decide('after');
      expect(fresh.status).toBe(200);
      expect(() => openSignedCheckpoint(fresh.json.receipt.checkpoint, verifiersOf(NEW, origin), { strict: true })).not.toThrow();
      expect(() => openSignedCheckpoint(fresh.json.receipt.checkpoint, verifiersOf(OLD, origin))).toThrow();
      const trust = await after.trust();
      for (const r of [...old, fresh.json.receipt]) expectVerifies(r, trust);
      const vkeys = await after.vkeys();
      expect(vkeys).toMatch(new RegExp(`^# key ${origin.replace('/', '\\/')}\\+[0-9a-f]{8} log ${origin.replace('/', '\\/')} from 0 to ${handoverSize} revoked-after -$`, 'm'));
      expect((await after.get('/healthz')).status).toBe(200);

      // Revocation of a retired key is published (its window gains revoked-after); a current key cannot be.
      const oldMldsa = keys.find((k) => k.to !== undefined && k.alg === 'ML-DSA-65');
      const rev = await after.post('/v1/keys/revoke', { keyId: oldMldsa.keyId, after: handoverSize });
      expect(rev.status).toBe(200);
      expect(rev.json.key).toMatchObject({ revokedAfter: handoverSize });
      const cur = keys.find((k) => k.to === undefined && k.alg === 'ML-DSA-65');
      expect((await after.post('/v1/keys/revoke', { keyId: cur.keyId, after: 1 })).json.error.code).toBe('ERR_CONFIG');
      const published = (await after.trust()).jwks.find((k) => k.alg === 'ML-DSA-65' && toBase64(k.publicKey) === oldMldsa.publicKey);
      expect(published?.logs?.[origin]).toEqual({ from: 0, to: handoverSize, revokedAfter: handoverSize });
      for (const r of old) expectVerifies(r, await after.trust()); // signed before the revocation's size
    });
  });

  it('a log made before logs signed under their origin (signed as the deployment\'s key name) opens, verifies, and is handed over to its origin name', async () => {
    const tenant = 'rot-legacy';
    const origin = `legacy.vouch/${tenant}`;
    await inObject(tenant, async (state) => {
      // What the Worker wrote before issue 38: the origin in meta, checkpoints signed as the
      // deployment's key name `legacy.vouch`, no key name recorded. Made here by recording that
      // name for the first deployment, then removing the record.
      const store = openDurableObjectStore(state.storage, WORKER_MIGRATIONS);
      store.setMeta('key.name', 'legacy.vouch');
      const before = await deploy(state, 'legacy.vouch', tenant, OLD);
      const r = await before.decide('legacy');
      expect(r.status).toBe(200);
      expect(signerNames(r.json.receipt.checkpoint)).toEqual(['legacy.vouch', 'legacy.vouch']);
      // (meta is append-only for the service; the test lifts the trigger for this one row.)
      state.storage.sql.exec('DROP TRIGGER meta_no_delete');
      state.storage.sql.exec("DELETE FROM meta WHERE key = 'key.name'");
      state.storage.sql.exec("CREATE TRIGGER meta_no_delete BEFORE DELETE ON meta BEGIN SELECT RAISE(ABORT, 'append-only: meta cannot be deleted'); END");
      // This version opens it as it is: the old name until its handover.
      const reopened = await deploy(state, 'legacy.vouch', tenant, OLD);
      const again = await reopened.decide('legacy again');
      expect(again.status).toBe(200);
      expect(signerNames(again.json.receipt.checkpoint)).toEqual(['legacy.vouch', 'legacy.vouch']);
      expectVerifies(r.json.receipt, await reopened.trust());
      const during = await deploy(state, 'legacy.vouch', tenant, handover(OLD, NEW));
      const n = await during.decide('handed over');
      expect(signerNames(n.json.receipt.checkpoint)).toEqual([origin, origin]);
      const after = await deploy(state, 'legacy.vouch', tenant, NEW);
      const trust = await after.trust();
      expectVerifies(r.json.receipt, trust);
      expectVerifies(n.json.receipt, trust);
    });
  });

  it('secrets replaced without a handover: every decision is 503 ERR_KEY_MISMATCH naming the fix, /healthz 503, nothing signed; the right secrets put back decide again', async () => {
    const tenant = 'rot-wrong';
    await inObject(tenant, async (state) => {
      const right = await deploy(state, 'wrong.vouch', tenant, OLD);
      expect((await right.decide('ok')).status).toBe(200);
      const store = openDurableObjectStore(state.storage, WORKER_MIGRATIONS);
      const size = store.size();

      const wrong = await deploy(state, 'wrong.vouch', tenant, WRONG);
      // A fresh isolate knows from the published histories alone that it cannot decide for this log.
      const early = await wrong.get('/healthz');
      expect(early.status).toBe(503);
      expect(early.json.error.code).toBe('ERR_KEY_MISMATCH');
      expect(early.json.error.message).not.toContain(tenant);
      const d = await wrong.decide('refused');
      expect(d.status).toBe(503);
      expect(d.json.error.code).toBe('ERR_KEY_MISMATCH');
      expect(d.json.error.message).toContain('VOUCH_SIGNING_KEY_PREVIOUS');
      expect(d.json.error.message).toContain('.dev.vars'); // the local fix too: an operator under wrangler dev has no secrets to put
      expect(d.json.error.message).toContain('docs/workers-keys.md');
      expect(d.json.error.message).not.toMatch(/altered/);
      const h = await wrong.get('/healthz');
      expect(h.status).toBe(503);
      expect(h.json.error.code).toBe('ERR_KEY_MISMATCH');
      expect(h.json.error.message).not.toContain(tenant);
      expect(store.size()).toBe(size);

      // Only the Ed25519 secret replaced: the same refusal (the log is signed by both).
      const half = await deploy(state, 'wrong.vouch', tenant, { ...OLD, VOUCH_ED25519_KEY: WRONG.VOUCH_ED25519_KEY });
      expect((await half.decide('refused')).json.error.code).toBe('ERR_KEY_MISMATCH');
      expect(store.size()).toBe(size);

      const back = await deploy(state, 'wrong.vouch', tenant, OLD);
      expect((await back.decide('again')).status).toBe(200);
      expect((await back.get('/healthz')).status).toBe(200);
    });
  });

  it('a forger holding only the classical (Ed25519) key cannot hand a log over, nor make a checkpoint the published keys accept', async () => {
    const tenant = 'rot-forger';
    const origin = `forge.vouch/${tenant}`;
    await inObject(tenant, async (state) => {
      const real = await deploy(state, 'forge.vouch', tenant, OLD);
      const genuine = (await real.decide('genuine')).json.receipt;
      const store = openDurableObjectStore(state.storage, WORKER_MIGRATIONS);
      const size = store.size();
      const stolen = OLD.VOUCH_ED25519_KEY;

      // 1. The stolen Ed25519 key as the only outgoing secret: refused at start, a handover needs the ML-DSA-65 key.
      const edOnly = await deploy(state, 'forge.vouch', tenant, { ...WRONG, VOUCH_ED25519_KEY_PREVIOUS: stolen }).catch((e: Error & { code?: string }) => e);
      expect((edOnly as { code?: string }).code).toBe('ERR_CONFIG');
      expect((edOnly as Error).message).toContain('VOUCH_SIGNING_KEY_PREVIOUS');
      // 2. The stolen Ed25519 key beside the forger's own ML-DSA-65 key as _PREVIOUS: not the keys the log's history names.
      const mixed = await deploy(state, 'forge.vouch', tenant, { ...WRONG, VOUCH_SIGNING_KEY_PREVIOUS: keyText('ML-DSA-65', 71), VOUCH_ED25519_KEY_PREVIOUS: stolen });
      const d = await mixed.decide('forged');
      expect(d.status).toBe(503);
      expect(d.json.error.code).toBe('ERR_KEY_MISMATCH');
      expect(store.size()).toBe(size); // no rotation entry, no checkpoint
      expect([...store.keyEntries!()]).toEqual([]);
      // 3. Offline: the genuine checkpoint with its ML-DSA-65 line removed, and a note over another root signed by the stolen key alone.
      const trust = await real.trust();
      const [body, sigs] = genuine.checkpoint.split('\n\n');
      const edLine = sigs.split('\n').filter((l: string) => l && fromBase64(l.split(' ')[2]).length === 68);
      const stripped = { ...genuine, checkpoint: `${body}\n\n${edLine.join('\n')}\n` };
      expect(verifyReceipt(stripped, { verifiers: verifiersFor(trust, stripped.checkpoint) }).ok).toBe(false);
      const forgedSigners = noteSignersOf({ secrets: { mldsa: 'VOUCH_SIGNING_KEY', ed25519: 'VOUCH_ED25519_KEY', mldsa44: 'VOUCH_MLDSA44_KEY' }, mldsaSeed: seed(71), ed25519Seed: seed(42), keys: [{ alg: 'ML-DSA-65', publicKey: mldsaKeyFromSeed(seed(71)).publicKey }, { alg: 'Ed25519', publicKey: ed25519PublicKeyFromSeed(seed(42)) }] }, origin);
      const { signCheckpoint } = await import('../../../src/log/checkpoint.js');
      const forgedNote = await signCheckpoint({ origin, size: 1, root: new Uint8Array(32).fill(9), extensions: [] }, forgedSigners);
      expect(() => openSignedCheckpoint(forgedNote, verifiersFor(trust, forgedNote))).toThrow();
    });
  });
});
