// The HTTP service end to end on a real server: decisions with receipts that verify offline,
// the read API, metrics, and bad input answered with coded errors that write nothing.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64, utf8 } from '../../src/canonical/index.js';
import { parseTrust, verifiersFor, verifyReceipt } from '../../src/receipt/index.js';
import { get, post, testServer } from './_server.js';

let s: Awaited<ReturnType<typeof testServer>>;
const rpc = (method: string, params: unknown, id = 1) => post(`${s.url}/mcp`, { jsonrpc: '2.0', id, method, params });

beforeAll(async () => {
  s = await testServer();
});
afterAll(async () => {
  await s?.close();
});

async function logSize(): Promise<number> {
  return (await get(`${s.url}/v1/checkpoint`)).json.size;
}

describe('service', () => {
  it('serves health, keys (AKP ML-DSA-65 JWKS) and vkeys', async () => {
    // It names the ML-DSA-65 backend: native (node:crypto) where the runtime has it, else PQClean
    // (WebAssembly), else noble; this Node 20 has no native ML-DSA, so PQClean (a pinned dependency).
    expect((await get(`${s.url}/healthz`)).json).toEqual({ ok: true, mldsa: expect.stringMatching(/^(native \(node:crypto, OpenSSL 3\.[5-9]|pqclean \(PQClean ml-dsa-65 clean, WebAssembly, pqclean \d)/) });
    const jwks = (await get(`${s.url}/.well-known/vouch/keys`)).json;
    expect(jwks.keys.find((k: { kty: string }) => k.kty === 'AKP')).toMatchObject({ alg: 'ML-DSA-65', kid: s.keyId });
  });

  it('authorizes with the seed example: phone redacted, receipt verifies against the JWKS', async () => {
    const r = await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'call me at 415 555 0199' } } });
    expect(r.status).toBe(200);
    expect(r.json.effect).toBe('allow');
    expect(r.json.finalPayload.arguments.text).toBe('call me at [PHONE_REDACTED]');
    const pii = r.json.chain.results.find((x: { interceptor: string }) => x.interceptor === 'pii');
    expect(pii.info.redactions).toBe(1);
    const trust = parseTrust(JSON.stringify((await get(`${s.url}/.well-known/vouch/keys`)).json));
    const report = verifyReceipt(r.json.receipt, { verifiers: verifiersFor(trust, r.json.receipt.checkpoint) });
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.ok).toBe(true);
    const entry = JSON.parse(utf8.decode(fromBase64(r.json.receipt.entry)));
    expect(entry).toMatchObject({ type: 'decision', event: 'tools/call', decision: { effect: 'allow' } });
    expect(entry.input.digest).not.toBe(entry.intent.digest); // mutated: intent differs from input
  });

  it('denies the seed elicitation example with the field path', async () => {
    const payload = { message: 'Please provide your bank details', requestedSchema: { type: 'object', properties: { routingNumber: { type: 'string', title: 'Bank routing number' } } } };
    const r = await rpc('interceptor/executeChain', { event: 'elicitation/create', phase: 'request', payload });
    expect(r.json.result.status).toBe('validation_failed');
    const msgs = r.json.result.results.flatMap((x: { messages?: { path?: string; severity: string }[] }) => x.messages ?? []);
    expect(msgs).toContainEqual(expect.objectContaining({ path: 'requestedSchema.properties.routingNumber', severity: 'error' }));
    expect(r.json.result._meta['io.vouch/receipt'].v).toBe(1);
  });

  it('reads entries, checkpoint and proofs', async () => {
    const size = await logSize();
    expect(size).toBeGreaterThan(1);
    const e = await get(`${s.url}/v1/entries/1`);
    expect(e.json.entry.seq).toBe(1);
    const inc = await get(`${s.url}/v1/proofs/inclusion?seq=1&size=${size}`);
    expect(inc.status).toBe(200);
    expect(Array.isArray(inc.json.proof)).toBe(true);
    const cons = await get(`${s.url}/v1/proofs/consistency?from=1&to=${size}`);
    expect(cons.status).toBe(200);
    expect((await get(`${s.url}/v1/entries/99999`)).json.error.code).toBe('ERR_NOT_FOUND');
    expect((await get(`${s.url}/v1/entries/abc`)).status).toBe(400);
    expect((await get(`${s.url}/v1/proofs/consistency?from=5&to=2`)).status).toBe(400);
  });

  it('exposes Prometheus metrics', async () => {
    const text = (await get(`${s.url}/metrics`)).json as string;
    expect(text).toMatch(/vouch_decisions_total\{effect="allow"\} [1-9]/);
    expect(text).toContain('vouch_batch_entries_bucket');
    expect(text).toContain('vouch_decision_duration_seconds_count');
  });
});

