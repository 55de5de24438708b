// vouch's own checks before a response decision: the link to the request decision (explicit in
// _meta, else the session/trace fallback), and the drift guard that denies under failOnCritical,
// recorded so that replay reproduces the deny from the entry alone.
import { afterAll, describe, expect, it } from 'vitest';
import { utf8 } from '../../src/canonical/index.js';
import { decide, decisionRecord, denyResult, guardDenyOf, GUARD_STATE_KEY, runPrechecks, type PrecheckRequest } from '../../src/decide/index.js';
import { parseDriftConfig, RecentAuthorizations } from '../../src/execution/index.js';
import { EMPTY_POLICY, T, testLog } from '../execution/_log.js';

const log = testLog();
afterAll(() => log.close());

const call = { name: 'transfer', arguments: { account: 'DE001', amount: 10, memo: 'rent', requestId: 'a' } };
const ctx = { time: T, tenant: 'acme', principal: 'agent-1', sessionId: 's1', traceId: 't1' };
const strict = parseDriftConfig({ failOnCritical: true });
const lenient = parseDriftConfig({});
const entryOf = (bytes: Uint8Array) => JSON.parse(utf8.decode(bytes));

/** One decision as the service makes it: prechecks, then decide with their extras and guards. */
async function decideWith(req: PrecheckRequest, opts: { drift?: typeof strict; recent?: RecentAuthorizations; tenant?: string; principal?: string } = {}) {
  const pre = await runPrechecks(req, { tenant: opts.tenant ?? 'acme', principal: opts.principal ?? 'agent-1', log, drift: opts.drift ?? lenient, recent: opts.recent });
  const outcome = await decide(
    { event: req.event, phase: req.phase, payload: req.payload, context: { ...ctx, principal: opts.principal ?? ctx.principal, sessionId: req.sessionId, traceId: req.traceId }, extra: pre.extra, guards: pre.guards, attachments: pre.attachments },
    { policy: EMPTY_POLICY, log },
  );
  pre.after({ effect: outcome.effect, seq: outcome.appended.seq });
  return { outcome, entry: entryOf(outcome.appended.bytes) };
}

const request = (recent?: RecentAuthorizations, trace = 't1') => decideWith({ event: 'tools/call', phase: 'request', payload: call, sessionId: 's1', traceId: trace }, { recent });
const response = (meta: Record<string, unknown> | undefined, opts: Parameters<typeof decideWith>[1] = {}, trace = 't1') =>
  decideWith({ event: 'tools/call', phase: 'response', payload: { content: [{ type: 'text', text: 'done' }] }, meta, sessionId: 's1', traceId: trace }, opts);

