// Issues 36 and 38 inside workerd, through the real app and the VouchState Durable Objects that
// every tenant's Worker shares: two tenants never share schema-guard state (acme's tools/list does
// not set the schema globex is checked against), and two principals of one tenant, deciding
// without a session as MCP 2026-07-28 callers do, never share taint or a session-keyed counter.
// Node plays the same attackers in test/security/state-isolation.test.ts.
import { describe, expect, it } from 'vitest';
import type { Json } from '../../../src/interceptors/types.js';
import { WORKER_CONFIG_DOCUMENT } from './_config.js';
import { STRIPE } from '../../interceptors/builtin/_secrets.js';
import { expectBundleReplays, tenantApp, type TenantApp } from './_tenant-app.js';

type Decl = { name: string; use?: string; config?: Json };
type Any = Record<string, any>;

/** The example config as embedded, without the secret redactor (it would remove the secret before any relay). */
function example(change: (d: Decl) => Decl = (d) => d): Json {
  const doc = structuredClone(WORKER_CONFIG_DOCUMENT) as unknown as { interceptors: Decl[] };
  doc.interceptors = doc.interceptors.filter((d) => d.use !== 'secret-redactor').map(change);
  return doc as unknown as Json;
}

const decide = (t: TenantApp, who: string, phase: 'request' | 'response', payload: unknown, context: Any, event = 'tools/call') =>
  t.post('/v1/authorize', { event, phase, payload, context }, who);
const echo = (args: Any) => ({ name: 'echo', arguments: args });
const messagesOf = (r: { json: Any }, name: string) => (r.json.chain.results.find((s: Any) => s.interceptor === name)?.messages ?? []).map((m: Any) => m.message);

describe('state isolation on the Worker (shared state objects)', () => {
  it("two tenants: acme's tools/list does not set the schema globex's calls are checked against", async () => {
    const acme = await tenantApp('iso-acme', example());
    const globex = await tenantApp('iso-globex', example());
    const strict = { tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false } }] };
    expect((await decide(acme, 'alice', 'response', strict, { server: 'everything' }, 'tools/list')).json.effect).toBe('allow');
    const bad = echo({ text: 5, extra: true });
    const own = await decide(acme, 'alice', 'request', bad, { server: 'everything' });
    expect(own.json.effect).toBe('deny');
    expect(messagesOf(own, 'schemas')).toEqual(['/arguments/text must be string', '/arguments/extra must NOT have additional properties']);
    // The same principal name in another tenant: its own (empty) listing, an unknown tool (a warning).
    const other = await decide(globex, 'alice', 'request', bad, { server: 'everything' });
    expect(other.json.effect, JSON.stringify(other.json.chain)).toBe('allow');
    expect(messagesOf(other, 'schemas')).toEqual(['no inputSchema known for tool "echo" (not listed yet)']);
    // Another principal of acme is not checked against alice's listing either.
    const mallory = await decide(acme, 'mallory', 'request', bad, { server: 'everything' });
    expect(messagesOf(mallory, 'schemas')).toEqual(['no inputSchema known for tool "echo" (not listed yet)']);
    await expectBundleReplays(acme, 'iso-acme');
    await expectBundleReplays(globex, 'iso-globex');
  });

  it("two principals without a session: mallory neither learns alice's taint nor plants taint in alice's conversation", async () => {
    const t = await tenantApp('iso-taint', example());
    const list = { tools: [{ name: 'read_file', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }] };
    for (const who of ['alice', 'mallory']) expect((await decide(t, who, 'response', list, { server: 'filesystem' }, 'tools/list')).json.effect).toBe('allow');
    const read = async (who: string, secret: string) => {
      expect((await decide(t, who, 'request', { name: 'read_file', arguments: { path: '/tmp/allowed/.env' } }, { server: 'filesystem' })).json.effect).toBe('allow');
      expect((await decide(t, who, 'response', { content: [{ type: 'text', text: `KEY=${secret}` }] }, { server: 'filesystem' })).json.effect).toBe('allow');
    };
    await read('alice', STRIPE);
    const probe = await decide(t, 'mallory', 'request', echo({ text: STRIPE }), { server: 'everything' });
    expect(probe.json.effect, JSON.stringify(probe.json.chain)).toBe('allow');
    const relay = await decide(t, 'alice', 'request', echo({ text: STRIPE }), { server: 'everything' });
    expect(relay.json.effect).toBe('deny');
    // Nor does a value mallory's response carried deny alice.
    const planted = STRIPE.replace('4eC7', '8pL2');
    await read('mallory', planted);
    expect((await decide(t, 'alice', 'request', echo({ text: planted }), { server: 'everything' })).json.effect).toBe('allow');
    await expectBundleReplays(t, 'iso-taint');
  });

  it('a session-keyed limit without sessions is per principal', async () => {
    const limitOfOne = example((d) => (d.use === 'rate-limit' ? { ...d, config: { limit: 1, windowMs: 3_600_000, key: ['tool', 'session'] } } : d));
    const t = await tenantApp('iso-rate', limitOfOne);
    expect((await decide(t, 'alice', 'request', echo({ text: 'a' }), { server: 'everything' })).json.effect).toBe('allow');
    expect((await decide(t, 'mallory', 'request', echo({ text: 'm' }), { server: 'everything' })).json.effect).toBe('allow');
    expect((await decide(t, 'mallory', 'request', echo({ text: 'm' }), { server: 'everything', sessionId: 'alice-session' })).json.effect).toBe('allow');
    const again = await decide(t, 'alice', 'request', echo({ text: 'a' }), { server: 'everything' });
    expect(again.json.effect).toBe('deny');
    expect(messagesOf(again, 'rate')).toEqual(['rate limit exceeded: 2/1 in window']);
  });
});