describe('bad input: a coded error, no crash, nothing written', () => {
  const cases: [string, () => Promise<{ status: number; json: any }>, number, number | string][] = [
    ['malformed JSON', () => post(`${s.url}/mcp`, '{"jsonrpc":"2.0",'), 400, -32700],
    ['wrong jsonrpc version', () => post(`${s.url}/mcp`, { jsonrpc: '1.0', id: 1, method: 'interceptors/list' }), 400, -32700],
    ['unknown method', () => rpc('nope/nope', {}), 200, -32601],
    ['missing params', () => rpc('interceptor/executeChain', {}), 200, -32602],
    ['wrong-typed params', () => rpc('interceptor/executeChain', { event: 42, phase: 'sideways', payload: 1 }), 200, -32602],
    ['unknown interceptor', () => rpc('interceptor/invoke', { name: 'nope', event: 'tools/call', phase: 'request', payload: {} }), 200, -32602],
    ['body over the size limit', () => post(`${s.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'interceptors/list', params: { pad: 'x'.repeat(1_100_000) } }), 413, -32600],
    ['nesting past the envelope limit', () => post(`${s.url}/mcp`, '{"jsonrpc":"2.0","id":1,"method":"interceptor/executeChain","params":{"event":"tools/call","phase":"request","payload":' + '['.repeat(5000) + ']'.repeat(5000) + '}}'), 400, -32602],
    ['REST: malformed JSON', () => post(`${s.url}/v1/authorize`, '{'), 400, 'ERR_JSON_PARSE'],
    ['REST: missing fields', () => post(`${s.url}/v1/authorize`, { phase: 'request' }), 400, 'ERR_INPUT'],
  ];
  for (const [name, send, status, code] of cases) {
    it(name, async () => {
      const before = await logSize();
      const r = await send();
      expect(r.status).toBe(status);
      if (typeof code === 'number') expect(r.json.error.code).toBe(code);
      else expect(r.json.error.code).toBe(code);
      expect(await logSize()).toBe(before);
      expect((await get(`${s.url}/healthz`)).status).toBe(200);
    });
  }

  const denied: [string, string][] = [
    ['a payload nested past the canonical limit', '{"event":"tools/call","phase":"request","payload":' + '['.repeat(80) + ']'.repeat(80) + '}'],
    ['a lone surrogate', '{"event":"tools/call","phase":"request","payload":{"name":"echo","arguments":{"t":"\\ud800"}}}'],
    ['a number JCS cannot represent', '{"event":"tools/call","phase":"request","payload":{"name":"echo","arguments":{"n":1e400}}}'],
  ];
  for (const [name, body] of denied) {
    it(`${name}: a deny entry, recorded`, async () => {
      const before = await logSize();
      const r = await post(`${s.url}/v1/authorize`, body);
      expect(r.status).toBe(200);
      expect(r.json.effect).toBe('deny');
      expect(r.json.chain.status).toBe('error');
      expect(await logSize()).toBe(before + 1);
    });
  }

  it('dev mode refuses non-loopback Host headers', async () => {
    // fetch will not send a foreign Host header; node:http will (as a DNS-rebinding page's browser would).
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${s.url}/v1/checkpoint`, { headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });
});
