// Caller co-signing on the Worker (VOUCH_CALLERS, VOUCH_REQUIRE_CALLER_SIGNATURE; Node's --callers
// and --require-caller-signature, test/http/cosign-required.test.ts). Played: a caller that leaves
// the signature out, and one that signs with a key of its own under a configured key id: both get
// a recorded deny; a signature by the configured key is an allow whose receipt carries it.
import { env } from 'cloudflare:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalBytes, fromBase64, toBase64, utf8 } from '../../../src/canonical/index.js';
import { createEd25519Signer, toJwks } from '../../../src/crypto/index.js';
import { formatCallerSignatureHeader, type CallerSignatureClaim } from '../../../src/receipt/index.js';
import { buildWorkerApp } from '../../../src/worker/app.js';
import { WORKER_CONFIG_DOCUMENT as configDocument } from './_config.js';

const ISSUER = 'https://issuer.test';
const ed = createEd25519Signer(new Uint8Array(32).fill(31));
const forger = createEd25519Signer(new Uint8Array(32).fill(32));
const callers = JSON.stringify({ 'cosign-a': toJwks([{ alg: 'Ed25519', publicKey: ed.publicKey, kid: 'app-ed' }]) });
const payload = { name: 'echo', arguments: { text: 'hello' } };
const signBy = async (s: typeof ed, p: unknown): Promise<CallerSignatureClaim> => ({ alg: s.alg, keyId: 'app-ed', signature: toBase64(await s.sign(canonicalBytes(p))) });
const entryOf = (receipt: { entry: string }) => JSON.parse(utf8.decode(fromBase64(receipt.entry)));

let auth: string;
let token: () => Promise<string>;
beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  auth = JSON.stringify({ jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'EdDSA', use: 'sig' }] }, issuer: ISSUER, audience: 'vouch' });
  token = () => new SignJWT({ tenant: 'cosign-a', roles: ['enforce', 'audit', 'tool-user'] }).setProtectedHeader({ alg: 'EdDSA', kid: 'k1' }).setSubject('alice').setIssuer(ISSUER).setAudience('vouch').setIssuedAt().setExpirationTime('10m').sign(privateKey);
});

async function deploy(vars: Record<string, string>) {
  const app = await buildWorkerApp({ ...env, VOUCH_AUTH: auth, ...vars }, configDocument);
  return async (p: unknown, header?: string) => {
    const res = await app.app.fetch(
      new Request('https://vouch.test/v1/authorize', {
        method: 'POST',
        headers: { authorization: `Bearer ${await token()}`, 'content-type': 'application/json', ...(header !== undefined && { 'x-vouch-caller-signature': header }) },
        body: JSON.stringify({ event: 'tools/call', phase: 'request', payload: p }),
      }),
    );
    return { status: res.status, json: (await res.json()) as any };
  };
}

describe('caller co-signing on the Worker', () => {
  it('required: an unsigned request and one signed by another key are recorded denies; the configured key is an allow with its co-signature in the receipt', async () => {
    const authorize = await deploy({ VOUCH_CALLERS: callers, VOUCH_REQUIRE_CALLER_SIGNATURE: 'true' });
    const unsigned = await authorize(payload);
    expect(unsigned.json.effect).toBe('deny');
    expect(entryOf(unsigned.json.receipt).state['(vouch)'].callerSignature).toMatchObject({ ok: false, required: true, deny: expect.stringMatching(/caller signature is required/) });
    const forged = await authorize(payload, formatCallerSignatureHeader(await signBy(forger, payload)));
    expect(forged.json.effect).toBe('deny');
    const signed = await authorize(payload, formatCallerSignatureHeader(await signBy(ed, payload)));
    expect(signed.json.effect).toBe('allow');
    expect(signed.json.receipt.callerSignature.keyId).toBe('app-ed');
    expect(entryOf(signed.json.receipt).callerKey).toBe('app-ed');
  });

  it('not required: unsigned requests are decided as before, a signed one is recorded as co-signed', async () => {
    const authorize = await deploy({ VOUCH_CALLERS: callers });
    expect((await authorize(payload)).json.effect).toBe('allow');
    const signed = await authorize(payload, formatCallerSignatureHeader(await signBy(ed, payload)));
    expect(signed.json.receipt.callerSignature.keyId).toBe('app-ed');
  });

  it('vars that cannot be used stop the Worker with ERR_CONFIG naming them', async () => {
    await expect(deploy({ VOUCH_REQUIRE_CALLER_SIGNATURE: 'true' })).rejects.toMatchObject({ code: 'ERR_CONFIG', message: expect.stringMatching(/needs caller keys \(var VOUCH_CALLERS\)/) });
    await expect(deploy({ VOUCH_CALLERS: '{"cosign-a": 1}' })).rejects.toMatchObject({ code: 'ERR_CONFIG', message: expect.stringContaining('var VOUCH_CALLERS') });
    await expect(deploy({ VOUCH_CALLERS: callers, VOUCH_REQUIRE_CALLER_SIGNATURE: 'yes' })).rejects.toMatchObject({ code: 'ERR_CONFIG', message: expect.stringContaining('VOUCH_REQUIRE_CALLER_SIGNATURE') });
  });
});
