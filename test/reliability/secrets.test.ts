// Secrets never leak: requests carrying a bearer token and secret-looking payloads (an AWS key, a
// card number), including failing ones, leave no trace of them in any log line or error body.
// And `vouch serve` refuses a key file other users can read.
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/http/node-server.js';
import { initDataDir, keyPaths } from '../../src/store/node.js';
import { testIssuer } from '../http/_server.js';
import { runCli } from './_service.js';

const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const CARD = '4111 1111 1111 1111';
const PAYLOAD_TEXT = 'the-private-phrase-zebra-quartz';

let s: RunningServer;
let issuer: Awaited<ReturnType<typeof testIssuer>>;
let token: string;
const lines: string[] = [];
const bodies: { what: string; status: number; text: string }[] = [];

async function send(what: string, path: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body });
  const text = await res.text();
  bodies.push({ what, status: res.status, text });
  return { status: res.status, text };
}

beforeAll(async () => {
  issuer = await testIssuer();
  token = await issuer.token({ sub: 'alice', tenant: 'acme', roles: ['enforce', 'tool-user'] });
  s = await startServer({ data: join(mkdtempSync(join(tmpdir(), 'vouch-secrets-')), 'data'), port: 0, auth: issuer.auth, logLine: (l) => lines.push(JSON.stringify(l)) });
});
afterAll(async () => {
  await s?.close();
});

describe('no secret in logs or error bodies', () => {
  it('sends allowed, denied, unauthenticated, forbidden and malformed requests carrying secrets', async () => {
    const bearer = { authorization: `Bearer ${token}` };
    const args = { text: `${PAYLOAD_TEXT} key ${AWS_KEY} secret ${AWS_SECRET} card ${CARD}` };
    const decision = (name: string) => JSON.stringify({ event: 'tools/call', phase: 'request', payload: { name, arguments: args } });
    const rpc = (params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'interceptor/executeChain', params });
    expect((await send('allowed', '/v1/authorize', decision('echo'), bearer)).status).toBe(200);
    expect((await send('denied', '/v1/authorize', decision('dangerous_tool'), bearer)).status).toBe(200);
    expect((await send('mcp denied', '/mcp', rpc({ event: 'tools/call', phase: 'request', payload: { name: 'dangerous_tool', arguments: args } }), bearer)).status).toBe(200);
    // failures: each must answer with a coded error that repeats none of the input
    expect((await send('bad token', '/v1/authorize', decision('echo'), { authorization: `Bearer ${token.slice(0, -4)}AAAA` })).status).toBe(401);
    expect((await send('garbage token', '/v1/authorize', decision('echo'), { authorization: `Bearer ${AWS_SECRET}` })).status).toBe(401);
    expect((await send('forbidden role', '/v1/authorize', decision('echo'), { authorization: `Bearer ${await issuer.token({ sub: 'bob', tenant: 'acme', roles: ['audit'] })}` })).status).toBe(403);
    expect((await send('bad JSON', '/v1/authorize', `{"event":"tools/call","payload":{"t":"${AWS_SECRET} ${PAYLOAD_TEXT}"`, bearer)).status).toBe(400);
    expect((await send('bad JSON-RPC JSON', '/mcp', `{"jsonrpc":"2.0","params":"${AWS_SECRET} ${PAYLOAD_TEXT}`, bearer)).status).toBe(400);
    expect((await send('wrong field types', '/v1/authorize', JSON.stringify({ event: AWS_SECRET, phase: PAYLOAD_TEXT, payload: args }), bearer)).status).toBe(400);
    const bad = await send('bad params', '/mcp', rpc({ event: 42, phase: PAYLOAD_TEXT, payload: args }), bearer);
    expect(bad.text).toMatch(/-32602/);
    expect((await send('oversized', '/v1/authorize', JSON.stringify({ event: 'tools/call', phase: 'request', payload: { t: AWS_SECRET.repeat(40_000) } }), bearer)).status).toBe(413);
  });

  it('no log line and no error body contains the token, a secret or the payload text', () => {
    expect(bodies.length).toBeGreaterThanOrEqual(11);
    const needles = [token, AWS_KEY, AWS_SECRET, CARD, '4111111111111111', PAYLOAD_TEXT];
    // Decision answers (200) return the caller's own payload as the chain traced it; they are
    // checked below. Every other answer and every log line must repeat none of the input.
    const leaks = [...lines.map((text) => ({ what: 'log line', status: 0, text })), ...bodies.filter((b) => b.status !== 200)]
      .flatMap((b) => needles.filter((n) => b.text.includes(n)).map((n) => `${b.what}: ${n.slice(0, 12)}…`));
    expect(leaks).toEqual([]);
    expect(bodies.filter((b) => b.status === 200).every((b) => !b.text.includes(token))).toBe(true);
  });

  it('the allowed decision hands on a payload with the AWS key id and the card number redacted', () => {
    const allowed = JSON.parse(bodies.find((b) => b.what === 'allowed')!.text);
    const final = JSON.stringify(allowed.finalPayload);
    expect(final).not.toContain(AWS_KEY);
    expect(final).not.toContain(CARD);
    expect(final).toContain(PAYLOAD_TEXT);
  });
});

describe('key file permissions', () => {
  it('vouch serve refuses a key file with mode 0644 (exit 4, says chmod 600)', () => {
    const data = join(mkdtempSync(join(tmpdir(), 'vouch-keymode-')), 'data');
    initDataDir(data);
    chmodSync(keyPaths(data).mldsa, 0o644);
    const r = runCli(['serve', '--port', '0', '--data', data]);
    expect(r.status).toBe(4);
    expect(r.stderr).toMatch(/chmod 600/);
    expect(r.stderr).toMatch(/ERR_KEY_PERMISSIONS|readable by other users/);
  }, 30_000);
});
