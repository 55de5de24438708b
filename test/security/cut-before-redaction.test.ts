// Issue 35, attacker's pass 4 (fixed; the test plays it). Attacker's pass 4 on issue 35's fixes (secrets in signed fields). Each `it` states what must hold;
// each fails on 75877f7 (3 of 3).
//  A. recordedLabel is not idempotent: a detector's length cap (ghp_ {20,255}) ends a match inside a
//     token run; the text after it had a token character before it (no boundary, not matched), and
//     after the replacement it has `]` before it (a boundary): the second pass redacts an AWS key the
//     first pass signed.
//  B. clientInfo: bounded() still cuts the raw field (MAX_CLIENT_RAW) before recordedLabel redacts. A long
//     credential earlier in the field (a PEM block) shrinks to a placeholder, so text from just before the raw cut
//     lands inside the recorded label: a URL whose `@` the raw cut removed keeps its password.
//  C. POST /mcp header refusal (http/mcp-refusal.ts clip): the header's value is cut at 200 characters
//     and the cut text is recorded (then redacted): the same cut-before-redaction the clientInfo fix removed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64, utf8 } from '../../src/canonical/index.js';
import { recordedLabel } from '../../src/interceptors/builtin/recorded-text.js';
import { testServer } from '../http/_server.js';

const AWS_ID = 'AKIAIOSFODNN7EXAMPLE'; // 20
const PASSWORD = 'Sup3rSecretPassw0rdXYZ';

describe('A. recordedLabel idempotent', () => {
  it('f(f(x)) === f(x) and no AWS key survives: a capped GitHub token followed by an AWS key id', () => {
    const x = `ghp_${'A'.repeat(255)}${AWS_ID}`;
    const once = recordedLabel(x);
    expect(recordedLabel(once)).toBe(once);
    expect(once).not.toContain(AWS_ID);
  });
});

const V26 = '2026-07-28';
const INFO = 'io.modelcontextprotocol/clientInfo';
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': V26, 'io.modelcontextprotocol/clientCapabilities': {} };
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': V26, 'mcp-method': 'interceptor/executeChain' };
const entryOf = (receipt: any) => JSON.parse(utf8.decode(fromBase64(receipt.entry)));

describe('B/C. cut before redaction on POST /mcp', () => {
  let server: Awaited<ReturnType<typeof testServer>>;
  beforeAll(async () => {
    server = await testServer();
  });
  afterAll(() => server?.close());

  const body = (info: { name: string; version: string }) => ({ jsonrpc: '2.0', id: 1, method: 'interceptor/executeChain', params: { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: {} }, _meta: { ...ENVELOPE, [INFO]: info } } });

  it('B. clientInfo: a URL password whose `@` lies past the raw bound (1024) is not signed', async () => {
    // A PEM block shrinks to one 29-char placeholder: what follows it comes within the 127 recorded code points.
    const url = `https://admin:${PASSWORD}`;
    const head = '-----BEGIN PRIVATE KEY-----\n';
    let pem = head;
    while (pem.length + 65 + 1 + url.length <= 1024) pem += 'A'.repeat(64) + '\n';
    pem += 'A'.repeat(1024 - 1 - url.length - pem.length);
    const raw = `${pem} ${url}`;
    expect(raw.length).toBe(1024); // bounded() keeps exactly this: the `@` below is cut off
    const info = { name: `${raw}@files.example.test/`, version: '1' };
    const res = await fetch(`${server.url}/mcp`, { method: 'POST', headers: HEADERS, body: JSON.stringify(body(info)) });
    const json = (await res.json()) as any;
    expect(res.status).toBe(200);
    const e = entryOf(json.result._meta['io.vouch/receipt']);
    expect(JSON.stringify(e)).not.toContain(PASSWORD);
  });

  it('C. header refusal: a URL password in Mcp-Method whose `@` falls past the 200-character clip is not signed', async () => {
    const url = `https://admin:${PASSWORD}`;
    const method = 'x'.repeat(199 - url.length) + ' ' + url + '@files.example.test/';
    const res = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { ...HEADERS, 'mcp-method': method }, body: JSON.stringify(body({ name: 'c', version: '1' })) });
    const json = (await res.json()) as any;
    expect(res.status).toBe(400);
    expect(json.error.code).toBe(-32020);
    const receipt = json.error.data['io.vouch/receipt'];
    expect(receipt).toBeDefined();
    const e = entryOf(receipt);
    expect(JSON.stringify(e)).not.toContain(PASSWORD);
  });
});
