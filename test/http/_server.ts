// Start a real vouch server on 127.0.0.1 (free port) over a temp data dir; stop it after.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { startServer, type RunningServer, type ServeOptions } from '../../src/http/node-server.js';

export async function testServer(opts: Partial<ServeOptions> = {}): Promise<RunningServer & { dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-http-'));
  const server = await startServer({ data: join(dir, 'data'), port: 0, ...opts });
  return Object.assign(server, { dir });
}

export function writeConfig(dir: string, config: unknown): string {
  const p = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(p, JSON.stringify(config));
  return p;
}

/** A token issuer for tests: an ES256 key pair, its JWKS, and a signer of claims. */
export async function testIssuer() {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = (await exportJWK(publicKey)) as JWK;
  jwk.kid = 'test-key';
  jwk.alg = 'ES256';
  const auth = { jwks: { keys: [jwk] }, issuer: 'https://issuer.test', audience: 'vouch' };
  const token = (claims: Record<string, unknown>, opts: { exp?: string | number; iss?: string; aud?: string; iat?: number } = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: 'test-key' })
      .setIssuer(opts.iss ?? auth.issuer)
      .setAudience(opts.aud ?? auth.audience)
      .setIssuedAt(opts.iat)
      .setExpirationTime(opts.exp ?? '5m')
      .sign(privateKey);
  return { auth, token };
}

/** Status and body, parsed as JSON when it is JSON (else the text). */
async function answer(res: Response): Promise<{ status: number; json: any }> {
  const text = await res.text();
  try {
    return { status: res.status, json: JSON.parse(text) };
  } catch {
    return { status: res.status, json: text };
  }
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  return answer(await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) }));
}

export async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  return answer(await fetch(url, { headers }));
}
