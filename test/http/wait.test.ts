// wait "durable" over HTTP (issue 17), on the real service with its log thread: REST and /mcp
// answer with the committed entry (entry, seq, leaf hash) and no receipt; GET /v1/entries/:seq
// then serves the complete receipt, and /metrics reports the coverage delay. A bad `wait` is a 400.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64, toHex } from '../../src/canonical/index.js';
import { hashLeaf } from '../../src/log/index.js';
import { parseTrust, verifiersFor, verifyReceipt } from '../../src/receipt/index.js';
import { get, post, testServer } from './_server.js';

let s: Awaited<ReturnType<typeof testServer>>;
beforeAll(async () => {
  s = await testServer();
});
afterAll(async () => {
  await s?.close();
});

const call = { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'hi' } } };

async function receiptOf(seq: number) {
  for (let i = 0; i < 100; i++) {
    const r = await get(`${s.url}/v1/entries/${seq}`);
    if (r.json.receipt) return r.json;
    expect(r.json.pending).toBe(true);
    await new Promise((ok) => setTimeout(ok, 20));
  }
  throw new Error(`entry ${seq} never got a receipt`);
}

describe('wait "durable"', () => {
  it('REST: the answer carries the committed entry and no receipt; the receipt is served once signed', async () => {
    const r = await post(`${s.url}/v1/authorize`, { ...call, wait: 'durable' });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json).toMatchObject({ effect: 'allow', wait: 'durable', durable: { index: r.json.seq, receipt: `/v1/entries/${r.json.seq}` } });
    expect(r.json.receipt).toBeUndefined();
    const bytes = fromBase64(r.json.durable.entry);
    expect(toHex(hashLeaf(bytes))).toBe(r.json.durable.leafHash);
    const later = await receiptOf(r.json.seq);
    expect(later.receipt.entry).toBe(r.json.durable.entry);
    const trust = parseTrust(await (await fetch(`${s.url}/.well-known/vouch/keys`)).text());
    expect(verifyReceipt(later.receipt, { verifiers: verifiersFor(trust, later.receipt.checkpoint) }).ok).toBe(true);
  });

  it('/mcp executeChain with _meta io.vouch/wait: io.vouch/durable in place of io.vouch/receipt', async () => {
    const r = await post(`${s.url}/mcp`, { jsonrpc: '2.0', id: 7, method: 'interceptor/executeChain', params: { ...call, _meta: { 'io.vouch/wait': 'durable' } } });
    expect(r.status).toBe(200);
    const meta = r.json.result._meta;
    expect(meta['io.vouch/receipt']).toBeUndefined();
    expect(meta['io.vouch/durable']).toMatchObject({ index: meta['io.vouch/seq'] });
    expect((await receiptOf(meta['io.vouch/seq'])).receipt.entry).toBe(meta['io.vouch/durable'].entry);
  });

  it('the default stays the signed receipt; a bad wait value is refused before anything is decided', async () => {
    const signed = await post(`${s.url}/v1/authorize`, call);
    expect(signed.json.receipt.checkpoint).toBeTypeOf('string');
    const bad = await post(`${s.url}/v1/authorize`, { ...call, wait: 'soon' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('ERR_INPUT');
  });

  it('/metrics reports the checkpoint coverage delay per entry', async () => {
    const text = await (await fetch(`${s.url}/metrics`)).text();
    const count = Number(/vouch_checkpoint_coverage_delay_seconds_count (\d+)/.exec(text)?.[1]);
    expect(count).toBeGreaterThanOrEqual(3);
  });
});
