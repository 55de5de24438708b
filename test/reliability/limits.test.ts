// Every resource limit of docs/limits.md, hit through the public surface: the coded error (or the
// recorded deny) it produces, and the value just inside the limit still accepted.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalBytes } from '../../src/canonical/index.js';
import { DEFAULT_LIMITS } from '../../src/http/deps.js';
import { DEFAULT_CHAIN_TIMEOUT_MS, DEFAULT_INTERCEPTOR_TIMEOUT_MS, executeChain } from '../../src/interceptors/chain.js';
import { Appender, parseNote } from '../../src/log/index.js';
import { MAX_NOTE_LENGTH, MAX_NOTE_SIGNATURES } from '../../src/log/note.js';
import { parseReceipt } from '../../src/receipt/index.js';
import { openSqliteStore } from '../../src/store/node.js';
import { get, post, testServer } from '../http/_server.js';
import { testKeys } from '../helpers/keys.js';
import { CTX, validator } from '../interceptors/chain-kit.js';

let s: Awaited<ReturnType<typeof testServer>>;
beforeAll(async () => {
  s = await testServer();
});
afterAll(async () => {
  await s?.close();
});
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const rpc = (method: string, params: unknown) => post(`${s.url}/mcp`, { jsonrpc: '2.0', id: 1, method, params });
const size = async () => (await get(`${s.url}/v1/checkpoint`)).json.size as number;

