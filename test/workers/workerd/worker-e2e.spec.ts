// Decisions end to end through the Worker inside workerd: POST /mcp (executeChain) and
// /v1/authorize answered by the same createApp as Node, appended by the tenant's Durable Object,
// receipts verified offline with the Worker's published keys, and the log exported as an audit
// bundle that verifies and replays.
import { abortAllDurableObjects, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { exportBundle, verifyBundle } from '../../../src/audit/index.js';
import { fromBase64, utf8 } from '../../../src/canonical/index.js';
import { resolveConfigDocument } from '../../../src/policy/index.js';
import { parseTrust, verifiersFor, verifyReceipt } from '../../../src/receipt/index.js';
import { WORKER_CONFIG_DOCUMENT as configDocument } from './_config.js';
import type { LogObjectRpc } from '../../../src/worker/log-object-rpc.js';
import { remoteLogPort } from '../../../src/worker/remote-log.js';
import { call, memoryBundle, rpc } from './_worker-kit.js';

const ORIGIN = 'test.vouch/default';
const stubOf = (tenant: string) => env.VOUCH_LOG.get(env.VOUCH_LOG.idFromName(tenant)) as unknown as LogObjectRpc;

async function trust() {
  const jwks = (await call('GET', '/.well-known/vouch/keys')).json;
  return parseTrust(JSON.stringify(jwks));
}

async function expectVerifies(receipt: any) {
  const t = await trust();
  const report = verifyReceipt(receipt, { verifiers: verifiersFor(t, receipt.checkpoint) });
  expect(report.checks.filter((c) => !c.ok)).toEqual([]);
  expect(report.ok).toBe(true);
  return JSON.parse(utf8.decode(fromBase64(receipt.entry)));
}

const callEcho = (text: string) => ({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text } } });

