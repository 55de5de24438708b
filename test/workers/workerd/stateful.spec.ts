// The stateful guards on the Worker, inside workerd, through the real app, log object and state
// objects: the WG behavior scenarios that need state (a secret read from one server relayed to
// another is denied, writing it back to its own server is allowed, another session is not
// tainted), two concurrent calls cannot both pass a limit of one, schema-guard checks arguments
// against the schema a listing left in the state object, and the tenant's log, exported, verifies
// and replays to `match` from the recorded state.
import { abortAllDurableObjects, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { fromBase64, utf8 } from '../../../src/canonical/index.js';
import type { Json } from '../../../src/interceptors/types.js';
import { WORKER_CONFIG_DOCUMENT } from './_config.js';
import { STRIPE } from '../../interceptors/builtin/_secrets.js';
import { expectBundleReplays, tenantApp, type TenantApp } from './_tenant-app.js';

type Decl = { name: string; use?: string; config?: Json };

/** The example config as embedded, changed only where a scenario needs it. */
function exampleWith(change: (interceptors: Decl[]) => Decl[]): Json {
  const doc = structuredClone(WORKER_CONFIG_DOCUMENT) as unknown as { interceptors: Decl[] };
  doc.interceptors = change(doc.interceptors);
  return doc as unknown as Json;
}

// The guard alone, as the WG scenario has it: without the secret redactor, which would remove
// the secret from the response before any client could relay it.
const guardOnly = exampleWith((list) => list.filter((d) => d.use !== 'secret-redactor'));
const limitOfOne = exampleWith((list) => list.map((d) => (d.use === 'rate-limit' ? { ...d, config: { limit: 1, windowMs: 3_600_000, key: ['principal', 'tool', 'session'] } } : d)));

const authorize = (t: TenantApp, session: string, server: string, phase: 'request' | 'response', payload: unknown) =>
  t.post('/v1/authorize', { event: 'tools/call', phase, payload, context: { sessionId: session, server } });

const echo = (text: string) => ({ name: 'echo', arguments: { text } });

/** Read `.env` from the filesystem server in `session`: the response carries the secret. */
async function readSecret(t: TenantApp, session: string) {
  // The example closes the file tools (schema-guard closedTools): the server lists read_file first.
  const listed = await t.post('/v1/authorize', { event: 'tools/list', phase: 'response', payload: { tools: [{ name: 'read_file', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }] }, context: { sessionId: session, server: 'filesystem' } });
  expect(listed.json.effect, JSON.stringify(listed.json)).toBe('allow');
  const req = await authorize(t, session, 'filesystem', 'request', { name: 'read_file', arguments: { path: '/tmp/allowed/.env' } });
  expect(req.json.effect, JSON.stringify(req.json)).toBe('allow');
  const res = await authorize(t, session, 'filesystem', 'response', { content: [{ type: 'text', text: `STRIPE_KEY=${STRIPE}` }] });
  expect(res.json.effect, JSON.stringify(res.json)).toBe('allow');
}


describe('stateful guards on the Worker (state in Durable Objects)', () => {
  it('relay across servers is denied; writing back to the same server is allowed; another session is clean', async () => {
    const t = await tenantApp('relay', guardOnly);
    await readSecret(t, 's1');
    const relay = await authorize(t, 's1', 'everything', 'request', echo(`note: ${STRIPE}`));
    expect(relay.json.effect).toBe('deny');
    expect(JSON.stringify(relay.json.chain)).toContain("returned by 'filesystem' may not be sent to 'everything'");
    // The signed entry records the taint by fingerprint only, never the secret.
    const entry = utf8.decode(fromBase64(relay.json.receipt.entry));
    expect(entry).toContain('"exfiltration":{"matches":[{"fingerprint":"sha256:');
    expect(entry).not.toContain(STRIPE);

    const back = await authorize(t, 's1', 'filesystem', 'request', echo(`restore ${STRIPE}`));
    expect(back.json.effect, JSON.stringify(back.json.chain)).toBe('allow');

    const other = await authorize(t, 's2', 'everything', 'request', echo(`note: ${STRIPE}`));
    expect(other.json.effect, JSON.stringify(other.json.chain)).toBe('allow');
  });

  it('the taint survives a restart of every object (it is stored, not isolate memory)', async () => {
    const t = await tenantApp('restart', guardOnly);
    await readSecret(t, 's1');
    await abortAllDurableObjects();
    const fresh = await tenantApp('restart', guardOnly); // a new isolate's app: no memory shared
    expect((await authorize(fresh, 's1', 'everything', 'request', echo(STRIPE))).json.effect).toBe('deny');
  });

  it('two concurrent calls cannot both pass a limit of one; the counts recorded are 1 and 2', async () => {
    const [a, b] = await Promise.all([tenantApp('race', limitOfOne), tenantApp('race', limitOfOne)]); // two "isolates"
    const [x, y] = await Promise.all([authorize(a, 'r1', 'everything', 'request', echo('one')), authorize(b, 'r1', 'everything', 'request', echo('two'))]);
    expect([x.json.effect, y.json.effect].sort()).toEqual(['allow', 'deny']);
    const rate = (r: { json: any }) => r.json.chain.results.find((s: { interceptor: string }) => s.interceptor === 'rate');
    expect([rate(x).info.count, rate(y).info.count].sort()).toEqual([1, 2]);
    // Another session has its own counter (key: principal, tool, session).
    expect((await authorize(a, 'r2', 'everything', 'request', echo('three'))).json.effect).toBe('allow');
    await expectBundleReplays(a, 'race');
  });

  it('schema-guard: the schema a tools/list left in the state object checks a later call, from any isolate', async () => {
    const t = await tenantApp('schemas', guardOnly);
    const listing = { tools: [{ name: 'echo', description: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false } }] };
    const listed = await t.post('/v1/authorize', { event: 'tools/list', phase: 'response', payload: listing, context: { server: 'everything' } });
    expect(listed.json.effect).toBe('allow');
    const other = await tenantApp('schemas', guardOnly);
    const bad = await authorize(other, 'x', 'everything', 'request', { name: 'echo', arguments: { text: 5, extra: true } });
    expect(bad.json.effect).toBe('deny');
    const messages = bad.json.chain.results.find((s: { interceptor: string }) => s.interceptor === 'schemas').messages.map((m: { message: string }) => m.message);
    expect(messages).toEqual(['/arguments/text must be string', '/arguments/extra must NOT have additional properties']);
    expect((await authorize(other, 'x', 'everything', 'request', echo('fine'))).json.effect).toBe('allow');
  });

  it("the relay tenant's log, exported, verifies and every decision replays to match from its recorded state", async () => {
    const t = await tenantApp('relay', guardOnly);
    await expectBundleReplays(t, 'relay');
  });
});
