// Hostile 2026-07-28 callers of `vouch gateway --listen --auth` (issue 36). The listener is
// stateless for them: each request names its caller by its token alone, and is served by that
// caller's gateway (one upstream connection). Played here with real JWTs, a real listener and a
// real 2025 upstream: a token's roles are the ones its request is decided under (a narrower token
// of the same subject never rides a wider one's gateway), and a parked call's requestState is
// reached by no other caller, whatever params or roles it sends.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenGateway, type Listening } from '../../src/mcp/gateway-http.js';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import { closeReplayed, entriesOf, makeWorkspace } from '../mcp/_gateway.js';

const ASKING = fileURLToPath(new URL('../mcp/fixtures/asking-server-2025.mjs', import.meta.url));
const AUDIENCE = 'https://gateway.test/mcp';
const ISSUER = 'https://as.test/';
// echo needs the role only the mcp:tools scope grants; confirm (which asks the client) anyone may call.
const POLICY = `
@id("asking-tools")
permit(principal, action == Action::"tools/call", resource) when { context.server == "asking" };
@id("asking-elicitation")
permit(principal, action == Action::"elicitation/create", resource == Elicitation::"asking");
@id("echo-needs-tool-user")
forbid(principal, action == Action::"tools/call", resource == Tool::"echo") unless { principal in Role::"tool-user" };
`;

let rt: GatewayRuntime;
let listening: Listening;
let mint: (sub: string, scope: string) => Promise<string>;

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = { ...((await exportJWK(publicKey)) as JWK), kid: 'k1', alg: 'ES256', use: 'sig' };
  mint = (sub, scope) => new SignJWT({ sub, scope }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer(ISSUER).setAudience(AUDIENCE).setIssuedAt().setExpirationTime('10m').sign(privateKey);
  const ws = makeWorkspace('vouch-gw26-callers-');
  appendFileSync(join(ws.dir, 'gateway-policy.cedar'), POLICY);
  rt = await openGateway({ data: ws.data, config: ws.config, upstream: { command: `node '${ASKING}'`, stderr: 'ignore' }, serverName: 'asking', thread: false, timeoutMs: 20_000 });
  listening = await listenGateway(rt, { port: 0, auth: { jwks: { keys: [jwk] }, issuer: ISSUER, audience: AUDIENCE, resource: AUDIENCE, scopes: { 'mcp:tools': ['tool-user'] }, tenant: 'default' } });
});
afterAll(async () => {
  await listening?.close();
  await closeReplayed(rt);
});

type Answer = { result?: Record<string, unknown>; error?: { code: number; message: string; data?: Record<string, unknown> } };
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } }, 'io.modelcontextprotocol/clientInfo': { name: 'raw-http', version: '1' } };
let nextId = 0;

/** One 2026 request over HTTP with `token`; the answer, whether the SDK framed it as JSON or SSE. */
async function call(token: string, params: Record<string, unknown>, method = 'tools/call'): Promise<Answer> {
  const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  const r = await fetch(listening.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...name },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method, params: { ...params, _meta: ENVELOPE } }),
  });
  const text = await r.text();
  if (!text.startsWith('event:') && !text.startsWith('data:') && !text.startsWith('id:')) return JSON.parse(text) as Answer;
  const data = text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)) as Answer & { id?: unknown });
  return data.find((d) => 'result' in d || 'error' in d)!;
}

describe('gateway --listen --auth: a 2026 caller is decided under its own token', () => {
  it('a token without the role is denied, even after a token of the same subject with the role was served', async () => {
    const wide = await mint('agent-carol', 'mcp:tools');
    const narrow = await mint('agent-carol', '');
    expect((await call(wide, { name: 'echo', arguments: { message: 'wide' } })).result).toMatchObject({ content: [{ text: 'Echo: wide' }] });
    const riding = await call(narrow, { name: 'echo', arguments: { message: 'narrow' } });
    expect(riding.result).toBeUndefined();
    expect(riding.error).toMatchObject({ code: -32001 });
    expect(JSON.stringify(riding.error)).toContain('echo-needs-tool-user');
    // The deny is recorded with the narrow token's roles (none), not the wide one's.
    const deny = (await entriesOf(rt)).filter((e) => e.type === 'decision' && e.event === 'tools/call' && e.principal === 'agent-carol').at(-1)!;
    expect(deny).toMatchObject({ decision: { effect: 'deny' } });
    expect(deny.roles ?? []).not.toContain('tool-user');
  });

  it('and the other way round: a token with the role is not held to the roles of a narrower one served first', async () => {
    const narrow = await mint('agent-dave', '');
    const wide = await mint('agent-dave', 'mcp:tools');
    expect((await call(narrow, { name: 'echo', arguments: { message: 'narrow' } })).error).toMatchObject({ code: -32001 });
    expect((await call(wide, { name: 'echo', arguments: { message: 'wide' } })).result).toMatchObject({ content: [{ text: 'Echo: wide' }] });
  });
});

describe('gateway --listen --auth: a 2025 session is its token\'s, roles included', () => {
  it('a token of the same subject with other roles cannot ride a session another token opened (403)', async () => {
    const post = (token: string, body: object, sessionId?: string) =>
      fetch(listening.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, ...(sessionId && { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }) }, body: JSON.stringify(body) });
    const wide = await mint('agent-erin', 'mcp:tools');
    const init = await post(wide, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old', version: '1' } } });
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    expect(sessionId).toBeTruthy();
    const narrow = await post(await mint('agent-erin', ''), { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'riding' } } }, sessionId);
    expect(narrow.status).toBe(403);
    expect(await narrow.text()).toContain('other roles');
  });
});

describe('gateway --listen --auth: a parked call\'s requestState reaches its own caller only', () => {
  it('another principal, or the same subject under other roles, with the same params, reaches no call; the owner\'s retry goes on', async () => {
    const alice = await mint('agent-alice', 'mcp:tools');
    const params = { name: 'confirm', arguments: { what: 'the transfer' } };
    const first = await call(alice, params);
    expect(first.result?.resultType).toBe('input_required');
    const requestState = first.result!.requestState as string;
    const key = Object.keys(first.result!.inputRequests as object)[0]!;
    const inputResponses = { [key]: { action: 'accept', content: { confirm: true } } };
    for (const thief of [await mint('agent-mallory', 'mcp:tools'), await mint('agent-alice', '')]) {
      const stolen = await call(thief, { ...params, requestState, inputResponses });
      expect(stolen.error).toMatchObject({ code: -32602, data: { code: 'ERR_REQUEST_STATE' } });
    }
    // Still parked for its owner: the next round asks for the colour.
    const next = await call(alice, { ...params, requestState, inputResponses });
    expect(next.result?.resultType).toBe('input_required');
  });
});
