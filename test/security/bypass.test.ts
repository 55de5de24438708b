// Issue 14 items 1-3 as an attacker plays them against the real service (as `npm start` runs it:
// the bundled example config), over REST /v1/authorize and /mcp interceptor/executeChain: a chain
// the caller trims, event names no policy hooks, the response phase, a principal the caller picks.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { get, post, testIssuer, testServer, writeConfig } from '../http/_server.js';

type Server = Awaited<ReturnType<typeof testServer>>;
const DANGEROUS = { name: 'dangerous_tool', arguments: {} };
const example = parseYaml(readFileSync(new URL('../../fixtures/config/vouch.example.yaml', import.meta.url), 'utf8')) as {
  uncovered?: { events: string[]; phase: string }[];
};

const rest = (s: Server, body: unknown, h: Record<string, string> = {}) => post(`${s.url}/v1/authorize`, body, h);
const mcp = (s: Server, params: unknown, h: Record<string, string> = {}) => post(`${s.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'interceptor/executeChain', params }, h);
const size = async (s: Server, h: Record<string, string> = {}) => (await get(`${s.url}/v1/checkpoint`, h)).json.size as number;
const entry = async (s: Server, seq: number, h: Record<string, string> = {}) => (await get(`${s.url}/v1/entries/${seq}`, h)).json.entry as Record<string, any>;

/** Both entry points' answers as one shape: effect, seq and chain, or the coded error. */
async function ask(s: Server, via: 'rest' | 'mcp', params: Record<string, unknown>, h: Record<string, string> = {}) {
  if (via === 'rest') {
    const r = await rest(s, params, h);
    if (r.status !== 200) return { status: r.status, code: r.json.error?.code as string };
    return { status: 200, effect: r.json.effect as string, seq: r.json.seq as number, chain: r.json.chain, receipt: r.json.receipt };
  }
  const r = await mcp(s, params, h);
  if (r.json.error) return { status: r.status, code: r.json.error.data?.code as string, rpc: r.json.error.code as number };
  const res = r.json.result;
  return { status: 200, effect: res.status === 'success' ? 'allow' : 'deny', seq: res._meta['io.vouch/seq'] as number, chain: res, receipt: res._meta['io.vouch/receipt'] };
}

describe('issue 14 against the example config (dev mode, as npm start runs it)', () => {
  let s: Server;
  beforeAll(async () => {
    s = await testServer();
  });
  afterAll(async () => {
    await s?.close();
  });

  describe('1. the configured chain is mandatory', () => {
    for (const via of ['rest', 'mcp'] as const) {
      for (const interceptors of [[], ['pii'], ['audit', 'secrets'], ['pii', 'pii']]) {
        it(`${via}: interceptors ${JSON.stringify(interceptors)} cannot skip authz: dangerous_tool is denied`, async () => {
          const r = await ask(s, via, { event: 'tools/call', phase: 'request', interceptors, payload: DANGEROUS });
          expect(r.effect).toBe('deny');
          expect(r.chain.abortedAt.interceptor).toBe('authz');
          const e = await entry(s, r.seq!);
          expect(e.only).toEqual(interceptors); // what was asked
          expect(e.ran).toContain('authz'); // what ran
          expect(e.ran).toContain('rate');
        });
      }
    }

    it('the same call without a list is denied the same way (the baseline)', async () => {
      const r = await ask(s, 'rest', { event: 'tools/call', phase: 'request', payload: DANGEROUS });
      expect(r.effect).toBe('deny');
      expect((await entry(s, r.seq!)).only).toBeUndefined();
    });

    it('a per-call config cannot switch a mandatory interceptor to audit mode', async () => {
      for (const via of ['rest', 'mcp'] as const) {
        const r = await ask(s, via, { event: 'tools/call', phase: 'request', payload: DANGEROUS, config: { authz: { mode: 'audit' } } });
        expect(r.effect).toBeUndefined();
        expect(r.code).toBe('ERR_INPUT');
      }
    });
  });

  describe('2. default deny for traffic no policy covers', () => {
    for (const via of ['rest', 'mcp'] as const) {
      for (const event of ['tools/Call', 'tools/call/x', 'admin/shutdown', 'Tools/call', 'llm/Completion', 'roots/list/']) {
        it(`${via}: event ${JSON.stringify(event)} is bad input, never a decision`, async () => {
          const before = await size(s);
          const r = await ask(s, via, { event, phase: 'request', payload: DANGEROUS });
          expect(r.effect).toBeUndefined();
          expect(r.code).toBe('ERR_UNKNOWN_EVENT');
          if (via === 'rest') expect(r.status).toBe(400);
          else expect(r.rpc).toBe(-32602);
          expect(await size(s)).toBe(before);
        });
      }
    }

    it('llm/completion with a card number, an AWS key and max_tokens 1e6 is denied', async () => {
      const payload = {
        model: 'claude-x',
        max_tokens: 1e6,
        messages: [{ role: 'user', content: 'card 4111 1111 1111 1111, key AKIAIOSFODNN7EXAMPLE' }],
      };
      for (const via of ['rest', 'mcp'] as const) {
        const r = await ask(s, via, { event: 'llm/completion', phase: 'request', payload });
        expect(r.effect).toBe('deny');
        expect(JSON.stringify(r.chain.finalPayload ?? '')).not.toContain('AKIAIOSFODNN7EXAMPLE');
      }
    });

    it('roots/list exposing file:/// is denied, either way', async () => {
      for (const phase of ['request', 'response']) {
        const r = await ask(s, 'rest', { event: 'roots/list', phase, payload: { roots: [{ uri: 'file:///', name: 'disk' }] } });
        expect(r.effect).toBe('deny');
      }
    });

    it('a known event no authorization interceptor hooks is denied, saying so (ping, tasks/cancel)', async () => {
      for (const event of ['ping', 'tasks/cancel'].filter((e) => !coveredByExample(e, 'request'))) {
        const r = await ask(s, 'rest', { event, phase: 'request', payload: {} });
        expect(r.effect).toBe('deny');
        expect(r.chain.abortedAt).toMatchObject({ interceptor: '(vouch)', reason: `no authorization interceptor covers ${event} request` });
        expect((await entry(s, r.seq!)).state['(vouch)']).toEqual({ uncovered: 'deny' });
      }
    });

    it('phase response does not skip request-only checks: denied, or allowed only as a recorded, configured pass-through', async () => {
      for (const via of ['rest', 'mcp'] as const) {
        const r = await ask(s, via, { event: 'tools/call', phase: 'response', payload: DANGEROUS });
        const e = await entry(s, r.seq!);
        expect(e.phase).toBe('response'); // the receipt can never pass for a request authorization
        if (coveredByExample('tools/call', 'response')) {
          expect(r.effect).toBe('allow');
          expect(e.state['(vouch)']).toEqual({ uncovered: 'allow' });
        } else {
          expect(r.effect).toBe('deny');
          expect(r.chain.abortedAt.reason).toBe('no authorization interceptor covers tools/call response');
        }
      }
    });
  });
});

/** Whether the example config lets (event, phase) through uncovered. */
function coveredByExample(event: string, phase: string): boolean {
  return (example.uncovered ?? []).some((r) => (r.phase === 'both' || r.phase === phase) && (r.events.includes(event) || r.events.includes('*')));
}

describe('2. with no uncovered rules, the response phase of a request-only policy is denied', () => {
  let s: Server;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-bypass-'));
    const config = writeConfig(dir, {
      version: 1,
      policies: { inline: { policies: 'permit(principal, action, resource);' } },
      interceptors: [
        { name: 'secrets', use: 'secret-redactor' },
        { name: 'authz', use: 'cedar-policy' },
      ],
    });
    s = await testServer({ config });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('tools/call response: no authorization interceptor covers it, so it is denied over both entry points', async () => {
    for (const via of ['rest', 'mcp'] as const) {
      const r = await ask(s, via, { event: 'tools/call', phase: 'response', payload: { content: [{ type: 'text', text: 'ok' }] } });
      expect(r.effect).toBe('deny');
      expect(r.chain.abortedAt).toMatchObject({ interceptor: '(vouch)', reason: 'no authorization interceptor covers tools/call response' });
    }
    const ok = await ask(s, 'rest', { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: {} } });
    expect(ok.effect).toBe('allow');
  });
});

describe('3. the principal is the credential\'s (auth mode)', () => {
  let s: Server;
  let issuer: Awaited<ReturnType<typeof testIssuer>>;
  const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
  let alice: Record<string, string>;
  let delegate: Record<string, string>;
  let auditor: Record<string, string>;

  beforeAll(async () => {
    issuer = await testIssuer();
    const dir = mkdtempSync(join(tmpdir(), 'vouch-bypass-'));
    const policies = [
      'permit(principal == User::"ci-bot", action == Action::"tools/call", resource);',
      'permit(principal, action == Action::"tools/call", resource == Tool::"deploy") when { context has onBehalfOf && context.onBehalfOf == "release-team" };',
      'permit(principal, action == Action::"tools/call", resource == Tool::"echo");',
    ].join('\n');
    const config = writeConfig(dir, {
      version: 1,
      policies: { inline: { policies } },
      interceptors: [
        { name: 'rate', use: 'rate-limit', config: { limit: 2, windowMs: 600000, key: ['principal'] } },
        { name: 'authz', use: 'cedar-policy' },
      ],
    });
    s = await testServer({ config, auth: issuer.auth });
    alice = bearer(await issuer.token({ sub: 'alice', tenant: 'acme', roles: ['enforce'] }));
    delegate = bearer(await issuer.token({ sub: 'carol', tenant: 'acme', roles: ['enforce', 'delegate'] }));
    auditor = bearer(await issuer.token({ sub: 'audit', tenant: 'acme', roles: ['audit'] }));
  });
  afterAll(async () => {
    await s?.close();
  });

  for (const via of ['rest', 'mcp'] as const) {
    it(`${via}: alice naming ci-bot as principal gets 403 ERR_FORBIDDEN, and nothing is logged`, async () => {
      const before = await size(s, auditor);
      for (const context of [{ principal: 'ci-bot' }, { onBehalfOf: 'ci-bot' }, { principal: 'ci-bot', onBehalfOf: 'ci-bot' }]) {
        const r = await ask(s, via, { event: 'tools/call', phase: 'request', payload: DANGEROUS, context }, alice);
        expect(r.effect).toBeUndefined();
        expect(r.code).toBe('ERR_FORBIDDEN');
        if (via === 'rest') expect(r.status).toBe(403);
      }
      expect(await size(s, auditor)).toBe(before);
    });
  }

  it('alice naming herself is just alice', async () => {
    const r = await ask(s, 'rest', { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: {} }, context: { principal: 'alice' } }, alice);
    expect(r.effect).toBe('allow');
    const e = await entry(s, r.seq!, auditor);
    expect(e.principal).toBe('alice');
    expect(e.onBehalfOf).toBeUndefined();
  });

  it('a delegate acting for ci-bot is still the principal: no ci-bot permits; recorded as onBehalfOf', async () => {
    for (const context of [{ principal: 'ci-bot' }, { onBehalfOf: 'ci-bot' }]) {
      const r = await ask(s, 'rest', { event: 'tools/call', phase: 'request', payload: DANGEROUS, context }, delegate);
      expect(r.effect).toBe('deny');
      const e = await entry(s, r.seq!, auditor);
      expect(e).toMatchObject({ principal: 'carol', onBehalfOf: 'ci-bot', caller: 'carol' });
    }
  });

  it('Cedar sees context.onBehalfOf, and only when it is set', async () => {
    const deploy = { name: 'deploy', arguments: {} };
    // A delegate of its own: rate-limit (2 per principal) already counted carol's calls above.
    const delegate = bearer(await issuer.token({ sub: 'dave', tenant: 'acme', roles: ['enforce', 'delegate'] }));
    const mine = await ask(s, 'mcp', { event: 'tools/call', phase: 'request', payload: deploy, context: { onBehalfOf: 'release-team' } }, delegate);
    expect(mine.effect).toBe('allow');
    const none = await ask(s, 'mcp', { event: 'tools/call', phase: 'request', payload: deploy }, delegate);
    expect(none.effect).toBe('deny');
  });

  it('rotating context.principal does not defeat rate-limit keyed on the principal', async () => {
    const bob = bearer(await issuer.token({ sub: 'bob', tenant: 'acme', roles: ['enforce', 'delegate'] }));
    const effects: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await ask(s, 'rest', { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: {} }, context: { principal: `bot-${i}` } }, bob);
      effects.push(r.effect!);
    }
    expect(effects).toEqual(['allow', 'allow', 'deny', 'deny']);
  });

  it('/v1/executions: a principal other than the caller needs the delegate role, and is recorded as onBehalfOf', async () => {
    const body = { authorization: null, executed: { name: 'echo', arguments: {} }, context: { principal: 'ci-bot' } };
    const before = await size(s, auditor);
    const refused = await post(`${s.url}/v1/executions`, body, alice);
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe('ERR_FORBIDDEN');
    expect(await size(s, auditor)).toBe(before);
    const ok = await post(`${s.url}/v1/executions`, body, delegate);
    expect(ok.status).toBe(200);
    expect(await entry(s, ok.json.seq, auditor)).toMatchObject({ type: 'execution', principal: 'carol', onBehalfOf: 'ci-bot' });
  });
});
