// MCP authorization end to end, with real parts only: an authorization server built from the MCP
// SDK's own auth router (its provider here issues ES256 JWTs bound to the RFC 8707 resource), the
// SDK client's OAuth flow (discovery from the 401, dynamic registration, PKCE authorization code),
// and `vouch gateway --listen --auth` (a child process) in front of server-everything over stdio.
// The attacker: a client holding a token minted for another resource, an expired one, none at all,
// or another principal's valid token replayed on someone else's session.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import express from 'express';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { OAuthClientInformationFull, OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { parseTrust, verifiersFor, verifyReceipt } from '../../src/receipt/index.js';
import { everythingCmd, makeWorkspace, ROOT, textOf, VOUCH_BIN } from '../mcp/_gateway.js';

const SUBJECT = 'agent-alice';
const REDIRECT = 'http://127.0.0.1:1/callback'; // never fetched: the test reads the code from the redirect

/** A small in-memory authorization server behind the SDK's mcpAuthRouter. */
async function startAuthServer() {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = (await exportJWK(publicKey)) as JWK;
  Object.assign(jwk, { kid: 'as-key', alg: 'ES256', use: 'sig' });
  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, { clientId: string; params: AuthorizationParams }>();
  const clientsStore: OAuthRegisteredClientsStore = {
    getClient: (id) => clients.get(id),
    registerClient: (c) => {
      const full = { ...c, client_id: (c as OAuthClientInformationFull).client_id ?? randomUUID() } as OAuthClientInformationFull;
      clients.set(full.client_id, full);
      return full;
    },
  };
  let issuer = '';
  const issued: { aud: string; scope: string }[] = [];
  const mint = (claims: Record<string, unknown>, aud: string, exp: number | string = '10m') =>
    new SignJWT({ sub: SUBJECT, ...claims }).setProtectedHeader({ alg: 'ES256', kid: 'as-key' }).setIssuer(issuer).setAudience(aud).setIssuedAt().setExpirationTime(exp).sign(privateKey);
  const provider: OAuthServerProvider = {
    clientsStore,
    async authorize(client, params, res) {
      // The "user" consents at once: the redirect carries the code (and the state) back.
      const code = randomUUID();
      codes.set(code, { clientId: client.client_id, params });
      const to = new URL(params.redirectUri);
      to.searchParams.set('code', code);
      if (params.state) to.searchParams.set('state', params.state);
      res.redirect(302, to.href);
    },
    async challengeForAuthorizationCode(_client, code) {
      const c = codes.get(code);
      if (!c) throw new Error('unknown code');
      return c.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code, _verifier, _redirectUri, resource): Promise<OAuthTokens> {
      const c = codes.get(code);
      codes.delete(code);
      if (!c || c.clientId !== client.client_id) throw new Error('bad code');
      // RFC 8707: the token is for the resource the client asked for (and was authorized for).
      const aud = (resource ?? c.params.resource)?.href;
      if (!aud || (c.params.resource && c.params.resource.href !== aud)) throw new Error('resource mismatch');
      const scope = (c.params.scopes ?? []).join(' ');
      issued.push({ aud, scope });
      return { access_token: await mint({ scope, client_id: client.client_id }, aud), token_type: 'Bearer', expires_in: 600, scope };
    },
    async exchangeRefreshToken() {
      throw new Error('no refresh tokens here');
    },
    async verifyAccessToken() {
      throw new Error('this server issues tokens; vouch verifies them');
    },
  };
  let app: express.Express | undefined;
  const server: Server = createHttpServer((req, res) => app!(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  const issuerUrl = new URL(`http://127.0.0.1:${port}/`);
  issuer = issuerUrl.href;
  app = express();
  app.set('trust proxy', false);
  app.use(mcpAuthRouter({ provider, issuerUrl, scopesSupported: ['mcp:tools'] }));
  return { issuer, jwks: { keys: [jwk] }, issued, mint, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** The MCP client's side: stores what the flow saves, and "follows" the browser redirect itself. */
class TestOAuthClient implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  code?: string;
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'vouch-oauth-e2e', redirect_uris: [REDIRECT], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post' };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(i: OAuthClientInformationMixed) {
    this.info = i;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(t: OAuthTokens) {
    this.saved = t;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url: URL) {
    const r = await fetch(url, { redirect: 'manual' });
    const to = new URL(r.headers.get('location')!);
    this.code = to.searchParams.get('code') ?? undefined;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

let as: Awaited<ReturnType<typeof startAuthServer>>;
let gw: ChildProcess;
let gwUrl: string;
let base: string;
let out = '';

beforeAll(async () => {
  as = await startAuthServer();
  const ws = makeWorkspace('vouch-oauth-');
  const authFile = join(ws.dir, 'auth.json');
  // A rule on a role the token only gets through the scope map (mcp:tools -> tool-user).
  appendFileSync(join(ws.dir, 'gateway-policy.cedar'), '\n@id("sum-needs-tool-user")\nforbid(principal, action == Action::"tools/call", resource == Tool::"get-sum") unless { principal in Role::"tool-user" };\n');
  // The gateway trusts the AS's key; its resource is its own /mcp URL (the default); tokens carry no tenant claim.
  writeFileSync(authFile, JSON.stringify({ jwks: as.jwks, issuer: as.issuer, scopes: { 'mcp:tools': ['tool-user'] }, tenant: 'default' }));
  const port = await freePort();
  gw = spawn(process.execPath, [VOUCH_BIN, 'gateway', '--data', ws.data, '--config', ws.config, '--listen', `127.0.0.1:${port}`, '--auth', authFile, '--upstream-cmd', everythingCmd(), '--wait', 'signed', '--quiet'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  gw.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  gw.stderr!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`gateway did not start: ${out}`)), 45_000);
    const check = () => (out.includes('oauth: tokens for') ? (clearTimeout(t), resolve()) : gw.exitCode !== null ? (clearTimeout(t), reject(new Error(`gateway exited: ${out}`))) : setTimeout(check, 100));
    check();
  });
  gwUrl = `http://127.0.0.1:${port}/mcp`;
  base = `http://127.0.0.1:${port}`;
}, 60_000);

afterAll(async () => {
  if (gw && gw.exitCode === null) {
    const exited = new Promise((r) => gw.once('exit', r));
    gw.kill('SIGTERM');
    await exited;
  }
  await as?.close();
});

const initialize = (token?: string, sessionId?: string) =>
  fetch(gwUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}), ...(sessionId ? { 'mcp-session-id': sessionId } : {}) },
    body: JSON.stringify(
      sessionId
        ? { jsonrpc: '2.0', id: 2, method: 'tools/list' }
        : { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } },
    ),
  });
