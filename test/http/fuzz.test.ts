// Hostile input against the real HTTP entry points (fast-check): random and mutated JSON-RPC and
// REST bodies never crash the process, always get a coded answer, and never produce an allow
// where the chain denies.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, testServer, writeConfig } from './_server.js';

let s: Awaited<ReturnType<typeof testServer>>;

beforeAll(async () => {
  const dir = (await import('node:fs')).mkdtempSync((await import('node:path')).join((await import('node:os')).tmpdir(), 'vouch-fuzz-'));
  // A chain that denies everything: any allow would be a fail-open bug.
  const config = writeConfig(dir, { version: 1, interceptors: [{ name: 'no', use: 'conformance/deny-all', hooks: [{ events: ['*'], phase: 'request' }, { events: ['*'], phase: 'response' }] }] });
  s = await testServer({ config });
});
afterAll(async () => {
  await s?.close();
});

const json = fc.jsonValue({ maxDepth: 6 });
const method = fc.constantFrom('interceptor/executeChain', 'interceptor/invoke', 'interceptors/list', 'initialize', 'tools/call', 'x/y', '');
const event = fc.oneof(fc.constantFrom('tools/call', 'prompts/get', 'sampling/createMessage', 'elicitation/create', '*', 'custom/op'), fc.string());
const phase = fc.oneof(fc.constantFrom('request', 'response'), fc.string(), fc.integer());

function isCoded(r: { status: number; json: any }): boolean {
  if (typeof r.json !== 'object' || r.json === null) return false;
  if ('result' in r.json) return true;
  const e = r.json.error;
  return typeof e === 'object' && e !== null && (typeof e.code === 'number' || /^ERR_[A-Z_]+$/.test(e.code));
}

describe('fuzzing the entry points', () => {
  it('JSON-RPC: random envelopes get a result or a coded error, and never an allow', async () => {
    await fc.assert(
      fc.asyncProperty(fc.record({ jsonrpc: fc.oneof(fc.constant('2.0'), json), id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)), method, params: fc.oneof(json, fc.record({ event, phase, payload: json }, { requiredKeys: [] })) }, { requiredKeys: [] }), async (body) => {
        const r = await post(`${s.url}/mcp`, body);
        expect(r.status).toBeLessThan(500);
        // A message without an id is a notification: JSON-RPC answers nothing (202, empty body).
        if (r.status === 202) expect(r.json).toBe('');
        else expect(isCoded(r)).toBe(true);
        if (r.json.result && 'status' in r.json.result) expect(r.json.result.status).not.toBe('success');
      }),
      { numRuns: 150 },
    );
  });

  it('executeChain: any payload under a deny-all chain is denied', async () => {
    await fc.assert(
      fc.asyncProperty(event.filter((e) => /^(\*|[a-z][A-Za-z0-9_-]*(\/[A-Za-z0-9_.-]+)+)$/.test(e)), fc.constantFrom('request', 'response'), json, async (ev, ph, payload) => {
        const r = await post(`${s.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'interceptor/executeChain', params: { event: ev, phase: ph, payload } });
        expect(r.status).toBe(200);
        expect(r.json.result.status).not.toBe('success');
        expect(r.json.result._meta['io.vouch/receipt'].v).toBe(1);
      }),
      { numRuns: 100 },
    );
  });

  it('REST: mutated bodies (byte flips, truncation, junk) get coded errors, never 5xx, never allow', async () => {
    const valid = JSON.stringify({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'hi' } } });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: valid.length - 1 }), fc.integer({ min: 0, max: 255 }), fc.boolean(), async (pos, byte, truncate) => {
        const bytes = Buffer.from(valid);
        if (truncate) bytes[pos] = 0;
        else bytes[pos] = byte;
        const body = truncate ? bytes.subarray(0, pos).toString('latin1') : bytes.toString('latin1');
        const r = await post(`${s.url}/v1/authorize`, body);
        expect(r.status).toBeLessThan(500);
        expect(isCoded(r) || r.json.effect === 'deny').toBe(true);
        if (r.status === 200) expect(r.json.effect).toBe('deny');
      }),
      { numRuns: 150 },
    );
    expect((await get(`${s.url}/healthz`)).status).toBe(200);
  });
});
