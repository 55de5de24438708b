// Issue 39, where the enrichment shows: `/mcp` interceptor/executeChain on `vouch serve` with the
// provenance and claims enrichers in the chain. The chain result carries the additions (the
// appended assistant-audience blocks in finalPayload, `_meta["io.vouch/enrichment"]`, the enricher
// results), and the entry names each addition by digest, its bytes in the payload store, never its text.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestJson, fromBase64, utf8 } from '../../src/canonical/index.js';
import { ENRICH_STATE_KEY, ENRICHMENT_META } from '../../src/interceptors/chain.js';
import { get, post, testServer, writeConfig } from './_server.js';

const EVIDENCE = JSON.parse(readFileSync(new URL('../../examples/claims-enricher/evidence.json', import.meta.url), 'utf8'));
const CONFIG = {
  version: 1,
  policies: { inline: { policies: 'permit(principal, action, resource);' } },
  interceptors: [
    { name: 'authz', use: 'cedar-policy' },
    { name: 'provenance', use: 'provenance-enricher' },
    { name: 'claims', use: 'claims-enricher', config: { evidence: EVIDENCE } },
  ],
  uncovered: [{ events: ['tools/call'], phase: 'response' }],
};
const TOOL_RESULT = { content: [{ type: 'text', text: "ACME's revenue in 2025 was 4.5 billion. ACME's CEO is Jane Doe." }] };

let s: Awaited<ReturnType<typeof testServer>>;
beforeAll(async () => {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  s = await testServer({ config: writeConfig(mkdtempSync(`${tmpdir()}/vouch-mcp-enrich-`), CONFIG), idleCheckpointMs: 0 });
});
afterAll(async () => {
  await s?.close();
});

type Block = { type: string; text: string; annotations?: { audience: string[] } };

describe('/mcp interceptor/executeChain with enrichers in the chain', () => {
  it('returns the additions in finalPayload and results; the entry names each by digest, its text in the payload store', async () => {
    const r = await post(`${s.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'interceptor/executeChain', params: { event: 'tools/call', phase: 'response', payload: TOOL_RESULT } });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    const result = r.json.result;
    expect(result.status).toBe('success');
    const final = result.finalPayload as { content: Block[]; _meta: Record<string, any> };
    // The tool's own block first and unchanged, then one note per enricher, each for the model alone.
    expect(final.content[0]).toEqual(TOOL_RESULT.content[0]);
    const notes = final.content.slice(1);
    expect(notes.map((b) => b.annotations)).toEqual([{ audience: ['assistant'] }, { audience: ['assistant'] }]);
    expect(notes.find((b) => b.text.startsWith('[vouch provenance]'))).toBeDefined();
    const claimsNote = notes.find((b) => b.text.startsWith('vouch checked this result'))!;
    expect(claimsNote.text).toContain('Correction: "ACME\'s revenue in 2025 was USD 4.1 billion." (source: ACME annual report 2025, p. 12)');
    const records = final._meta[ENRICHMENT_META];
    expect(records.claims).toMatchObject({ kind: 'claims', score: 0.5, counts: { claims: 2, supported: 1, contradicted: 1, unverified: 0 } });
    expect(records.provenance).toMatchObject({ kind: 'provenance', facts: { server: expect.any(Object), era: expect.any(Object) } });

    // The results: each enricher's, naming its addition by the digest of {content, record}.
    const byName = Object.fromEntries((result.results as { interceptor: string; info?: Record<string, any> }[]).map((x) => [x.interceptor, x]));
    const provenanceNote = notes.find((b) => b.text.startsWith('[vouch provenance]'))!;
    for (const name of ['provenance', 'claims']) {
      const note = name === 'claims' ? claimsNote : provenanceNote;
      expect(byName[name].info).toMatchObject({ role: 'enricher', kind: name, enrichment: digestJson({ content: [note], record: records[name] }) });
    }
    expect(byName.claims.info).toMatchObject({ score: 0.5, counts: { claims: 2, supported: 1, contradicted: 1, unverified: 0 } });

    // The signed entry: the same results by digest, the band in order, no text of any note.
    const seq = result._meta['io.vouch/seq'];
    const served = (await get(`${s.url}/v1/entries/${seq}`)).json;
    const entry = JSON.parse(utf8.decode(fromBase64(served.receipt.entry)));
    expect(entry).toEqual(served.entry);
    const entryResults = Object.fromEntries((entry.decision.results as { interceptor: string; info: Record<string, any> }[]).map((x) => [x.interceptor, x.info]));
    for (const name of ['provenance', 'claims']) expect(entryResults[name].enrichment).toBe(byName[name].info?.enrichment);
    expect(entry.state[ENRICH_STATE_KEY].map((x: { name: string }) => x.name).sort()).toEqual(['claims', 'provenance']);
    const text = JSON.stringify(entry);
    expect(text).not.toContain('vouch provenance');
    expect(text).not.toContain('4.1 billion');
    // The addition is in the payload store under that digest, erasable like any payload.
    const stored = (await get(`${s.url}/v1/payloads/${encodeURIComponent(entryResults.claims.enrichment)}`)).json;
    expect(stored.payload).toEqual({ content: [claimsNote], record: records.claims });
  });

  it('replays from the recorded additions; erased, the addition is named by its erasure entry and the decision is unreplayable', async () => {
    const r = await post(`${s.url}/mcp`, { jsonrpc: '2.0', id: 2, method: 'interceptor/executeChain', params: { event: 'tools/call', phase: 'response', payload: TOOL_RESULT } });
    const seq = r.json.result._meta['io.vouch/seq'];
    const digest = (r.json.result.results as { interceptor: string; info?: Record<string, any> }[]).find((x) => x.interceptor === 'claims')!.info!.enrichment;
    const replay = (await post(`${s.url}/v1/replay`, { from: seq, to: seq + 1, all: true })).json;
    expect(replay.results).toEqual([expect.objectContaining({ seq, status: 'match' })]);
    // Not erased yet: no erasure entry names it (the console then says "not stored", never "erased").
    const before = await get(`${s.url}/v1/payloads/${encodeURIComponent(digest)}/erasure?after=${seq}`);
    expect([before.status, before.json.error.code]).toEqual([404, 'ERR_NOT_FOUND']);
    const erased = await fetch(`${s.url}/v1/payloads/${encodeURIComponent(digest)}?reason=test`, { method: 'DELETE' }).then((x) => x.json() as Promise<{ seq: number }>);
    expect((await get(`${s.url}/v1/payloads/${encodeURIComponent(digest)}`)).status).toBe(404);
    const after = (await get(`${s.url}/v1/payloads/${encodeURIComponent(digest)}/erasure?after=${seq}`)).json;
    expect(after).toEqual({ digest, erasure: { seq: erased.seq, time: expect.any(String), reason: 'test', by: expect.any(String), retention: false } });
    // An erasure before the entry that names the digest is not this entry's: the first one after it counts.
    expect((await get(`${s.url}/v1/payloads/${encodeURIComponent(digest)}/erasure?after=${erased.seq}`)).status).toBe(404);
    expect((await get(`${s.url}/v1/payloads/not-a-digest/erasure`)).json.error.code).toBe('ERR_INPUT');
    const again = (await post(`${s.url}/v1/replay`, { from: seq, to: seq + 1, all: true })).json;
    expect(again.results).toEqual([expect.objectContaining({ seq, status: 'unreplayable', reason: 'payload erased' })]);
  });
});
