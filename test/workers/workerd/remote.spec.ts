// Remote interceptor servers on the Worker, inside workerd: the example config plus a remote
// declaration, connected over MCP (the SDK's Streamable HTTP client on workerd's fetch) to a real
// vouch interceptor server on 127.0.0.1 (_remote-server.ts, started by globalSetup). The server's
// answers decide and are recorded as each entry's state, as on Node, so the exported log verifies
// and replays to `match` without calling the server; a server that goes down, or that is down
// when the isolate starts, makes decisions deny, recorded, until it answers again.
import { afterEach, describe, expect, inject, it } from 'vitest';
import { fromBase64, utf8 } from '../../../src/canonical/index.js';
import type { Json } from '../../../src/interceptors/types.js';
import { WORKER_CONFIG_DOCUMENT } from './_config.js';
import { expectBundleReplays, tenantApp, type TenantApp } from './_tenant-app.js';

const server = inject('remoteInterceptors');

/** The example config as embedded, with one remote declaration added at the end. */
function exampleWithRemote(names: string[], url = server.url): Json {
  const doc = structuredClone(WORKER_CONFIG_DOCUMENT) as unknown as { interceptors: Json[] };
  doc.interceptors.push({ name: 'corp', remote: { url, names } });
  return doc as unknown as Json;
}

const control = async (action: 'down' | 'up') => {
  const res = await fetch(`${server.control}/${action}`, { method: 'POST' });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ up: action === 'up' });
};
afterEach(() => control('up')); // whatever a test did, the next one starts with the server up

const note = (t: TenantApp, text: string) => t.post('/v1/authorize', { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { note: text } }, context: { sessionId: 's1', server: 'everything' } });

/** The signed entry of a decision, decoded. */
const entryOf = (answer: { json: any }) => JSON.parse(utf8.decode(fromBase64(answer.json.receipt.entry))) as { state: Record<string, any>; decision: { effect: string } };


describe('remote interceptor servers on the Worker', () => {
  it("the server's answers decide, recorded as each entry's state; the exported log replays to match", async () => {
    const t = await tenantApp('remote-live', exampleWithRemote(['corp/require-upper']));
    const ok = await note(t, 'SHIP IT');
    expect(ok.json.effect, JSON.stringify(ok.json)).toBe('allow');
    expect(entryOf(ok).state['corp/require-upper']).toMatchObject({ interceptor: 'corp/require-upper', type: 'validation', phase: 'request', valid: true });

    const no = await note(t, 'ship it');
    expect(no.json.effect).toBe('deny');
    expect(no.json.chain.abortedAt).toMatchObject({ interceptor: 'corp/require-upper', type: 'validation' });
    expect(entryOf(no).state['corp/require-upper']).toMatchObject({ type: 'validation', valid: false, messages: [{ message: 'note must be uppercase', severity: 'error' }] });

    // A remote mutation: the server's payload is the one the chain goes on with.
    const m = await tenantApp('remote-mutation', exampleWithRemote(['corp/upper']));
    const upper = await note(m, 'quiet please');
    expect(upper.json.effect).toBe('allow');
    expect(upper.json.chain.finalPayload.arguments.note).toBe('QUIET PLEASE');
    expect(entryOf(upper).state['corp/upper']).toMatchObject({ type: 'mutation', modified: true, payload: { arguments: { note: 'QUIET PLEASE' } } });

    await expectBundleReplays(t, 'remote-live', { remoteAnswers: 2 });
    await expectBundleReplays(m, 'remote-mutation', { remoteAnswers: 1 });
  });

  it('a server that goes down after activation: each decision it hooks is denied and recorded, /healthz 503 says which; it answers again once back', async () => {
    const t = await tenantApp('remote-down', exampleWithRemote(['corp/require-upper']));
    expect((await note(t, 'BEFORE')).json.effect).toBe('allow');
    expect((await t.get('/healthz')).status).toBe(200);
    await control('down');
    const down = await note(t, 'DURING');
    expect(down.json.effect).toBe('deny');
    expect(down.json.chain.abortedAt).toMatchObject({ interceptor: 'corp/require-upper', reason: expect.stringContaining('interceptor server: ') });
    expect(entryOf(down).state['corp/require-upper']).toEqual({ error: expect.any(String) });
    // Issue 38: health tells the truth while every decision it hooks is a deny.
    const sick = await t.get('/healthz');
    expect(sick.status).toBe(503);
    expect(await sick.json()).toMatchObject({ ok: false, error: { code: 'ERR_INTERCEPTOR_FAILED', message: expect.stringContaining('corp/require-upper') } });
    await control('up');
    expect((await note(t, 'AFTER')).json.effect).toBe('allow');
    expect((await t.get('/healthz')).status).toBe(200);
    await expectBundleReplays(t, 'remote-down', { remoteAnswers: 3 });
  });

  it('a server that is down when the isolate starts: the Worker starts, /healthz says why, decisions deny (recorded) until a retry connects', async () => {
    await control('down');
    const t = await tenantApp('remote-cold', exampleWithRemote(['corp/require-upper']), { retryMs: 300 });
    const health = await t.get('/healthz');
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ ok: false, error: { code: 'ERR_INTERCEPTOR_FAILED', message: expect.stringContaining(server.url) } });

    const cold = await note(t, 'SHIP IT');
    expect(cold.json.effect).toBe('deny');
    expect(cold.json.chain.abortedAt).toMatchObject({ interceptor: 'corp/require-upper', reason: expect.stringContaining('not connected: interceptor server ') });
    expect(entryOf(cold).state['corp/require-upper']).toEqual({ error: expect.stringContaining('not connected: ') });
    // Every event, either phase: what the server would hook is not known until it lists it.
    const listing = await t.post('/v1/authorize', { event: 'tools/list', phase: 'request', payload: {} });
    expect(listing.json.effect).toBe('deny');

    await control('up');
    await new Promise((r) => setTimeout(r, 350));
    const back = await note(t, 'SHIP IT');
    expect(back.json.effect, JSON.stringify(back.json.chain)).toBe('allow');
    expect(entryOf(back).state['corp/require-upper']).toMatchObject({ type: 'validation', valid: true });
    expect((await t.get('/healthz')).status).toBe(200);
    await expectBundleReplays(t, 'remote-cold', { remoteAnswers: 3 });
  });

  it('a server that lists no interceptor by a picked name fails closed the same way, naming it', async () => {
    const t = await tenantApp('remote-missing', exampleWithRemote(['corp/no-such']));
    const r = await note(t, 'SHIP IT');
    expect(r.json.effect).toBe('deny');
    expect(r.json.chain.abortedAt).toMatchObject({ interceptor: 'corp/no-such', reason: expect.stringContaining('corp/no-such') });
  });
});