const params = (h: string | null) => Object.fromEntries([...(h ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));

describe('MCP authorization: SDK OAuth client -> SDK auth router -> vouch gateway -> server-everything', () => {
  it('a request without a token gets 401 naming the protected resource metadata', async () => {
    const r = await initialize();
    expect(r.status).toBe(401);
    const h = params(r.headers.get('www-authenticate'));
    expect(h.resource_metadata).toBe(`${base}/.well-known/oauth-protected-resource/mcp`);
    expect(h.error).toBeUndefined();
    const doc = await (await fetch(h.resource_metadata)).json();
    expect(doc).toEqual({ resource: gwUrl, authorization_servers: [as.issuer], scopes_supported: ['mcp:tools'], bearer_methods_supported: ['header'] });
    expect(await (await fetch(`${base}/.well-known/oauth-protected-resource`)).json()).toEqual(doc);
  });

  it('the SDK client discovers, registers, authorizes and calls a tool through the gateway', async () => {
    const oauth = new TestOAuthClient();
    const first = new Client({ name: 'oauth-e2e', version: '1.0.0' });
    // No token yet: the SDK reads the 401, discovers the AS from the metadata, registers, and "redirects".
    await expect(first.connect(new StreamableHTTPClientTransport(new URL(gwUrl), { authProvider: oauth }))).rejects.toBeInstanceOf(UnauthorizedError);
    expect(oauth.code).toBeTruthy();
    const transport = new StreamableHTTPClientTransport(new URL(gwUrl), { authProvider: oauth });
    await transport.finishAuth(oauth.code!);
    // The token the AS issued is for this gateway's resource (RFC 8707), with the advertised scope.
    expect(as.issued.at(-1)).toEqual({ aud: gwUrl, scope: 'mcp:tools' });

    const client = new Client({ name: 'oauth-e2e', version: '1.0.0' });
    await client.connect(transport);
    const r = await client.callTool({ name: 'echo', arguments: { message: 'through oauth' } });
    expect(textOf(r)).toBe('Echo: through oauth');
    // The decision was made for the token's subject, not the gateway's default principal, and signed.
    const jwks = await (await fetch(`${base}/.well-known/vouch/keys`)).text();
    const receipt = r._meta!['io.vouch/receipt'] as { checkpoint?: string };
    const report = verifyReceipt(receipt, { verifiers: verifiersFor(parseTrust(jwks), receipt.checkpoint ?? '') });
    expect(report.ok).toBe(true);
    expect(report.entry!.principal).toBe(SUBJECT);

    // Another principal's valid token cannot ride this session.
    const mallory = await as.mint({ scope: 'mcp:tools', sub: 'agent-mallory' }, gwUrl);
    const hijack = await initialize(mallory, transport.sessionId);
    expect(hijack.status).toBe(403);
    expect(await hijack.text()).toContain('another principal');
    await client.close();
  }, 60_000);

  it('refuses a token for another resource, an expired one and a garbage one (401 invalid_token)', async () => {
    const wrongResource = await as.mint({ scope: 'mcp:tools' }, 'http://127.0.0.1:9/mcp');
    const wrongPath = await as.mint({ scope: 'mcp:tools' }, `${base}/other`);
    const expired = await as.mint({ scope: 'mcp:tools', iat: Math.floor(Date.now() / 1000) - 7200 }, gwUrl, Math.floor(Date.now() / 1000) - 3600);
    for (const t of [wrongResource, wrongPath, expired, 'not.a.jwt']) {
      const r = await initialize(t);
      expect(r.status).toBe(401);
      const h = params(r.headers.get('www-authenticate'));
      expect(h.error).toBe('invalid_token');
      expect(h.resource_metadata).toBe(`${base}/.well-known/oauth-protected-resource/mcp`);
      expect(await r.text()).not.toContain(t);
    }
    // A valid token for this resource but another tenant: this gateway writes only its own tenant's log.
    const otherTenant = await initialize(await as.mint({ scope: 'mcp:tools', tenant: 'globex' }, gwUrl));
    expect(otherTenant.status).toBe(403);
    // And the same key, for this resource, passes: the refusals above were the audience and time checks.
    expect((await initialize(await as.mint({ scope: 'mcp:tools' }, gwUrl))).status).toBe(200);
  });
});


describe('scopes are roles for policy', () => {
  const connectWith = async (token: string) => {
    const client = new Client({ name: 'oauth-e2e-static', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gwUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    return client;
  };

  it('the scope claim, through the config map, grants the role a rule asks for', async () => {
    const scoped = await connectWith(await as.mint({ scope: 'mcp:tools' }, gwUrl));
    expect(textOf(await scoped.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } }))).toContain('42');
    await scoped.close();
    // Same subject, no scope (or one the map does not know): the rule's role is missing, the call is denied.
    for (const scope of ['', 'tool-user admin']) {
      const bare = await connectWith(await as.mint({ scope }, gwUrl));
      expect(textOf(await bare.callTool({ name: 'echo', arguments: { message: 'still fine' } }))).toBe('Echo: still fine');
      await expect(bare.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } })).rejects.toThrow(/sum-needs-tool-user|denied/i);
      await bare.close();
    }
  }, 60_000);
});

describe('gateway auth configuration', () => {
  it('--auth needs --listen; a non-loopback listener needs auth with an explicit resource', async () => {
    const { run } = await import('../../src/cli/commands/gateway.js');
    const io = { out: () => undefined, err: () => undefined } as never;
    await expect(run(['--data', '/nonexistent', '--upstream-cmd', 'true', '--auth', '/nonexistent.json'], io)).rejects.toThrow(/--auth applies to --listen only/);
    const { listenGateway } = await import('../../src/mcp/gateway-http.js');
    const rt = {} as never;
    await expect(listenGateway(rt, { host: '0.0.0.0', port: 0 })).rejects.toThrow(/without --auth/);
    await expect(listenGateway(rt, { host: '0.0.0.0', port: 0, auth: { jwks: as.jwks, issuer: as.issuer } })).rejects.toThrow(/set "resource"/);
  });
});
