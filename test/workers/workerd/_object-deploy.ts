// A "deployment" over one tenant log object's own storage, for the specs that fire the object's
// alarm by hand (archive-r2, retention, witness): a VouchLog and the app over it, built with the
// given vars and bearer-token auth, and the bundle export and checks those specs share.
import { env, runInDurableObject } from 'cloudflare:test';
import type { DurableObjectState } from '@cloudflare/workers-types/index.ts';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { inject } from 'vitest';
import { exportBundle, verifyBundle, type BundleManifest, type BundleReport, type VerifyBundleOptions } from '../../../src/audit/index.js';
import { parseTrust } from '../../../src/receipt/index.js';
import type { LogPort } from '../../../src/store/log-port.js';
import { buildWorkerApp } from '../../../src/worker/app.js';
import type { WorkerEnv } from '../../../src/worker/env.js';
import { VouchLog } from '../../../src/worker/log-object.js';
import { remoteLogPort } from '../../../src/worker/remote-log.js';
import { WORKER_CONFIG_DOCUMENT } from './_config.js';
import { memoryBundle } from './_worker-kit.js';

export const MINUTE = 60_000;
const ISSUER = 'https://issuer.test';

/** A throwaway Ed25519 key for the bearer tokens (VOUCH_AUTH is its JWKS), made on first use. */
let signer: Promise<{ auth: string; token(tenant: string): Promise<string> }> | undefined;
function bearer() {
  signer ??= (async () => {
    const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const auth = JSON.stringify({ jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'EdDSA', use: 'sig' }] }, issuer: ISSUER, audience: 'vouch' });
    const token = (tenant: string) => new SignJWT({ tenant, roles: ['enforce', 'audit', 'admin', 'tool-user'] }).setProtectedHeader({ alg: 'EdDSA', kid: 'k1' }).setSubject('alice').setIssuer(ISSUER).setAudience('vouch').setIssuedAt().setExpirationTime('10m').sign(privateKey);
    return { auth, token };
  })();
  return signer;
}

/** The body runs in the tenant's object: its storage outlives every deployment built over it. */
export function inObject<R>(tenant: string, body: (state: DurableObjectState) => Promise<R>): Promise<R> {
  return runInDurableObject(env.VOUCH_LOG.get(env.VOUCH_LOG.idFromName(tenant)), (_i: unknown, state: DurableObjectState) => body(state));
}

export interface ObjectDeployment {
  object: VouchLog;
  /** The object's log as the app reads it (origin test.vouch/<tenant>). */
  port: LogPort;
  /** A request to the app as the tenant (identity encoding: tiles come back byte for byte). */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** What workerd does when the alarm is due: the alarm is consumed, then the handler runs. */
  fire(): Promise<void>;
  /** One allowed tools/call decision (the example policy's echo tool). */
  decide(text: string): Promise<{ status: number; json: any }>;
  get(path: string): Promise<any>;
  text(path: string): Promise<string>;
}

/** The example config's app over the tenant's object storage with these vars (a restart with new vars is another call). */
export async function deployObject(state: DurableObjectState, tenant: string, vars: Partial<WorkerEnv> = {}): Promise<ObjectDeployment> {
  const { auth, token } = await bearer();
  const e: WorkerEnv = { ...env, VOUCH_AUTH: auth, ...vars };
  const object = new VouchLog(state as never, e);
  const app = await buildWorkerApp(e, WORKER_CONFIG_DOCUMENT, { logObject: () => object });
  const fetchApp = async (path: string, init: RequestInit = {}) => app.app.fetch(new Request(`https://vouch.test${path}`, { ...init, headers: { authorization: `Bearer ${await token(tenant)}`, 'content-type': 'application/json', 'accept-encoding': 'identity' } }));
  return {
    object,
    port: remoteLogPort(object, tenant, `test.vouch/${tenant}`),
    fetch: fetchApp,
    fire: async () => {
      await state.storage.deleteAlarm();
      await object.alarm();
    },
    decide: async (text) => {
      const res = await fetchApp('/v1/authorize', { method: 'POST', body: JSON.stringify({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text } } }) });
      const body = await res.text();
      let json: unknown = body;
      try {
        json = JSON.parse(body);
      } catch {
        // not JSON: keep the text
      }
      return { status: res.status, json };
    },
    get: async (path) => (await fetchApp(path)).json(),
    text: async (path) => (await fetchApp(path)).text(),
  };
}

export interface VerifiedBundle {
  /** The keys the app serves, as an auditor fetches them. */
  keys: { jwks: unknown; vkeys: string[] };
  files: Map<string, Uint8Array>;
  manifest: BundleManifest;
  report: BundleReport;
}

/** The object's whole log exported with payloads into memory, then verified in workerd against the served JWKS. */
export async function exportAndVerify(d: ObjectDeployment, opts: Omit<VerifyBundleOptions, 'trusted'> = {}): Promise<VerifiedBundle> {
  const keys = { jwks: await d.get('/.well-known/vouch/keys'), vkeys: (await d.text('/.well-known/vouch/vkeys')).trim().split('\n').filter((l) => !l.startsWith('#')) }; // `# key` lines: windows, not keys
  const { sink, reader, files } = memoryBundle();
  const manifest = await exportBundle(d.port, sink, { keys, tool: { name: 'vouch', version: 'test' }, payloads: true });
  const report = await verifyBundle(reader, { ...opts, trusted: parseTrust(JSON.stringify(keys.jwks)) });
  return { keys, files, manifest, report };
}

const base64 = (b: Uint8Array) => btoa(Array.from(b, (x) => String.fromCharCode(x)).join(''));

/** The same bundle checked on Node by `vouch verify` (_node-verifier.ts): its exit code and output. */
export async function verifyOnNode(b: Pick<VerifiedBundle, 'keys' | 'files'>): Promise<{ code: number; out: string; err: string }> {
  const res = await fetch(inject('nodeVerify'), { method: 'POST', body: JSON.stringify({ files: Object.fromEntries([...b.files].map(([name, bytes]) => [name, base64(bytes)])), key: JSON.stringify(b.keys.jwks) }) });
  return (await res.json()) as { code: number; out: string; err: string };
}
