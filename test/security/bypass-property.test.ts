// Issue 14's property, against the real service with the example config (as `npm start` runs it),
// over REST /v1/authorize and /mcp interceptor/executeChain: for any subset or order of
// `interceptors`, any case or suffix variant of the event, any context (principal, onBehalfOf,
// server, session), the decision is never more permissive than the full mandatory chain for the
// same message with the caller's own principal. A variant event is bad input, never a decision.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { isKnownEvent } from '../../src/protocol/index.js';
import { post, testIssuer, testServer } from '../http/_server.js';

type Server = Awaited<ReturnType<typeof testServer>>;
const example = parseYaml(readFileSync(new URL('../../fixtures/config/vouch.example.yaml', import.meta.url), 'utf8')) as { interceptors: { name: string }[] };
const NAMES = example.interceptors.map((i) => i.name);

/** Messages the example policy allows and denies, request phase and a few responses. */
const MESSAGES: { event: string; phase: 'request' | 'response'; payload: unknown }[] = [
  { event: 'tools/call', phase: 'request', payload: { name: 'dangerous_tool', arguments: {} } },
  { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'hi' } } },
  { event: 'tools/call', phase: 'request', payload: { name: 'read_file', arguments: { path: '/etc/shadow' } } },
  { event: 'tools/call', phase: 'request', payload: { name: 'read_file', arguments: { path: '/tmp/allowed/a.txt' } } },
  { event: 'tools/call', phase: 'request', payload: { name: 'write_file', arguments: { path: '/tmp/allowed/a.txt', content: 'x' } } },
  { event: 'tools/call', phase: 'request', payload: { name: 'delete_everything', arguments: {} } },
  { event: 'tools/call', phase: 'response', payload: { content: [{ type: 'text', text: 'key AKIAIOSFODNN7EXAMPLE' }] } },
  { event: 'prompts/get', phase: 'request', payload: { name: 'admin_reset', arguments: {} } },
  { event: 'prompts/get', phase: 'request', payload: { name: 'simple_prompt' } },
  { event: 'resources/read', phase: 'request', payload: { uri: 'file:///etc/passwd' } },
  { event: 'resources/read', phase: 'request', payload: { uri: 'file:///tmp/allowed/x' } },
  { event: 'sampling/createMessage', phase: 'request', payload: { messages: [], maxTokens: 100000 } },
  { event: 'elicitation/create', phase: 'request', payload: { message: 'card?', requestedSchema: { type: 'object', properties: { card: { type: 'string' } } } } },
  { event: 'llm/completion', phase: 'request', payload: { model: 'claude-x', max_tokens: 1e6, messages: [{ role: 'user', content: 'hi' }] } },
  { event: 'llm/completion', phase: 'request', payload: { model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] } },
  { event: 'roots/list', phase: 'response', payload: { roots: [{ uri: 'file:///' }] } },
  { event: 'ping', phase: 'request', payload: {} },
  { event: 'tasks/cancel', phase: 'request', payload: { taskId: 't' } },
];

const VARIANTS: ((e: string) => string)[] = [
  (e) => e,
  (e) => e,
  (e) => e.toUpperCase(),
  (e) => e.charAt(0).toUpperCase() + e.slice(1),
  (e) => e.replace(/\/(.)/, (_m, c: string) => `/${c.toUpperCase()}`),
  (e) => `${e}/x`,
  (e) => `${e}/`,
  (e) => `${e} `,
  (e) => `/${e}`,
  (e) => e.replace('/', '.'),
  (e) => `${e.slice(0, 1)}\u200b${e.slice(1)}`,
  (e) => `${e}*`,
];

const arbCase = fc.record({
  message: fc.constantFrom(...MESSAGES),
  variant: fc.constantFrom(...VARIANTS),
  interceptors: fc.option(fc.shuffledSubarray([...NAMES, 'nope']).chain((xs) => fc.shuffledSubarray(xs, { minLength: xs.length, maxLength: xs.length })), { nil: undefined }),
  context: fc.record(
    {
      principal: fc.constantFrom('ci-bot', 'admin', 'local-operator', 'root'),
      onBehalfOf: fc.constantFrom('ci-bot', 'release-team'),
      server: fc.constantFrom('everything', 'filesystem', 'evil'),
      sessionId: fc.constantFrom('s1', 's2'),
    },
    { requiredKeys: [] },
  ),
});

interface Answer {
  effect?: 'allow' | 'deny';
  code?: string;
}

async function ask(s: Server, via: 'rest' | 'mcp', params: Record<string, unknown>, h: Record<string, string> = {}): Promise<Answer> {
  if (via === 'rest') {
    const r = await post(`${s.url}/v1/authorize`, params, h);
    return r.status === 200 ? { effect: r.json.effect } : { code: r.json.error?.code };
  }
  const r = await post(`${s.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'interceptor/executeChain', params }, h);
  if (r.json.error) return { code: r.json.error.data?.code };
  return { effect: r.json.result.status === 'success' ? 'allow' : 'deny' };
}

// Dev mode (the local operator holds every role, delegate included) and auth mode with a caller
// that may not delegate: the property holds for both.
describe.each([
  ['dev mode', false],
  ['auth mode, no delegate role', true],
])('property (%s): nothing a caller sends makes a decision more permissive than the mandatory chain', (_mode, auth) => {
  let s: Server;
  let h: Record<string, string> = {};
  beforeAll(async () => {
    if (!auth) s = await testServer();
    else {
      const issuer = await testIssuer();
      s = await testServer({ auth: issuer.auth });
      h = { authorization: `Bearer ${await issuer.token({ sub: 'alice', tenant: 'acme', roles: ['enforce'] })}` };
    }
  });
  afterAll(async () => {
    await s?.close();
  });

  for (const via of ['rest', 'mcp'] as const) {
    it(`over ${via}`, async () => {
      await fc.assert(
        fc.asyncProperty(arbCase, async ({ message, variant, interceptors, context }) => {
          // The baseline first: the full chain, the canonical event, the caller's own principal, the
          // same server and session (so stateful interceptors have counted it before the variant).
          const { principal: _p, onBehalfOf: _o, ...own } = context;
          const base = await ask(s, via, { ...message, ...(Object.keys(own).length > 0 && { context: own }) }, h);
          expect(base.effect, JSON.stringify(base)).toBeDefined();
          const event = variant(message.event);
          const got = await ask(s, via, { ...message, event, ...(interceptors && { interceptors }), context }, h);
          if (!isKnownEvent(event)) expect(got).toEqual({ code: 'ERR_UNKNOWN_EVENT' });
          if (got.effect === 'allow') expect(base.effect).toBe('allow');
          if (got.effect === undefined) expect(['ERR_UNKNOWN_EVENT', 'ERR_UNKNOWN_INTERCEPTOR', 'ERR_FORBIDDEN', 'ERR_INPUT']).toContain(got.code);
        }),
        { numRuns: auth ? 40 : 60 },
      );
    }, 120_000);
  }
});
