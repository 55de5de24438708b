// What a relayed call costs the log (issue 36): the execution entry commits in the response
// decision's transaction, right behind it, so a call pays one fsync after the peer answered, not
// two, and no commit of its own blocks the event loop once the answer has gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import { relayRequest } from '../../src/mcp/gateway-relay.js';
import type { Peer, RelaySession } from '../../src/mcp/gateway-session.js';
import { decodeEntry } from '../../src/log/index.js';
import type { EntryBatch } from '../../src/store/port.js';
import { closeReplayed, makeWorkspace, type Workspace } from './_gateway.js';

let rt: GatewayRuntime;
let ws: Workspace;
/** The seqs of each transaction the real SQLite store committed, in order. */
const commits: number[][] = [];

beforeAll(async () => {
  ws = makeWorkspace('vouch-gw-commit-');
  rt = await openGateway({ data: ws.data, config: ws.config, upstream: { command: 'never-started' }, serverName: 'filesystem', thread: false, wait: 'durable' });
  const store = rt.dataDir.log('default').store;
  const appendEntries = store.appendEntries!.bind(store);
  store.appendEntries = (batch: EntryBatch) => {
    appendEntries(batch);
    commits.push(batch.entries.map((e) => e.seq));
  };
});
afterAll(async () => {
  await closeReplayed(rt);
});

function session(over: Partial<RelaySession> = {}): RelaySession {
  return { policy: rt.policies.clientToServer, serverPolicy: rt.policies.serverToClient, log: rt.log, clock: systemClock, tenant: 'default', principal: 'local-operator', roles: [], server: 'filesystem', sessionId: 's-1', timeoutMs: 1000, wait: 'durable', ...over };
}

const peer = (result: () => Promise<Record<string, unknown>>): Peer => ({ name: 'test peer', send: (params) => ({ wire: params, result: result() }) });
const read = (path: string) => ({ name: 'read_text_file', arguments: { path } });

async function typeOf(seq: number): Promise<string> {
  return decodeEntry((await rt.log.entry(seq))!).type as string;
}

describe('a relayed call in the log', () => {
  for (const background of [false, true]) {
    it(`commits the execution entry with the response decision, right behind it (${background ? 'background' : 'awaited'} execution)`, async () => {
      const pending: Promise<unknown>[] = [];
      commits.length = 0;
      const out = await relayRequest(session(background ? { background: (_what, p) => void pending.push(p) } : {}), 'client-to-server', 'tools/call', read(`${ws.allowed}/a.txt`), peer(async () => ({ content: [{ type: 'text', text: 'file body' }] })));
      await Promise.all(pending);
      const request = (out._meta as Record<string, number>)['io.vouch/seq'];
      const response = request + 1; // one call at a time: nothing else is appended in between
      expect(await typeOf(response)).toBe('decision');
      expect(await typeOf(response + 1)).toBe('execution');
      // The request decision commits before anything is forwarded; the response and the execution together.
      expect(commits).toEqual([[request], [response, response + 1]]);
    });
  }

  it('records the execution after the response decision even when the peer answers at once', async () => {
    commits.length = 0;
    const out = await relayRequest(session(), 'client-to-server', 'tools/call', read(`${ws.allowed}/b.txt`), peer(() => Promise.resolve({ content: [] })));
    const request = (out._meta as Record<string, number>)['io.vouch/seq'];
    expect([await typeOf(request), await typeOf(request + 1), await typeOf(request + 2)]).toEqual(['decision', 'decision', 'execution']);
    expect(commits.flat()).toEqual([request, request + 1, request + 2]);
  });
});