describe('limits', () => {
  it('request body: 1 MiB (413 ERR_TOO_LARGE, nothing written)', async () => {
    expect(DEFAULT_LIMITS.bodyBytes).toBe(1024 * 1024);
    const before = await size();
    const envelope = (pad: number) => JSON.stringify({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'x'.repeat(pad) } } });
    const over = await post(`${s.url}/v1/authorize`, envelope(1024 * 1024));
    expect(over.status).toBe(413);
    expect(over.json.error.code).toBe('ERR_TOO_LARGE');
    expect(await size()).toBe(before);
    const under = await post(`${s.url}/v1/authorize`, envelope(1024 * 1024 - 200));
    expect(under.status).toBe(200);
  });

  it('request body sent chunked (no Content-Length): cut at 1 MiB while streaming (413, nothing written)', async () => {
    const before = await size();
    const { request } = await import('node:http');
    const r = await new Promise<{ status: number; sent: number }>((resolve, reject) => {
      let sent = 0;
      let answered = false;
      const req = request(`${s.url}/v1/authorize`, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        answered = true;
        res.resume();
        res.on('end', () => (req.destroy(), resolve({ status: res.statusCode ?? 0, sent })));
      });
      req.on('error', (e) => answered || reject(e));
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!answered && sent < 64 * 1024 * 1024) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        if (!answered) req.end();
      };
      pump();
    });
    expect(r.status).toBe(413);
    expect(r.sent).toBeLessThan(32 * 1024 * 1024); // answered long before the 64 MiB offered were sent
    expect(await size()).toBe(before);
  });

  it('envelope nesting: 100 levels (400 ERR_TOO_DEEP on REST, -32602 on /mcp)', async () => {
    const body = (d: number) => `{"event":"tools/call","phase":"request","payload":${nested(d)}}`;
    const rest = await post(`${s.url}/v1/authorize`, body(100));
    expect(rest.status).toBe(400);
    expect(rest.json.error.code).toBe('ERR_TOO_DEEP');
    const mcp = await post(`${s.url}/mcp`, `{"jsonrpc":"2.0","id":1,"method":"interceptor/executeChain","params":${body(100)}}`);
    expect(mcp.json.error.code).toBe(-32602);
  });

  it('canonical payload nesting: 64 levels (the decision is a recorded deny)', async () => {
    expect(() => canonicalBytes(JSON.parse(nested(64)))).not.toThrow();
    expect(() => canonicalBytes(JSON.parse(nested(66)))).toThrow(expect.objectContaining({ code: 'ERR_TOO_DEEP' }));
    const before = await size();
    const r = await post(`${s.url}/v1/authorize`, `{"event":"tools/call","phase":"request","payload":${nested(70)}}`);
    expect(r.status).toBe(200);
    expect(r.json.effect).toBe('deny');
    expect(r.json.chain.status).toBe('error');
    expect(await size()).toBe(before + 1);
  });

  it('interceptor-name list: 256 names; event 200 characters; context values 256 (-32602)', async () => {
    const params = { event: 'tools/call', phase: 'request', payload: {} };
    const many = await rpc('interceptor/executeChain', { ...params, interceptors: Array.from({ length: 257 }, (_, i) => `n${i}`) });
    expect(many.json.error.code).toBe(-32602);
    expect(JSON.stringify(many.json.error)).toContain('256');
    expect((await rpc('interceptor/executeChain', { ...params, event: `x/${'y'.repeat(199)}` })).json.error.code).toBe(-32602);
    const long = await rpc('interceptor/executeChain', { ...params, context: { sessionId: 's'.repeat(257) } });
    expect(long.json.error.code).toBe(-32602);
    const ok = await rpc('interceptor/executeChain', { ...params, context: { sessionId: 's'.repeat(256) } });
    expect(ok.json.result).toBeDefined();
  });

  it('chain timeout 10 s and interceptor timeout 5 s by default; a stuck interceptor ends in timeout (deny)', async () => {
    expect(DEFAULT_CHAIN_TIMEOUT_MS).toBe(10_000);
    expect(DEFAULT_INTERCEPTOR_TIMEOUT_MS).toBe(5_000);
    const stuck = validator('stuck', () => new Promise<never>(() => {}));
    const req = { event: 'tools/call', phase: 'request' as const, payload: {} };
    const one = await executeChain([stuck], req, CTX, { interceptorTimeoutMs: 40 });
    expect(one.result.status).toBe('timeout');
    const whole = await executeChain([stuck], req, CTX, { chainTimeoutMs: 40, interceptorTimeoutMs: 60_000 });
    expect(whole.result.status).toBe('timeout');
  });

  it('receipt proof: at most 63 hashes (ERR_INPUT)', () => {
    const r = { v: 1, entry: 'AA==', leafHash: '0'.repeat(64), index: 0, proof: Array.from({ length: 64 }, () => '0'.repeat(64)), checkpoint: 'x\n1\nAA==\n\n— k AAAA\n' };
    expect(() => parseReceipt(r)).toThrow(expect.objectContaining({ code: 'ERR_INPUT', message: expect.stringMatching(/proof|63/) }));
  });

  it('signed note: 1 MiB and 64 signature lines (coded errors)', () => {
    expect(MAX_NOTE_LENGTH).toBe(1 << 20);
    expect(MAX_NOTE_SIGNATURES).toBe(64);
    const sig = (i: number) => `\u2014 k${i} AAAAAAAAAAAAAAAAAAAAAA==\n`;
    expect(() => parseNote(`o\n1\n${'a'.repeat(1 << 20)}\n\n${sig(0)}`)).toThrow(expect.objectContaining({ code: expect.stringMatching(/^ERR_/) }));
    const lines = (n: number) => `o\n1\nAA==\n\n${Array.from({ length: n }, (_, i) => sig(i)).join('')}`;
    expect(() => parseNote(lines(64))).not.toThrow();
    expect(() => parseNote(lines(65))).toThrow(expect.objectContaining({ code: expect.stringMatching(/^ERR_/) }));
  });

  it('group commit: at most 4096 entries per batch', async () => {
    const store = openSqliteStore(join(mkdtempSync(join(tmpdir(), 'vouch-limits-')), 'log.db'));
    const batches: number[] = [];
    const appender = Appender.open({ origin: 'limits.vouch/t', storage: store, signers: testKeys('limits.vouch').signers.slice(0, 1), onBatch: (b) => batches.push(b.entries) });
    try {
      const entry = (i: number) => ({ type: 'decision' as const, time: '2026-11-30T12:00:00Z', tenant: 't', principal: `p${i}`, event: 'tools/call', decision: { effect: 'allow' as const, status: 'success' } });
      await Promise.all(Array.from({ length: 5000 }, (_, i) => appender.append(entry(i) as never)));
      expect(batches.reduce((a, b) => a + b, 0)).toBe(5000);
      expect(Math.max(...batches)).toBe(4096);
    } finally {
      await appender.close();
      store.close();
    }
  }, 60_000);
});
