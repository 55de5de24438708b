// The gateway with wait "durable" (issue 17): a tools/call is forwarded once its request decision
// is committed, without waiting for a signature; the answer carries the signed receipt where it
// was ready, else the committed entry, and every decision is later served with a receipt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { fromBase64, toHex } from '../../src/canonical/index.js';
import { hashLeaf } from '../../src/log/index.js';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import { relayRequest } from '../../src/mcp/gateway-relay.js';
import type { RelaySession } from '../../src/mcp/gateway-session.js';
import { makeWorkspace, type Workspace, closeReplayed } from './_gateway.js';

let rt: GatewayRuntime;
let ws: Workspace;

beforeAll(async () => {
  ws = makeWorkspace('vouch-gw-wait-');
  rt = await openGateway({ data: ws.data, config: ws.config, upstream: { command: 'never-started' }, serverName: 'filesystem', thread: false });
});
afterAll(async () => {
  await closeReplayed(rt);
});

const session = (): RelaySession => ({ policy: rt.policies.clientToServer, serverPolicy: rt.policies.serverToClient, log: rt.log, clock: systemClock, tenant: 'default', principal: 'local-operator', roles: [], server: 'filesystem', sessionId: 's-w', timeoutMs: 1000, wait: 'durable' });

describe('gateway wait "durable"', () => {
  it('forwards before the request decision is signed; the answer has a receipt or the committed entry for each decision', async () => {
    let checkpointAtForward: number | undefined;
    let seqAtForward: number | undefined;
    const out = await relayRequest(session(), 'client-to-server', 'tools/call', { name: 'read_text_file', arguments: { path: `${ws.allowed}/a.txt` } }, {
      name: 'test peer',
      send(params) {
        // What the log holds when the call goes out: the decision is durable, its signature may still be pending.
        const result = (async () => {
          seqAtForward = (await rt.log.size()) - 1;
          checkpointAtForward = (await rt.log.latestCheckpoint())?.size ?? 0;
          return { content: [{ type: 'text', text: 'file body' }] };
        })();
        return { wire: params, result };
      },
    });
    const meta = out._meta as Record<string, any>;
    const seq = meta['io.vouch/seq'];
    expect(seqAtForward).toBe(seq); // the request decision was committed before forwarding
    expect(checkpointAtForward).toBeLessThanOrEqual(seq + 1);
    for (const [receiptKey, durableKey] of [['io.vouch/receipt', 'io.vouch/durable'], ['io.vouch/response-receipt', 'io.vouch/response-durable']]) {
      const r = meta[receiptKey] ?? meta[durableKey];
      expect(r, receiptKey).toBeDefined();
      expect(toHex(hashLeaf(fromBase64(r.entry)))).toBe(r.leafHash);
    }
    // Every decision is covered by a signed checkpoint shortly after.
    for (let i = 0; i < 100 && ((await rt.log.latestCheckpoint())?.size ?? 0) < seq + 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await rt.log.latestCheckpoint())!.size).toBeGreaterThanOrEqual(seq + 2);
  });
});
