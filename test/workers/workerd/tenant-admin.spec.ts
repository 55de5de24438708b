// Issue 35 on the Worker (the same createApp as Node): tenant b's tokens against tenant a. /metrics
// shows a tenant token its own tenant's counters only, the operator every tenant's; key rotation
// (the whole deployment's) is refused to a tenant admin before anything else is looked at.
import { env } from 'cloudflare:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { WORKER_CONFIG_DOCUMENT as configDocument } from './_config.js';
import { buildWorkerApp, type WorkerApp } from '../../../src/worker/app.js';

const ISSUER = 'https://issuer.test';
let app: WorkerApp;
let token: (sub: string, tenant: string, roles: string[]) => Promise<Record<string, string>>;

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'EdDSA', use: 'sig' };
  app = await buildWorkerApp({ ...env, VOUCH_AUTH: JSON.stringify({ jwks: { keys: [jwk] }, issuer: ISSUER, audience: 'vouch' }) }, configDocument);
  token = async (sub, tenant, roles) => ({
    authorization: `Bearer ${await new SignJWT({ tenant, roles }).setProtectedHeader({ alg: 'EdDSA', kid: 'k1' }).setSubject(sub).setIssuer(ISSUER).setAudience('vouch').setIssuedAt().setExpirationTime('10m').sign(privateKey)}`,
    'content-type': 'application/json',
  });
});

const call = (path: string, headers: Record<string, string>, body?: unknown) =>
  app.app.fetch(new Request(`https://vouch.test${path}`, body === undefined ? { headers } : { method: 'POST', headers, body: JSON.stringify(body) }));
const decide = async (headers: Record<string, string>) => {
  const r = await call('/v1/authorize', headers, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'hi' } } });
  expect(r.status).toBe(200);
};
const decisions = (text: string) => [...text.matchAll(/^vouch_decisions_total\{effect="(?:allow|deny)"\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);

describe("tenant b's tokens against tenant a, on the Worker", () => {
  it("/metrics: b's auditor counts b's decisions only; the operator counts both", async () => {
    await decide(await token('alice', 'worker-a', ['enforce']));
    await decide(await token('alice', 'worker-a', ['enforce']));
    await decide(await token('bob', 'worker-b', ['enforce']));
    const b = await call('/metrics', await token('b-auditor', 'worker-b', ['audit']));
    expect(b.status).toBe(200);
    const bText = await b.text();
    expect(decisions(bText)).toBe(1);
    expect(bText).not.toContain('worker-a');
    const op = await call('/metrics', await token('ops', 'ops', ['operator']));
    expect(decisions(await op.text())).toBe(3);
  });

  it("POST /v1/keys/rotate with tenant b's admin token is 403 ERR_FORBIDDEN (the operator's, where it is possible at all)", async () => {
    const r = await call('/v1/keys/rotate', await token('b-admin', 'worker-b', ['admin']), {});
    expect(r.status).toBe(403);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('ERR_FORBIDDEN');
    // The operator learns that this deployment changes keys by redeploying its secrets.
    const op = await call('/v1/keys/rotate', await token('ops', 'ops', ['operator']), {});
    expect(((await op.json()) as { error: { code: string } }).error.code).toBe('ERR_CONFIG');
  });
});