describe('the Worker, end to end in workerd', () => {
  it('publishes the keys from the secrets: ML-DSA-65 (AKP) and the Ed25519 co-signer', async () => {
    const jwks = (await call('GET', '/.well-known/vouch/keys')).json;
    expect(jwks.keys.map((k: { kty: string; alg?: string; crv?: string }) => `${k.kty}/${k.alg ?? k.crv}`)).toEqual(['AKP/ML-DSA-65', 'OKP/Ed25519']);
    const vkeys = (await call('GET', '/.well-known/vouch/vkeys')).json as string;
    expect(vkeys.trim().split('\n')).toHaveLength(2);
    expect(vkeys).toMatch(/^test\.vouch\+[0-9a-f]{8}\+/);
  });

  it('executeChain over MCP: the pii redactor runs, the receipt verifies offline with the JWKS', async () => {
    const r = await rpc('interceptor/executeChain', callEcho('call me at 415 555 0199'));
    expect(r.status).toBe(200);
    expect(r.json.result.status).toBe('success');
    expect(r.json.result.finalPayload.arguments.text).toBe('call me at [PHONE_REDACTED]');
    const entry = await expectVerifies(r.json.result._meta['io.vouch/receipt']);
    expect(entry).toMatchObject({ type: 'decision', log: ORIGIN, event: 'tools/call', decision: { effect: 'allow' } });
    expect(entry.input.digest).not.toBe(entry.intent.digest);
  });

  it('the first entry records the embedded policy: the same chain digest and Cedar version as resolved on Node', async () => {
    const first = (await call('GET', '/v1/entries/0')).json;
    const resolved = resolveConfigDocument(configDocument);
    expect(first.entry).toMatchObject({ type: 'policy', seq: 0, chain: resolved.chainDigest, policySet: resolved.policyDigest, action: 'activate' });
    expect(first.entry.engines.cedar).toMatch(/^\d+\.\d+\.\d+/);
    await expectVerifies(first.receipt);
  });

  it('Cedar denies at the edge (a forbid wins), and the deny is signed and logged', async () => {
    const r = await call('POST', '/v1/authorize', { event: 'tools/call', phase: 'request', payload: { name: 'dangerous_tool', arguments: {} } });
    expect(r.status).toBe(200);
    expect(r.json.effect).toBe('deny');
    const entry = await expectVerifies(r.json.receipt);
    expect(entry).toMatchObject({ type: 'decision', decision: { effect: 'deny' } });
  });

  it('concurrent decisions: every receipt verifies, seqs are distinct and contiguous, group commit shares signatures', async () => {
    const before = (await call('GET', '/v1/checkpoint')).json.size as number;
    const n = 16;
    const rs = await Promise.all(Array.from({ length: n }, (_, i) => rpc('interceptor/executeChain', callEcho(`hello ${i}`), i)));
    const seqs: number[] = [];
    const notes = new Set<string>();
    for (const r of rs) {
      const receipt = r.json.result._meta['io.vouch/receipt'];
      seqs.push((await expectVerifies(receipt)).seq);
      notes.add(receipt.checkpoint);
    }
    expect(seqs.sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => before + i));
    // Appends that arrive while a batch is signed wait for the next: fewer signatures than decisions.
    expect(notes.size).toBeLessThan(n);
  });

  it('survives a restart of the object: the tree is recomputed from storage and the log goes on', async () => {
    const before = (await call('GET', '/v1/checkpoint')).json;
    await abortAllDurableObjects();
    const r = await rpc('interceptor/executeChain', callEcho('after restart'));
    const entry = await expectVerifies(r.json.result._meta['io.vouch/receipt']);
    expect(entry.seq).toBe(before.size);
    const cons = await call('GET', `/v1/proofs/consistency?from=${before.size}`);
    expect(cons.status).toBe(200);
  });

  it('read errors keep their codes across the object boundary', async () => {
    expect(await call('GET', '/v1/entries/999999')).toMatchObject({ status: 404, json: { error: { code: 'ERR_NOT_FOUND' } } });
    const port = remoteLogPort(stubOf('default'), 'default', ORIGIN);
    // A body that sets a header field fails alone, in the object, with its input error code.
    await expect(port.append({ type: 'decision', time: '2026-01-01T00:00:00Z', seq: 5 })).rejects.toMatchObject({ name: 'InputError', code: 'ERR_INPUT' });
    await expect(port.inclusionProof(5, 2)).rejects.toMatchObject({ code: expect.stringMatching(/^ERR_(INPUT|VERIFY_PROOF|NOT_FOUND)$/) });
    // One object is one tenant's log: another tenant's name on it is refused.
    const wrong = remoteLogPort(stubOf('default'), 'other', 'test.vouch/other');
    await expect(wrong.size()).rejects.toMatchObject({ code: 'ERR_STORE_INCONSISTENT' });
  });

  it('the log exported from the object verifies as an audit bundle, and every decision replays to match', async () => {
    const keys = { jwks: (await call('GET', '/.well-known/vouch/keys')).json, vkeys: ((await call('GET', '/.well-known/vouch/vkeys')).json as string).trim().split('\n').filter((l) => !l.startsWith('#')) }; // `# key` lines: windows, not keys
    const port = remoteLogPort(stubOf('default'), 'default', ORIGIN);
    const { sink, reader, files } = memoryBundle();
    const manifest = await exportBundle(port, sink, { keys, tool: { name: 'vouch', version: 'test' }, payloads: true });
    expect(manifest.range.to).toBe((await call('GET', '/v1/checkpoint')).json.size);
    expect(manifest.range.to).toBeGreaterThanOrEqual(20);
    expect([...files.keys()]).toEqual(expect.arrayContaining(['manifest.json', 'checkpoint', 'entries.jsonl', 'payloads.jsonl', 'keys.json']));
    const report = await verifyBundle(reader, { trusted: await trust() });
    expect(report.findings).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.replay?.mismatch).toBe(0);
    expect(report.replay?.match).toBe(report.replay?.decisions);
    expect(report.replay?.decisions).toBeGreaterThan(15);
  });
});
