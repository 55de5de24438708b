// The relay's evidence rules with the real chain, policy and log, and a far side that misbehaves
// on purpose: drift between what was authorized and what went on the wire is found (and denied
// with failOnCritical), a decision that cannot be recorded forwards nothing, a peer's own JSON-RPC
// error is relayed with an execution entry saying so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { systemClock } from '../../src/clock.js';
import { GatewayError } from '../../src/mcp/gateway-errors.js';
import { openGateway, type GatewayRuntime } from '../../src/mcp/gateway-node.js';
import { gateNotification } from '../../src/mcp/gateway-notify.js';
import { relayRequest } from '../../src/mcp/gateway-relay.js';
import type { Peer, RelaySession } from '../../src/mcp/gateway-session.js';
import { DEFAULT_DRIFT_RULES } from '../../src/execution/index.js';
import { entriesOf, executionOf, makeWorkspace, type Workspace, closeReplayed } from './_gateway.js';

let rt: GatewayRuntime;
let ws: Workspace;

beforeAll(async () => {
  ws = makeWorkspace('vouch-gw-relay-');
  rt = await openGateway({ data: ws.data, config: ws.config, upstream: { command: 'never-started' }, serverName: 'filesystem', thread: false });
});
afterAll(async () => {
  await closeReplayed(rt);
});

function session(over: Partial<RelaySession> = {}): RelaySession {
  return { policy: rt.policies.clientToServer, serverPolicy: rt.policies.serverToClient, log: rt.log, clock: systemClock, tenant: 'default', principal: 'local-operator', roles: [], server: 'filesystem', sessionId: 's-1', timeoutMs: 1000, ...over };
}

/** A far side that answers `result`, reporting `rewrite(params)` as what reached its transport. */
function peer(result: () => Promise<Record<string, unknown>>, rewrite = (p: Record<string, unknown>) => p): Peer & { sent: Record<string, unknown>[] } {
  const sent: Record<string, unknown>[] = [];
  return {
    name: 'test peer',
    sent,
    send(params) {
      sent.push(params);
      return { wire: rewrite(params), result: result() };
    },
  };
}

const read = (path: string) => ({ name: 'read_text_file', arguments: { path } });
const ok = async () => ({ content: [{ type: 'text', text: 'file body' }] });

