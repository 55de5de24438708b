// Issue 35, attacker's pass 3 (fixed; the test plays it) on secrets in signed fields (hostile MCP client on POST /mcp, 2026-07-28 era).
// clientInfo name and version are cut to MAX_CLIENT_FIELD code points (protocol/mcp-2026.ts
// bounded()) BEFORE the decision's extras are redacted (decide.ts recordedJson(req.extra)): the
// opposite order to recordedLabel, which redacts first "so that a cut must not shorten a credential
// below what its detector matches". A URL whose userinfo the cut separates from its `@`, or an AWS
// secret key cut to 39 of its 40 characters, is no longer matched by its detector and is signed
// into the entry (which cannot erase it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64, utf8 } from '../../src/canonical/index.js';
import { MAX_CLIENT_FIELD } from '../../src/protocol/mcp-2026.js';
import { testServer } from '../http/_server.js';

const V26 = '2026-07-28';
const INFO = 'io.modelcontextprotocol/clientInfo';
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': V26, 'io.modelcontextprotocol/clientCapabilities': {} };
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': V26, 'mcp-method': 'interceptor/executeChain' };

const PASSWORD = 'Sup3rSecretPassw0rdXYZ';
const AWS_SECRET = 'wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEYAB'; // 40

/** `text` placed so that the field's cut (MAX_CLIENT_FIELD - 1 code points and an ellipsis) falls `keep` characters into it. */
const cutAt = (text: string, keep: number) => 'n '.repeat(MAX_CLIENT_FIELD).slice(0, MAX_CLIENT_FIELD - 1 - keep - 1) + ' ' + text + ' tail tail';

describe('clientInfo: cut before it is redacted', () => {
  let server: Awaited<ReturnType<typeof testServer>>;
  beforeAll(async () => {
    server = await testServer();
  });
  afterAll(() => server?.close());

  const entryFor = async (info: { name: string; version: string }) => {
    const body = { jsonrpc: '2.0', id: 1, method: 'interceptor/executeChain', params: { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: {} }, _meta: { ...ENVELOPE, [INFO]: info } } };
    const res = await fetch(`${server.url}/mcp`, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) });
    const json = (await res.json()) as any;
    expect(res.status).toBe(200);
    return JSON.parse(utf8.decode(fromBase64(json.result._meta['io.vouch/receipt'].entry)));
  };

  it('control: a URL password wholly inside the bound is redacted', async () => {
    const e = await entryFor({ name: `https://admin:${PASSWORD}@files.example.test/`, version: '1' });
    expect(JSON.stringify(e.clientInfo)).not.toContain(PASSWORD);
  });

  it('a URL password whose @ falls past the cut is not signed', async () => {
    const url = `https://admin:${PASSWORD}@files.example.test/`;
    const name = cutAt(url, 'https://admin:'.length + PASSWORD.length); // the cut lands right before the @
    const e = await entryFor({ name, version: '1' });
    expect(JSON.stringify(e.clientInfo)).not.toContain(PASSWORD.slice(0, 12));
  });

  it('an AWS secret key cut to 39 of its 40 characters is not signed', async () => {
    const text = `aws_secret_access_key=${AWS_SECRET}`;
    const version = cutAt(text, text.length - 1);
    const e = await entryFor({ name: 'raw-client', version });
    expect(JSON.stringify(e.clientInfo)).not.toContain(AWS_SECRET.slice(0, 30));
  });
});
