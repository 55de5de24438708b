// Issue 39 under MCP 2026-07-28: the SDK v2 client pinned to 2026-07-28 calls a tool of the real
// server-everything through the gateway with the provenance enricher on tools/call responses. The
// client's own view has the note (for the model) and the record; the record says the session is
// 2026 era (the client's, where the model reads it) and names the upstream's 2025 beside it; the receipt names the enrichment by digest, its bytes in the payload store; the log
// replays byte-identical at close.
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { digestJson } from '../../src/canonical/index.js';
import { ENRICH_STATE_KEY, ENRICHMENT_META } from '../../src/interceptors/chain.js';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import { closeReplayed, everythingCmd, makeWorkspace, payloadOf, verifyWithJwks } from './_gateway.js';

const ENRICHER = `
  - name: provenance
    use: provenance-enricher
`;

let rt: GatewayRuntime;
let client: Client;
beforeAll(async () => {
  const ws = makeWorkspace('vouch-gw26-enrich-');
  writeFileSync(ws.config, readFileSync(ws.config, 'utf8').replace('\n# Default deny:', `${ENRICHER}\n# Default deny:`));
  rt = await openGateway({ data: ws.data, config: ws.config, upstream: { command: everythingCmd(), stderr: 'ignore' }, serverName: 'everything', thread: false, timeoutMs: 20_000 });
  const [down, up] = InMemoryTransport.createLinkedPair();
  await rt.start(up as never);
  client = new Client({ name: 'acme-agent', version: '2.0.0' }, { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(down);
}, 120_000);
afterAll(async () => {
  await client?.close().catch(() => undefined);
  await closeReplayed(rt);
});

type Block = { type: string; text?: string; annotations?: { audience?: string[] } };

describe('gateway, MCP 2026-07-28 client: the provenance enricher in front of server-everything', () => {
  it("the client's view has the note and the record, era 2026; the receipt names the enrichment", async () => {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const r = (await client.callTool({ name: 'echo', arguments: { message: 'hello, 2026' } })) as { content: Block[]; _meta: Record<string, any> };
    expect(r.content[0]).toEqual({ type: 'text', text: 'Echo: hello, 2026' });
    expect(r.content).toHaveLength(2);
    const note = r.content[1];
    expect(note.annotations).toEqual({ audience: ['assistant'] });
    expect(note.text).toMatch(/^\[vouch provenance\] server everything \(observed\); tool echo \(observed\); .* MCP 2026 session \(observed\), upstream MCP 2025 \(observed\)\.$/);
    const record = r._meta[ENRICHMENT_META].provenance;
    expect(record).toMatchObject({ kind: 'provenance', facts: { server: { value: 'everything', trust: 'observed' }, tool: { value: 'echo', trust: 'observed' }, era: { value: '2026', trust: 'observed' }, upstreamEra: { value: '2025', trust: 'observed' } } });
    // The response receipt: verified offline, its entry names the addition by digest and holds no text of it.
    const report = verifyWithJwks(rt, r._meta['io.vouch/response-receipt']);
    expect(report.ok).toBe(true);
    const entry = report.entry as Record<string, any>;
    expect(entry.clientProtocolVersion).toBe('2026-07-28');
    const result = entry.decision.results.find((x: { interceptor: string }) => x.interceptor === 'provenance');
    const digest = digestJson({ content: [note], record } as never);
    expect(result).toMatchObject({ type: 'mutation', modified: true, info: { role: 'enricher', kind: 'provenance', enrichment: digest } });
    expect(entry.state[ENRICH_STATE_KEY]).toEqual([{ name: 'provenance', enrichment: digest }]);
    expect(JSON.stringify(entry)).not.toContain('vouch provenance');
    expect(await payloadOf(rt, digest)).toEqual({ content: [note], record });
  });
});
