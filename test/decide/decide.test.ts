// decide(): chain -> decision -> entry -> append -> receipt, over the real SQLite log. Fail
// closed: a crashing interceptor, a Cedar evaluation error, a signer or store failure never
// produce an allow. The configured chain is mandatory (a caller selects optional interceptors
// only), and traffic no authorization interceptor covers is denied unless the config says so.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { digestJson, fromBase64, utf8 } from '../../src/canonical/index.js';
import { decide, decisionRecord, type ActivePolicy } from '../../src/decide/index.js';
import { createMemoryStateStores } from '../../src/interceptors/builtin/index.js';
import { builtinFactories } from '../../src/interceptors/builtin/index.js';
import { Appender, decodeEntry, verifyLog } from '../../src/log/index.js';
import { loadPolicySet } from '../../src/policy/index.js';
import { openSqliteStore } from '../../src/store/node.js';
import { allow, crash, deny, mutator, validator } from '../interceptors/chain-kit.js';
import type { Interceptor } from '../../src/interceptors/types.js';
import { testKeys } from '../helpers/keys.js';

const keys = testKeys();
const ORIGIN = 'test.vouch/decide';
const CTX = { time: '2026-11-30T10:00:00Z', principal: 'alice', tenant: 'default', sessionId: 's1' };
const CALL = { event: 'tools/call', phase: 'request' as const, payload: { name: 'echo', arguments: { text: 'hi' } } };

function log() {
  const store = openSqliteStore(join(mkdtempSync(join(tmpdir(), 'vouch-decide-')), 'log.db'));
  return { store, appender: Appender.open({ origin: ORIGIN, storage: store, signers: keys.signers }) };
}

function policy(interceptors: ActivePolicy['interceptors'], extra: Partial<ActivePolicy> = {}): ActivePolicy {
  return { interceptors, chainDigest: digestJson({ c: 1 }), policyDigest: digestJson({ p: 1 }), engines: { vouch: 'test' }, options: {}, ...extra };
}

/** An authorization interceptor (it covers tools/call both ways) that allows. */
const authz = (): Interceptor => Object.assign(validator('authz', allow), { authorizes: true });
const entryOf = (out: { receipt: { entry: string } }) => decodeEntry(fromBase64(out.receipt.entry)) as Record<string, any>;

const upper = mutator('upper', (p) => {
  const o = p as { arguments: { text: string } };
  return { modified: true, payload: { ...o, arguments: { text: o.arguments.text.toUpperCase() } } };
});