describe('relayRequest', () => {
  it('records no drift when the wire carries exactly the intent', async () => {
    const p = peer(ok);
    const out = await relayRequest(session(), 'client-to-server', 'tools/call', { ...read(`${ws.allowed}/a.txt`), _meta: { progressToken: 7 } }, p);
    expect(p.sent[0]).toEqual({ ...read(`${ws.allowed}/a.txt`), _meta: { progressToken: 7 } }); // routing _meta travels, outside the decision
    expect(await executionOf(rt, (out._meta as Record<string, unknown>)['io.vouch/seq'])).toMatchObject({ flags: [], drift: { severity: 'none', count: 0 } });
  });

  it('decides on the rest of _meta (it reaches the peer): PII in it is redacted too', async () => {
    const p = peer(ok);
    await relayRequest(session(), 'client-to-server', 'tools/call', { ...read(`${ws.allowed}/a.txt`), _meta: { 'vendor/note': 'call +1 415 867 5309', progressToken: 't' } }, p);
    expect(p.sent[0]._meta).toEqual({ 'vendor/note': 'call [PHONE_REDACTED]', progressToken: 't' });
  });

  it("merges the receipts into the peer's own result _meta", async () => {
    const out = await relayRequest(session(), 'client-to-server', 'tools/call', read(`${ws.allowed}/a.txt`), peer(async () => ({ content: [], _meta: { 'vendor/trace': 'abc' } })));
    expect(out._meta).toMatchObject({ 'vendor/trace': 'abc', 'io.vouch/receipt': expect.any(Object), 'io.vouch/response-receipt': expect.any(Object), 'io.vouch/seq': expect.any(Number) });
  });

  it('finds the drift when what went out differs from what was authorized', async () => {
    const p = peer(ok, (x) => ({ ...x, arguments: { path: '/etc/passwd' } }));
    const out = await relayRequest(session(), 'client-to-server', 'tools/call', read(`${ws.allowed}/a.txt`), p);
    const entry = await executionOf(rt, (out._meta as Record<string, unknown>)['io.vouch/seq']);
    expect(entry).toMatchObject({ type: 'execution', flags: ['drift-critical'], drift: { severity: 'critical', items: [{ path: '/arguments/path', op: 'replace', severity: 'critical' }] } });
  });

  it('with failOnCritical, denies the answer of a call that drifted critically', async () => {
    const p = peer(ok, (x) => ({ ...x, arguments: { path: '/etc/passwd' } }));
    const err = await relayRequest(session({ drift: { ...DEFAULT_DRIFT_RULES, failOnCritical: true } }), 'client-to-server', 'tools/call', read(`${ws.allowed}/a.txt`), p).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ code: -32001, message: expect.stringContaining('forwarded parameters drift critically') });
    expect((err as GatewayError).message).toContain('/arguments/path');
  });

  it('forwards nothing when the decision cannot be made durable', async () => {
    const p = peer(ok);
    const broken = { ...rt.log, append: async () => Promise.reject(Object.assign(new Error('disk full'), { code: 'ERR_STORE' })) };
    const err = await relayRequest(session({ log: broken }), 'client-to-server', 'tools/call', read(`${ws.allowed}/a.txt`), p).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).message).toContain('nothing was forwarded');
    expect(p.sent).toEqual([]);
  });

  it("relays the peer's own JSON-RPC error and records that the call failed", async () => {
    const p = peer(async () => Promise.reject(new McpError(ErrorCode.InvalidParams, 'Tool read_text_file: bad path', { hint: 'x' })));
    const err = await relayRequest(session(), 'client-to-server', 'tools/call', read(`${ws.allowed}/a.txt`), p).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: -32602, message: 'Tool read_text_file: bad path', data: { peer: 'test peer', upstream: { hint: 'x' }, seq: expect.any(Number) } });
    const entries = await entriesOf(rt);
    const exec = entries.at(-1)!;
    expect(exec).toMatchObject({ type: 'execution', authorization: (err as GatewayError).data!.seq });
  });

  it('denies before sending when the chain denies, and sends nothing', async () => {
    const p = peer(ok);
    const err = await relayRequest(session(), 'client-to-server', 'tools/call', read('/etc/shadow'), p).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: -32001, data: { interceptor: 'authz', reason: expect.stringContaining('filesystem-inside-allowed') } });
    expect(p.sent).toEqual([]);
  });
});

describe('gateNotification', () => {
  it('decides a notification on the chain of its way, forwarding what the chain left', async () => {
    const delivered: unknown[] = [];
    const out = await gateNotification(session(), 'server-to-client', 'notifications/message', { level: 'info', data: 'call +1 415 867 5309' }, async (p) => void delivered.push(p));
    expect(out).toEqual({ level: 'info', data: 'call [PHONE_REDACTED]' });
    expect(delivered).toEqual([out]);
    const e = (await entriesOf(rt)).filter((x) => x.event === 'notifications/message').at(-1)!;
    expect(e).toMatchObject({ phase: 'request', direction: 'receiving', flow: 'server-to-client', decision: { effect: 'allow' } });
  });

  it('drops (fails closed) a notification that is denied, unknown, or cannot be recorded', async () => {
    const seen: unknown[] = [];
    const s = session({ onDecided: (d) => void seen.push(d) });
    const deliver = async () => void seen.push('delivered');
    expect(await gateNotification(s, 'server-to-client', 'notifications/tasks/status', { taskId: 't' }, deliver)).toBeUndefined(); // not in `uncovered`
    expect(await gateNotification(s, 'server-to-client', 'notifications/made_up', {}, deliver)).toBeUndefined(); // not an event
    const broken = { ...rt.log, append: async () => Promise.reject(Object.assign(new Error('disk full'), { code: 'ERR_STORE' })) };
    expect(await gateNotification(session({ log: broken }), 'client-to-server', 'notifications/cancelled', { requestId: 1 }, deliver)).toBeUndefined();
    expect(seen).not.toContain('delivered');
    expect(seen[0]).toMatchObject({ method: 'notifications/tasks/status', denied: true, request: expect.any(Number) });
  });

  it('keeps the order of one way even when decisions take different times', async () => {
    const s = session();
    const order: number[] = [];
    await Promise.all([1, 2, 3, 4, 5].map((i) => gateNotification(s, 'server-to-client', 'notifications/progress', { progress: i, message: 'x'.repeat(i % 2 ? 50_000 : 1) }, async (p) => void order.push(p.progress as number))));
    expect(order).toEqual([1, 2, 3, 4, 5]);
  });
});
