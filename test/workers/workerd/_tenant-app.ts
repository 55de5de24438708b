// A Worker app for one spec, built as the entry builds it (buildWorkerApp, real Durable Objects for
// log and state) from a given config document, with bearer-token auth so each spec decides in its
// own tenant's log: tokens are signed here with a throwaway Ed25519 key whose JWKS is VOUCH_AUTH.
import { env } from 'cloudflare:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { expect } from 'vitest';
import { exportBundle, verifyBundle } from '../../../src/audit/index.js';
import type { Json } from '../../../src/interceptors/types.js';
import { parseTrust } from '../../../src/receipt/index.js';
import type { LogObjectRpc } from '../../../src/worker/log-object-rpc.js';
import { remoteLogPort } from '../../../src/worker/remote-log.js';
import { memoryBundle } from './_worker-kit.js';
import { buildWorkerApp, type WorkerApp } from '../../../src/worker/app.js';
import type { WorkerPolicyOptions } from '../../../src/worker/policy.js';

export interface TenantApp {
  app: WorkerApp;
  /** POST a JSON body as `principal` of the tenant; the answer as JSON. */
  post(path: string, body: unknown, principal?: string): Promise<{ status: number; json: any }>;
  get(path: string): Promise<Response>;
}

const ISSUER = 'https://issuer.test';

export async function tenantApp(tenant: string, document: Json, opts: WorkerPolicyOptions = {}): Promise<TenantApp> {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'EdDSA', use: 'sig' };
  const auth = JSON.stringify({ jwks: { keys: [jwk] }, issuer: ISSUER, audience: 'vouch' });
  const app = await buildWorkerApp({ ...env, VOUCH_AUTH: auth }, document, opts);
  const token = (principal: string) =>
    new SignJWT({ tenant, roles: ['enforce', 'audit', 'admin', 'tool-user'] }) // tool-user: the example policy's tools (issue 37)
      .setProtectedHeader({ alg: 'EdDSA', kid: 'k1' })
      .setSubject(principal)
      .setIssuer(ISSUER)
      .setAudience('vouch')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(privateKey);
  const headers = async (principal: string) => ({ authorization: `Bearer ${await token(principal)}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
  return {
    app,
    async post(path, body, principal = 'alice') {
      const res = await app.app.fetch(new Request(`https://vouch.test${path}`, { method: 'POST', headers: await headers(principal), body: JSON.stringify(body) }));
      const text = await res.text();
      let json: unknown = text;
      try {
        json = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      return { status: res.status, json };
    },
    get: async (path) => app.app.fetch(new Request(`https://vouch.test${path}`, { headers: await headers('auditor') })),
  };
}

/**
 * Export the tenant's whole log with payloads through its log object, verify it against the
 * served JWKS and replay every decision (no server is called): clean, every decision `match`,
 * and the replay report holding `replay` too (e.g. how many remote answers it stood in).
 */
export async function expectBundleReplays(t: TenantApp, tenant: string, replay: Record<string, unknown> = {}): Promise<void> {
  const keys = { jwks: await (await t.get('/.well-known/vouch/keys')).json(), vkeys: (await (await t.get('/.well-known/vouch/vkeys')).text()).trim().split('\n').filter((l) => !l.startsWith('#')) }; // `# key` lines: windows, not keys
  const { sink, reader } = memoryBundle();
  const log = remoteLogPort(env.VOUCH_LOG.get(env.VOUCH_LOG.idFromName(tenant)) as unknown as LogObjectRpc, tenant, `test.vouch/${tenant}`);
  const manifest = await exportBundle(log, sink, { keys, tool: { name: 'vouch', version: 'test' }, payloads: true });
  const report = await verifyBundle(reader, { trusted: parseTrust(JSON.stringify(keys.jwks)) });
  expect(report.findings).toEqual([]);
  expect(report.ok).toBe(true);
  expect(report.replay).toMatchObject({ mismatch: 0, unreplayable: 0, match: manifest.range.to - 1, ...replay });
}