describe('decide', () => {
  it('allows, records input and intent digests apart, stores both payloads, and returns a receipt', async () => {
    const { store, appender } = log();
    const out = await decide({ ...CALL, context: CTX }, { policy: policy([upper, authz()]), log: appender });
    expect(out.effect).toBe('allow');
    expect(out.finalPayload).toEqual({ name: 'echo', arguments: { text: 'HI' } });
    const entry = decodeEntry(fromBase64(out.receipt.entry)) as Record<string, any>;
    expect(entry.input.digest).toBe(digestJson(CALL.payload));
    expect(entry.intent.digest).toBe(digestJson(out.finalPayload));
    expect(entry.decision).toEqual(decisionRecord(out.chain));
    expect(entry).toMatchObject({ type: 'decision', principal: 'alice', session: 's1', direction: 'sending', server: 'echo' });
    expect(JSON.parse(utf8.decode(store.payload(entry.intent.digest)!))).toEqual(out.finalPayload);
    expect(JSON.parse(utf8.decode(store.payload(entry.input.digest)!))).toEqual(CALL.payload);
    await appender.close();
    expect(verifyLog(store, { origin: ORIGIN, verifiers: keys.verifiers }).findings).toEqual([]);
  });

  it('a crashing interceptor is a recorded deny', async () => {
    const { appender } = log();
    const out = await decide({ ...CALL, context: CTX }, { policy: policy([validator('boom', crash)]), log: appender });
    expect(out.effect).toBe('deny');
    const entry = decodeEntry(fromBase64(out.receipt.entry)) as Record<string, any>;
    expect(entry.decision.effect).toBe('deny');
    expect(entry.intent).toBeNull();
  });

  it('a Cedar evaluation error is a deny', async () => {
    const { appender } = log();
    // `context.arguments.missing` does not exist: evaluation errors, and vouch denies.
    const policySet = loadPolicySet({ policies: 'permit(principal, action, resource) when { context.arguments.missing == 1 };' });
    const authz = builtinFactories['cedar-policy']({ name: 'authz', config: undefined, declaration: {}, deps: { policySet, state: createMemoryStateStores() } });
    const out = await decide({ ...CALL, context: CTX }, { policy: policy([authz]), log: appender });
    expect(out.effect).toBe('deny');
  });

  it('a signer failure is an error, never an allow (the entry stays durable for the next checkpoint)', async () => {
    const store = openSqliteStore(join(mkdtempSync(join(tmpdir(), 'vouch-decide-')), 'log.db'));
    const broken = [{ ...keys.signers[0], sign: async () => Promise.reject(new Error('hsm unplugged')) }];
    const appender = Appender.open({ origin: ORIGIN, storage: store, signers: broken });
    await expect(decide({ ...CALL, context: CTX }, { policy: policy([]), log: appender })).rejects.toMatchObject({ code: 'ERR_STORE' });
    // Durable before signed (issue 17): the entry was committed, no checkpoint signs it yet.
    expect(store.size()).toBe(1);
    expect(store.latestCheckpoint()).toBeUndefined();
  });

  it('a store failure is an error, never an allow', async () => {
    const { store, appender } = log();
    store.close();
    await expect(decide({ ...CALL, context: CTX }, { policy: policy([]), log: appender })).rejects.toMatchObject({ code: expect.stringMatching(/^ERR_STORE/) });
  });

  it('a deny by one validator wins over any number of allows and mutations', async () => {
    const { appender } = log();
    const out = await decide({ ...CALL, context: CTX }, { policy: policy([upper, validator('ok', () => ({ valid: true })), validator('no', () => deny('forbidden'))]), log: appender });
    expect(out.effect).toBe('deny');
    expect(out.finalPayload).toEqual(CALL.payload); // nothing authorized: the caller gets its input back
  });

  it('runs every mandatory interceptor whatever the caller selects, and records what was asked and what ran', async () => {
    const { appender } = log();
    const blocker = validator('blocker', () => deny('forbidden'));
    for (const only of [[], ['authz'], ['opt'], ['opt', 'authz']]) {
      const opt = Object.assign(validator('opt', allow), { optional: true });
      const out = await decide({ ...CALL, context: CTX, only }, { policy: policy([authz(), blocker, opt]), log: appender });
      expect(out.effect).toBe('deny');
      const entry = entryOf(out);
      expect(entry.only).toEqual(only);
      expect(entry.ran).toEqual(['authz', 'blocker', ...(only.includes('opt') ? ['opt'] : [])]);
    }
  });

  it('an optional interceptor the caller leaves out does not run; one it names does', async () => {
    const { appender } = log();
    const opt = Object.assign(validator('opt', () => deny('opt says no')), { optional: true });
    const left = await decide({ ...CALL, context: CTX, only: [] }, { policy: policy([authz(), opt]), log: appender });
    expect(left.effect).toBe('allow');
    expect(entryOf(left).ran).toEqual(['authz']);
    const named = await decide({ ...CALL, context: CTX, only: ['opt'] }, { policy: policy([authz(), opt]), log: appender });
    expect(named.effect).toBe('deny');
    const all = await decide({ ...CALL, context: CTX }, { policy: policy([authz(), opt]), log: appender });
    expect(all.effect).toBe('deny');
  });

  it('denies what no active authorization interceptor covers, saying so, and records it', async () => {
    const { appender } = log();
    const cases: [string, Interceptor[]][] = [
      ['no authorizer at all', [upper]],
      ['an authorizer in audit mode', [Object.assign(validator('authz', allow, { mode: 'audit' }), { authorizes: true })]],
      ['an optional authorizer left out', [Object.assign(authz(), { optional: true })]],
    ];
    for (const [why, chain] of cases) {
      const out = await decide({ ...CALL, context: CTX, only: [] }, { policy: policy(chain), log: appender });
      expect(out.effect, why).toBe('deny');
      expect(out.chain.abortedAt).toEqual({ interceptor: '(vouch)', reason: 'no authorization interceptor covers tools/call request', type: 'validation' });
      const entry = entryOf(out);
      expect(entry.state['(vouch)']).toEqual({ uncovered: 'deny' });
      expect(entry.ran).toEqual([]);
    }
  });

  it('lets uncovered traffic through only where the config says so, recorded as uncovered: allow', async () => {
    const { appender } = log();
    const p = policy([upper], { uncovered: [{ events: ['tools/call'], phase: 'response' }] });
    const req = await decide({ ...CALL, context: CTX }, { policy: p, log: appender });
    expect(req.effect).toBe('deny');
    const res = await decide({ ...CALL, phase: 'response', context: CTX }, { policy: p, log: appender });
    expect(res.effect).toBe('allow');
    expect(entryOf(res).state['(vouch)']).toEqual({ uncovered: 'allow' });
    expect(entryOf(res).ran).toEqual(['upper']);
  });

  it('an unknown event is bad input, never a decision: nothing is logged', async () => {
    const { store, appender } = log();
    const p = policy([authz()], { events: ['acme/scan'], uncovered: [{ events: ['*'], phase: 'both' }] });
    for (const event of ['tools/Call', 'tools/call/x', 'admin/shutdown', 'TOOLS/CALL', 'tools/call ', '*', '']) {
      await expect(decide({ ...CALL, event, context: CTX }, { policy: p, log: appender }), event).rejects.toMatchObject({ code: 'ERR_UNKNOWN_EVENT' });
    }
    expect(store.size()).toBe(0);
    expect((await decide({ ...CALL, event: 'acme/scan', context: CTX }, { policy: p, log: appender })).effect).toBe('allow');
  });

  it('records onBehalfOf beside the principal and hands it to interceptors', async () => {
    const { appender } = log();
    let seen: unknown;
    const spy = Object.assign(validator('spy', (_p, ctx) => ((seen = { principal: ctx.principal, onBehalfOf: ctx.onBehalfOf }), { valid: true })), { authorizes: true });
    const out = await decide({ ...CALL, context: { ...CTX, onBehalfOf: 'ci-bot' } }, { policy: policy([spy]), log: appender });
    expect(seen).toEqual({ principal: 'alice', onBehalfOf: 'ci-bot' });
    expect(entryOf(out)).toMatchObject({ principal: 'alice', onBehalfOf: 'ci-bot' });
  });
});

