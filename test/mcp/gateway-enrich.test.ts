// The gateway in front of the real server-everything with the provenance enricher on tools/call
// responses (issue 39): the client's own view of a tool result carries the model-visible
// annotation and the structured record; the entry names the enrichment by digest, its text is in
// the payload store; the receipt names it; the log replays byte-identical (Kit.close replays it).
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENRICH_STATE_KEY, ENRICHMENT_META } from '../../src/interceptors/chain.js';
import { everythingCmd, makeWorkspace, payloadOf, startKit, verifyWithJwks, type Kit } from './_gateway.js';

// The claims enricher's evidence, inline in the config (digested with the chain): the example's.
const EVIDENCE = readFileSync(new URL('../../examples/claims-enricher/evidence.json', import.meta.url), 'utf8');

const ENRICHER = `
  # Tells the model what vouch knows of each tool result (docs/enrichers.md); never blocks.
  - name: provenance
    use: provenance-enricher
  # Checks the result's claims against the evidence in its config (docs/enrichers-claims.md).
  - name: claims
    use: claims-enricher
    config:
      evidence: ${JSON.stringify(JSON.parse(EVIDENCE))}
`;

let kit: Kit;
beforeAll(async () => {
  const ws = makeWorkspace('vouch-gw-enrich-');
  // The enricher goes at the end of the fixture's interceptors list (its last key before `uncovered`).
  const { writeFileSync } = await import('node:fs');
  const yaml = readFileSync(ws.config, 'utf8').replace('\n# Default deny:', `${ENRICHER}\n# Default deny:`);
  writeFileSync(ws.config, yaml);
  appendFileSync(`${ws.dir}/gateway-policy.cedar`, '\n@id("structured")\npermit(principal, action == Action::"tools/call", resource == Tool::"get-structured-content") when { context.server == "everything" };\n');
  kit = await startKit(everythingCmd, ws);
}, 120_000);
afterAll(async () => {
  await kit?.close();
});

type Block = { type: string; text?: string; annotations?: { audience?: string[] } };

describe('gateway: the provenance enricher in front of server-everything', () => {
  it('the claims enricher: a contradicted claim reaches the model with its correction and source, recorded by digest', async () => {
    const r = (await kit.client.callTool({ name: 'echo', arguments: { message: "ACME's revenue in 2025 was 4.5 billion. ACME's CEO is Jane Doe." } })) as { content: Block[]; _meta: Record<string, any> };
    expect(r.content[0].text).toBe("Echo: ACME's revenue in 2025 was 4.5 billion. ACME's CEO is Jane Doe.");
    const note = r.content.find((b) => b.text?.startsWith('vouch checked this result'));
    expect(note?.annotations).toEqual({ audience: ['assistant'] });
    expect(note?.text).toContain('2 claims, 1 supported, 1 contradicted, 0 unverified; score 0.5');
    expect(note?.text).toContain('Correction: "ACME\'s revenue in 2025 was USD 4.1 billion." (source: ACME annual report 2025, p. 12)');
    expect(r._meta[ENRICHMENT_META].claims).toMatchObject({ kind: 'claims', score: 0.5, counts: { claims: 2, supported: 1, contradicted: 1, unverified: 0 } });
    const report = verifyWithJwks(kit.rt, r._meta['io.vouch/response-receipt']);
    expect(report.ok).toBe(true);
    const result = (report.entry as Record<string, any>).decision.results.find((x: { interceptor: string }) => x.interceptor === 'claims');
    expect(result).toMatchObject({ info: { role: 'enricher', kind: 'claims', score: 0.5, enrichment: expect.stringMatching(/^sha256:/) } });
    expect(JSON.stringify(report.entry)).not.toContain('4.1 billion'); // the text is in the payload store, not the entry
  });


  it('the client sees the tool result plus an assistant-audience note and the structured record', async () => {
    const r = (await kit.client.callTool({ name: 'echo', arguments: { message: 'hello, enricher' } })) as { content: Block[]; _meta: Record<string, any> };
    expect(r.content[0]).toEqual({ type: 'text', text: 'Echo: hello, enricher' });
    expect(r.content).toHaveLength(2);
    expect(r.content[1]).toEqual({
      type: 'text',
      annotations: { audience: ['assistant'] },
      text: '[vouch provenance] server everything (observed); tool echo (observed); pinned definition matched (attested); redacted before you saw it: nothing (attested); output schema not declared (claimed); MCP 2025 session (observed).',
    });
    expect(r._meta[ENRICHMENT_META]).toEqual({
      provenance: {
        kind: 'provenance',
        facts: {
          server: { value: 'everything', trust: 'observed' },
          tool: { value: 'echo', trust: 'observed' },
          pin: { value: 'matched', trust: 'attested' },
          redactions: { value: {}, trust: 'attested' },
          outputSchema: { value: 'none', trust: 'claimed' },
          era: { value: '2025', trust: 'observed' },
        },
      },
    });
    // The response receipt names the enrichment: a verifier sees what the model was told, by digest.
    const report = verifyWithJwks(kit.rt, r._meta['io.vouch/response-receipt']);
    expect(report.ok).toBe(true);
    const entry = report.entry as Record<string, any>;
    const result = entry.decision.results.find((x: { interceptor: string }) => x.interceptor === 'provenance');
    expect(result).toMatchObject({ type: 'mutation', modified: true, info: { role: 'enricher', kind: 'provenance', enrichment: expect.stringMatching(/^sha256:/) } });
    // The band in order; the claims enricher ran and added nothing (no claim the evidence speaks to).
    expect(entry.state[ENRICH_STATE_KEY]).toEqual([{ name: 'claims' }, { name: 'provenance', enrichment: result.info.enrichment }]);
    expect(JSON.stringify(entry)).not.toContain('vouch provenance');
    // The text is in the payload store under that digest (erasable like any payload).
    expect(await payloadOf(kit.rt, result.info.enrichment)).toEqual({ content: [r.content[1]], record: r._meta[ENRICHMENT_META].provenance });
  });

  it('a result checked against the tool output schema says so, attested', async () => {
    const r = (await kit.client.callTool({ name: 'get-structured-content', arguments: { location: 'New York' } })) as { content: Block[]; _meta: Record<string, any> };
    expect(r._meta[ENRICHMENT_META].provenance.facts.outputSchema).toEqual({ value: 'conforms', trust: 'attested' });
    // The note is the enricher's, addressed to the model (textOf would leave it out: it is not the tool's).
    expect(r.content.filter((b) => b.annotations?.audience?.[0] === 'assistant').map((b) => b.text).join('\n')).toContain('output schema conforms (attested)');
  });

  it('a denied call is not enriched, and a request is never enriched', async () => {
    const e = await kit.client.callTool({ name: 'get-env', arguments: {} }).then(
      () => undefined,
      (x: unknown) => x as { data: { seq: number } },
    );
    expect(e).toBeDefined();
  });
});
