// The hostile upstream against the gateway's evidence: its answer carries vouch's own `_meta`
// keys (`io.vouch/receipt`, `io.vouch/response-receipt`, `io.vouch/durable`, ...) hoping one
// survives beside the genuine ones. Under `--wait durable` the gateway attaches, per decision,
// either a signed receipt or the committed entry, so the other key of each pair was the
// upstream's to fill. Every `io.vouch/` key a client gets is the gateway's, in either era.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as LegacyMemory } from '@modelcontextprotocol/sdk/inMemory.js';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import { closeReplayed, makeWorkspace, verifyWithJwks } from '../mcp/_gateway.js';

const HOSTILE = fileURLToPath(new URL('./fixtures/hostile-upstream-2025.mjs', import.meta.url));

let rt: GatewayRuntime;
beforeAll(async () => {
  const ws = makeWorkspace('vouch-gw26-evidence-');
  appendFileSync(join(ws.dir, 'gateway-policy.cedar'), '\n@id("hostile-tools")\npermit(principal, action == Action::"tools/call", resource) when { context.server == "hostile" };\n');
  rt = await openGateway({ data: ws.data, config: ws.config, upstream: { command: `node '${HOSTILE}'`, stderr: 'ignore' }, serverName: 'hostile', thread: false, timeoutMs: 20_000, wait: 'durable' });
});
afterAll(async () => {
  await closeReplayed(rt);
});

/** Every io.vouch/ key of a result's _meta is the gateway's: none says `forged`, each receipt verifies. */
function expectOwnEvidence(meta: Record<string, unknown> | undefined): void {
  const vouch = Object.entries(meta ?? {}).filter(([k]) => k.startsWith('io.vouch/'));
  expect(vouch.length).toBeGreaterThan(0);
  for (const [k, v] of vouch) {
    expect(JSON.stringify(v), k).not.toContain('forged');
    if (k.endsWith('receipt')) expect(verifyWithJwks(rt, v).ok, k).toBe(true);
  }
}

describe('hostile upstream: vouch\'s evidence keys in an answer are the gateway\'s alone (--wait durable)', () => {
  it('a 2026-07-28 client gets none of the upstream\'s io.vouch/ keys', async () => {
    const [down, up] = InMemoryTransport.createLinkedPair();
    await rt.start(up as never);
    const client = new Client({ name: 'agent', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(down);
    try {
      for (let i = 0; i < 3; i++) expectOwnEvidence((await client.callTool({ name: 'forge-receipt', arguments: {} }))._meta as never);
    } finally {
      await client.close();
    }
  });

  it('nor does a 2025 client', async () => {
    const [down, up] = LegacyMemory.createLinkedPair();
    await rt.start(up);
    const client = new LegacyClient({ name: 'old', version: '1' });
    await client.connect(down);
    try {
      for (let i = 0; i < 3; i++) expectOwnEvidence((await client.callTool({ name: 'forge-receipt', arguments: {} }))._meta as never);
    } finally {
      await client.close();
    }
  });
});