describe('a "__proto__" member in a hostile payload (JSON.parse makes it an own member)', () => {
  // Plain assignment of a "__proto__" key in a copy would make it the copy's prototype instead:
  // interceptors would read its members as the payload's own, and the forwarded intent would lose it.
  const HOSTILE = '{"name":"echo","arguments":{"__proto__":{"text":"inherited"},"n":1}}';
  it('stays an own member through the chain: no interceptor reads it as inherited, and the intent keeps it', async () => {
    const { store, appender } = log();
    const seen: unknown[] = [];
    const look = validator('look', (p) => {
      const args = (p as { arguments: Record<string, unknown> }).arguments;
      seen.push([args.text, Object.getPrototypeOf(args) === Object.prototype, Object.keys(args)]);
      return { valid: true };
    });
    const copier = mutator('copier', (p) => ({ modified: true, payload: JSON.parse(JSON.stringify(p)) }));
    const out = await decide({ event: 'tools/call', phase: 'request', payload: JSON.parse(HOSTILE), context: CTX }, { policy: policy([look, copier, authz()]), log: appender });
    expect(out.effect).toBe('allow');
    expect(seen).toEqual([[undefined, true, ['__proto__', 'n']]]);
    const entry = entryOf(out);
    expect(entry.intent.digest).toBe(entry.input.digest); // the copy changed nothing
    expect(utf8.decode(store.payload(entry.intent.digest)!)).toBe('{"arguments":{"__proto__":{"text":"inherited"},"n":1},"name":"echo"}');
  });

  it('reaches Cedar as an attribute like any other', async () => {
    const { appender } = log();
    const policySet = loadPolicySet({ policies: 'permit(principal, action, resource);\nforbid(principal, action, resource) when { context.arguments has "__proto__" };' });
    const cedar = builtinFactories['cedar-policy']({ name: 'authz', config: undefined, declaration: {}, deps: { policySet, state: createMemoryStateStores() } });
    const out = await decide({ event: 'tools/call', phase: 'request', payload: JSON.parse(HOSTILE), context: CTX }, { policy: policy([cedar]), log: appender });
    expect(out.effect).toBe('deny');
    const clean = await decide({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { n: 1 } }, context: CTX }, { policy: policy([cedar]), log: appender });
    expect(clean.effect).toBe('allow');
  });
});
