// Remote interceptors against a real MCP interceptor server (the SDK v1 Server + Streamable HTTP on
// 127.0.0.1, _remote-servers.ts): list, invoke, merge into a local chain, and replay with zero
// server calls. Both MCP eras and the config's `era`: remote-eras.test.ts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalText } from '../../src/canonical/index.js';
import { decisionOf, executeChain, stripVolatile } from '../../src/interceptors/chain.js';
import { createBehavior } from '../../src/interceptors/conformance-behaviors.js';
import { parseDeclaration } from '../../src/protocol/index.js';
import { invokeInterceptor } from '../../src/interceptors/invoke.js';
import { connectRemoteInterceptors } from '../../src/interceptors/remote.js';
import { remoteHealth } from '../../src/decide/index.js';
import type { Interceptor, Phase } from '../../src/interceptors/types.js';
import { allow, CTX, tagger, validator } from './chain-kit.js';
import { startLegacyRemote, type RunningRemote } from './_remote-servers.js';

const TOKEN = 'Bearer test-token';
const hosted: Interceptor[] = [
  ['guard/deny-all', 'validation', 'deny-all'],
  ['guard/upper', 'mutation', 'uppercase-note'],
  ['guard/crash', 'validation', 'crash'],
  ['guard/require-upper', 'validation', 'require-uppercase-note'],
  ['guard/allow', 'validation', 'allow-all'],
].map(([name, type, behavior]) => createBehavior(behavior, parseDeclaration({ name, type, events: ['tools/call'], phase: 'both' })));

let srv: RunningRemote;
const closers: (() => Promise<void>)[] = [];
beforeEach(async () => {
  srv = await startLegacyRemote(hosted, TOKEN);
});
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  await srv.stop();
});

async function connect(names?: string[]) {
  const remote = await connectRemoteInterceptors({ url: srv.url, headers: { authorization: TOKEN }, names });
  closers.push(remote.close);
  return remote.interceptors;
}

const call = { event: 'tools/call', phase: 'request' as const, payload: { name: 'echo', arguments: { note: 'hello' } } };

describe('remote interceptors over MCP', () => {
  it('lists every remote interceptor across pages, names kept, in server order', async () => {
    const remote = await connect();
    expect(remote.map((i) => i.descriptor)).toEqual(hosted.map((i) => i.descriptor));
    const picked = await connect(['guard/upper', 'guard/deny-all']);
    expect(picked.map((i) => i.descriptor.name)).toEqual(['guard/deny-all', 'guard/upper']);
  });

  it('refuses unknown names and a missing credential', async () => {
    await expect(connect(['guard/nope'])).rejects.toMatchObject({ code: 'ERR_UNKNOWN_INTERCEPTOR' });
    await expect(connectRemoteInterceptors({ url: srv.url })).rejects.toMatchObject({ code: 'ERR_INTERCEPTOR_FAILED' });
  });

  it('invokes one remote interceptor, sending the context', async () => {
    const [upper] = await connect(['guard/upper']);
    const result = await invokeInterceptor(upper, call, CTX);
    expect(result).toEqual({ interceptor: 'guard/upper', type: 'mutation', phase: 'request', modified: true, payload: { name: 'echo', arguments: { note: 'HELLO' } } });
    expect(srv.calls).toEqual([{ name: 'guard/upper', context: { timestamp: CTX.time, sessionId: CTX.sessionId, principal: CTX.principal } }]);
  });

  it('merges remote interceptors into a local chain: order holds, a remote deny denies', async () => {
    const [upper, requireUpper] = await connect(['guard/upper', 'guard/require-upper']);
    // Remote mutator first (sending), then local and remote validators see the mutated payload.
    const ok = await executeChain([requireUpper, upper, validator('local', allow)], call, CTX);
    expect(decisionOf(ok.result)).toBe('allow');
    expect(ok.result.finalPayload).toEqual({ name: 'echo', arguments: { note: 'HELLO' } });

    const [deny] = await connect(['guard/deny-all']);
    const denied = await executeChain([tagger('local-tag'), deny, validator('local', allow)], call, CTX);
    expect(decisionOf(denied.result)).toBe('deny');
    expect(denied.result.abortedAt).toEqual({ interceptor: 'guard/deny-all', reason: 'denied by policy', type: 'validation' });
    expect(denied.state['guard/deny-all']).toMatchObject({ type: 'validation', valid: false, severity: 'error' });
  });

  it('replays with the recorded answers and calls the server zero times', async () => {
    const remote = await connect(['guard/upper', 'guard/require-upper', 'guard/deny-all']);
    const live = await executeChain(remote, call, CTX);
    expect(decisionOf(live.result)).toBe('deny');
    const callsBefore = srv.calls.length;
    expect(callsBefore).toBe(3);
    await srv.stop(); // the server is gone: replay must not need it
    const replay = await executeChain(remote, call, CTX, { replayState: live.state });
    expect(srv.calls.length).toBe(callsBefore);
    expect(canonicalText(stripVolatile(replay.result))).toBe(canonicalText(stripVolatile(live.result)));
  });

  it('fails closed when the remote interceptor crashes or the server goes away, and replays that', async () => {
    const [crash, allowRemote] = await connect(['guard/crash', 'guard/allow']);
    const crashed = await executeChain([crash], call, CTX);
    expect(crashed.result.status).toBe('validation_failed');
    expect(crashed.state['guard/crash']).toEqual({ error: expect.stringContaining('interceptor crashed') });
    const replayed = await executeChain([crash], call, CTX, { replayState: crashed.state });
    expect(canonicalText(stripVolatile(replayed.result))).toBe(canonicalText(stripVolatile(crashed.result)));

    await srv.stop();
    const gone = await executeChain([allowRemote], call, CTX, { interceptorTimeoutMs: 2000 });
    expect(decisionOf(gone.result)).toBe('deny');
    expect(gone.state['guard/allow']).toEqual({ error: expect.any(String) });
  });

  it('health (issue 38): an interceptor whose latest call failed is reported with its reason, until a call succeeds again', async () => {
    const remote = await connectRemoteInterceptors({ url: srv.url, headers: { authorization: TOKEN }, names: ['guard/crash', 'guard/allow'] });
    closers.push(remote.close);
    const [crash, allowRemote] = remote.interceptors;
    expect(remoteHealth({ remoteFailures: remote.failing })).toEqual({ ok: true });
    await executeChain([crash], call, CTX);
    await executeChain([allowRemote], call, CTX);
    expect(remote.failing().map((f) => f.name)).toEqual(['guard/crash']);
    expect(remoteHealth({ remoteFailures: remote.failing })).toMatchObject({ ok: false, code: 'ERR_INTERCEPTOR_FAILED', reason: expect.stringContaining('guard/crash: ') });
    await srv.stop(); // the server goes away mid-run: the next call of the healthy one fails too
    await executeChain([allowRemote], call, CTX, { interceptorTimeoutMs: 2000 });
    expect(remote.failing().map((f) => f.name).sort()).toEqual(['guard/allow', 'guard/crash']);
  });
});