describe('response-phase link and drift', () => {
  it('links a response to the request decision named in _meta', async () => {
    const req = await request();
    const { outcome, entry } = await response({ 'io.vouch/authorization': req.outcome.appended.seq });
    expect(outcome.effect).toBe('allow');
    expect(entry.authorization).toBe(req.outcome.appended.seq);
    expect(entry.state[GUARD_STATE_KEY].execution).toEqual({ via: 'meta', authorization: req.outcome.appended.seq });
  });

  it('records a named link that is no authorization as null, with why', async () => {
    const { outcome, entry } = await response({ 'io.vouch/authorization': 999_999 });
    expect(outcome.effect).toBe('allow'); // no executed parameters reported: nothing to deny
    expect(entry.authorization).toBeNull();
    expect(entry.state[GUARD_STATE_KEY].execution.problem).toMatch(/no entry 999999/);
  });

  it('falls back to the latest allowed request of the same session and trace', async () => {
    const recent = new RecentAuthorizations();
    await request(recent, 't-fallback');
    const latest = await request(recent, 't-fallback');
    await request(recent, 't-other');
    const { entry } = await response(undefined, { recent }, 't-fallback');
    expect(entry.authorization).toBe(latest.outcome.appended.seq);
    expect(entry.state[GUARD_STATE_KEY].execution.via).toBe('session-trace');
    // A denied request of the trace ends its link: no fallback to the older allow.
    await decideWith({ event: 'tools/call', phase: 'request', payload: { n: Number.NaN }, sessionId: 's1', traceId: 't-fallback' }, { recent });
    expect((await response(undefined, { recent }, 't-fallback')).entry.authorization).toBeUndefined();
    // No request seen for this trace, and no executed parameters: the entry says nothing of links.
    const none = await response(undefined, { recent }, 't-never');
    expect(none.entry.authorization).toBeUndefined();
    expect(none.entry.state[GUARD_STATE_KEY]).toEqual({ uncovered: 'allow' }); // no execution guard; EMPTY_POLICY passes uncovered traffic
  });

  it('records the drift of reported executed parameters; lenient rules allow', async () => {
    const req = await request();
    const executed = { ...call, arguments: { ...call.arguments, account: 'XX999' } };
    const { outcome, entry } = await response({ 'io.vouch/authorization': req.outcome.appended.seq, 'io.vouch/executed': executed });
    expect(outcome.effect).toBe('allow');
    const rec = entry.state[GUARD_STATE_KEY].execution;
    expect(rec.drift).toEqual({ severity: 'critical', count: 1, items: [{ path: '/arguments/account', op: 'replace', severity: 'critical' }] });
    expect(rec.intent).toBe(req.outcome.intentDigest);
    expect(entry.executed.digest).toBe(rec.executed);
    expect(await log.payload(rec.executed)).toBeDefined();
  });

  it('failOnCritical: critical drift denies the response, and the entry alone reproduces the deny', async () => {
    const req = await request();
    const executed = { ...call, arguments: { ...call.arguments, amount: 10_000 } };
    const { outcome, entry } = await response({ 'io.vouch/authorization': req.outcome.appended.seq, 'io.vouch/executed': executed }, { drift: strict });
    expect(outcome.effect).toBe('deny');
    expect(outcome.chain.abortedAt).toEqual({ interceptor: '(vouch)', type: 'validation', reason: expect.stringContaining('/arguments/amount (replace)') });
    expect(entry.decision.effect).toBe('deny');
    // Replay: the recorded state gives the same reason, and the same canonical decision.
    const reason = guardDenyOf(entry.state);
    expect(reason).toBe(outcome.chain.abortedAt!.reason);
    expect(decisionRecord(denyResult(entry.event, entry.phase, null, reason!))).toEqual(entry.decision);
  });

  it('failOnCritical: benign drift still allows', async () => {
    const req = await request();
    const executed = { ...call, arguments: { ...call.arguments, requestId: 'b' } };
    const { outcome, entry } = await response({ 'io.vouch/authorization': req.outcome.appended.seq, 'io.vouch/executed': executed }, { drift: strict });
    expect(outcome.effect).toBe('allow');
    expect(entry.state[GUARD_STATE_KEY].execution.drift.severity).toBe('benign');
    expect(guardDenyOf(entry.state)).toBeUndefined();
  });

  it('failOnCritical: executed parameters that nothing authorized are denied (fail closed)', async () => {
    const { outcome, entry } = await response({ 'io.vouch/executed': call }, { drift: strict }, 't-unlinked');
    expect(outcome.effect).toBe('deny');
    expect(entry.authorization).toBeNull();
    expect(guardDenyOf(entry.state)).toMatch(/no authorization/);
  });

  it('another tenant cannot link to a decision (tenant checked on the entry)', async () => {
    const req = await request();
    const { entry } = await response({ 'io.vouch/authorization': req.outcome.appended.seq }, { tenant: 'globex' });
    expect(entry.authorization).toBeNull();
  });

  it('rejects a malformed authorization link as bad input', async () => {
    await expect(runPrechecks({ event: 'tools/call', phase: 'response', payload: {}, meta: { 'io.vouch/authorization': 'seven' } }, { tenant: 'acme', principal: 'agent-1', log, drift: lenient })).rejects.toMatchObject({
      code: 'ERR_INPUT',
      issues: [{ path: '/_meta/io.vouch/authorization', message: expect.any(String) }],
    });
  });

  it('the fallback index is bounded per tenant, keyed by principal, and needs both session and trace', () => {
    const r = new RecentAuthorizations(2);
    const a = { tenant: 'a', principal: 'p' };
    r.remember(a, 's', '1', 1);
    r.remember(a, 's', '2', 2);
    r.remember(a, 's', '3', 3);
    expect(r.lookup(a, 's', '1')).toBeUndefined(); // oldest forgotten
    expect(r.lookup(a, 's', '3')).toBe(3);
    expect(r.lookup({ tenant: 'b', principal: 'p' }, 's', '3')).toBeUndefined(); // per tenant
    expect(r.lookup({ tenant: 'a', principal: 'q' }, 's', '3')).toBeUndefined(); // per principal: the ids are the caller's word
    expect(r.lookup({ tenant: 'a', principal: 'q', onBehalfOf: 'p' }, 's', '3')).toBeUndefined(); // acting for p is not being p
    r.forget({ tenant: 'a', principal: 'q' }, 's', '3'); // another principal cannot end p's link
    expect(r.lookup(a, 's', '3')).toBe(3);
    r.forget(a, 's', '3');
    expect(r.lookup(a, 's', '3')).toBeUndefined();
    r.remember(a, 's', undefined, 4);
    expect(r.lookup(a, 's', undefined)).toBeUndefined();
  });

  it("another principal's response neither links to nor names a principal's decision (by _meta seq or by its session and trace)", async () => {
    const recent = new RecentAuthorizations();
    const req = await request(recent, 't-mine');
    const seq = req.outcome.appended.seq;
    const byMeta = await response({ 'io.vouch/authorization': seq, 'io.vouch/executed': { name: 'other' } }, { principal: 'agent-2', drift: strict });
    expect(byMeta.entry.authorization).toBeNull();
    expect(byMeta.entry.state[GUARD_STATE_KEY].execution).toMatchObject({ via: 'meta', authorization: null, problem: `decision ${seq} was made for another principal` });
    expect(JSON.stringify(byMeta.entry)).not.toContain('DE001');
    expect(byMeta.outcome.effect).toBe('deny'); // failOnCritical: executed parameters with no authorization
    const bySession = await response(undefined, { recent, principal: 'agent-2' }, 't-mine');
    expect(bySession.entry.authorization).toBeUndefined();
    // A delegate acting for agent-1 may follow the link; the owner's own response does by fallback.
    const pre = await runPrechecks({ event: 'tools/call', phase: 'response', payload: {}, meta: { 'io.vouch/authorization': seq }, onBehalfOf: 'agent-1' }, { tenant: 'acme', principal: 'agent-2', log, drift: lenient });
    expect(pre.extra.authorization).toBe(seq);
    expect((await response(undefined, { recent }, 't-mine')).entry.authorization).toBe(seq);
  });
});

describe('decide with guards', () => {
  it('records guard state under (vouch) and leaves the chain state alone', async () => {
    const d = await decide({ event: 'tools/call', phase: 'request', payload: call, context: ctx, guards: [{ name: 'check', record: { ok: true } }] }, { policy: EMPTY_POLICY, log });
    expect(d.effect).toBe('allow');
    expect(entryOf(d.appended.bytes).state).toEqual({ [GUARD_STATE_KEY]: { check: { ok: true }, uncovered: 'allow' } });
  });

  it('joins the reasons of several denying guards in name order', () => {
    expect(guardDenyOf({ [GUARD_STATE_KEY]: { b: { deny: 'second' }, a: { deny: 'first' }, c: { ok: true } } })).toBe('first; second');
    expect(guardDenyOf({ other: { deny: 'x' } })).toBeUndefined();
  });
});
