// decide(): chain -> decision -> entry -> append -> receipt, over the real SQLite log. Fail
// closed: a crashing interceptor, a Cedar evaluation error, a signer or store failure never
// produce an allow.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { digestJson, fromBase64, utf8 } from '../src/canonical/index.js';
import { decide, decisionRecord, type ActivePolicy } from '../src/decide.js';
import { createMemoryStateStores } from '../src/interceptors/builtin/index.js';
import { builtinFactories } from '../src/interceptors/builtin/index.js';
import { Appender, decodeEntry, verifyLog } from '../src/log/index.js';
import { loadPolicySet } from '../src/policy/index.js';
import { openSqliteStore } from '../src/store/node.js';
import { crash, deny, mutator, validator } from './interceptors/chain-kit.js';
import { testKeys } from './helpers/keys.js';

const keys = testKeys();
const ORIGIN = 'test.vouch/decide';
const CTX = { time: '2026-11-30T10:00:00Z', principal: 'alice', tenant: 'default', sessionId: 's1' };
const CALL = { event: 'tools/call', phase: 'request' as const, payload: { name: 'echo', arguments: { text: 'hi' } } };

function log() {
  const store = openSqliteStore(join(mkdtempSync(join(tmpdir(), 'vouch-decide-')), 'log.db'));
  return { store, appender: Appender.open({ origin: ORIGIN, storage: store, signers: keys.signers }) };
}

function policy(interceptors: ActivePolicy['interceptors']): ActivePolicy {
  return { interceptors, chainDigest: digestJson({ c: 1 }), policyDigest: digestJson({ p: 1 }), engines: { vouch: 'test' }, options: {} };
}

const upper = mutator('upper', (p) => {
  const o = p as { arguments: { text: string } };
  return { modified: true, payload: { ...o, arguments: { text: o.arguments.text.toUpperCase() } } };
});

describe('decide', () => {
  it('allows, records input and intent digests apart, stores both payloads, and returns a receipt', async () => {
    const { store, appender } = log();
    const out = await decide({ ...CALL, context: CTX }, { policy: policy([upper]), log: appender });
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

  it('a signer failure is an error, never an allow, and writes nothing', async () => {
    const store = openSqliteStore(join(mkdtempSync(join(tmpdir(), 'vouch-decide-')), 'log.db'));
    const broken = [{ ...keys.signers[0], sign: async () => Promise.reject(new Error('hsm unplugged')) }];
    const appender = Appender.open({ origin: ORIGIN, storage: store, signers: broken });
    await expect(decide({ ...CALL, context: CTX }, { policy: policy([]), log: appender })).rejects.toMatchObject({ code: 'ERR_STORE' });
    expect(store.size()).toBe(0);
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
});
