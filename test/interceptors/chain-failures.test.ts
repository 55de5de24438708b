// Fail closed (and the declared exceptions): crashes, timeouts, fail-open, audit shadowing,
// atomic mutations, fire-and-forget observers, and the summary a deny carries.
import { describe, expect, it } from 'vitest';
import { decisionOf, executeChain } from '../../src/interceptors/chain.js';
import type { Interceptor } from '../../src/interceptors/types.js';
import { allow, crash, CTX, deny, mutator, observer, sleep, tagger, validator } from './chain-kit.js';

const req = (phase: 'request' | 'response' = 'request', payload: unknown = { note: 'hi' }) => ({ event: 'tools/call', phase, payload });
const never = () => new Promise<never>(() => {});

describe('validation', () => {
  it('blocks on valid:false + severity error in active mode, naming the first blocker', async () => {
    const chain = [validator('b', () => deny('second')), validator('a', () => deny('first')), validator('c', allow)];
    const { result } = await executeChain(chain, req(), CTX);
    expect(result.status).toBe('validation_failed');
    expect(decisionOf(result)).toBe('deny');
    expect(result.abortedAt).toEqual({ interceptor: 'a', reason: 'first', type: 'validation' });
    expect(result.validationSummary).toEqual({ errors: 2, warnings: 0, infos: 0 });
  });

  it('does not block on warnings or infos, and counts them', async () => {
    const chain = [
      validator('w', () => ({ valid: false, severity: 'warning', messages: [{ message: 'hmm', severity: 'warning' }, { message: 'fyi', severity: 'info' }] })),
      validator('i', () => ({ valid: true, severity: 'info' })),
    ];
    const { result } = await executeChain(chain, req(), CTX);
    expect(result.status).toBe('success');
    expect(result.validationSummary).toEqual({ errors: 0, warnings: 1, infos: 2 });
  });

  it('treats valid:false without a severity as an error (fail closed)', async () => {
    const { result } = await executeChain([validator('v', () => ({ valid: false }))], req(), CTX);
    expect(result.status).toBe('validation_failed');
    expect(result.results[0]).toMatchObject({ valid: false, severity: 'error' });
  });

  it('fails closed on a crash, and on a malformed outcome', async () => {
    for (const run of [crash, () => ({ valid: 'yes' }) as never, () => null as never, () => ({ valid: true, messages: [{ message: 1 }] }) as never]) {
      const { result } = await executeChain([validator('v', run)], req(), CTX);
      expect(result.status).toBe('validation_failed');
      expect(result.abortedAt).toMatchObject({ interceptor: 'v', type: 'validation' });
      expect(result.results[0]).toMatchObject({ interceptor: 'v', valid: false, severity: 'error' });
    }
    const { result } = await executeChain([validator('v', crash)], req(), CTX);
    expect(result.abortedAt?.reason).toBe('boom');
    expect(result.results[0]).toMatchObject({ messages: [{ message: 'interceptor failed: boom', severity: 'error' }], info: { error: 'boom' } });
  });

  it('skips a failOpen validator that crashes, recording why', async () => {
    const { result } = await executeChain([validator('v', crash, { failOpen: true }), validator('ok', allow)], req(), CTX);
    expect(result.status).toBe('success');
    expect(result.results[1]).toMatchObject({ interceptor: 'v', valid: false, severity: 'warning', info: { failOpen: true, error: 'boom' } });
    expect(result.validationSummary.warnings).toBe(1);
  });

  it('never blocks in audit mode: denials and crashes are recorded only', async () => {
    const chain = [validator('deny', () => deny('audited'), { mode: 'audit' }), validator('crash', crash, { mode: 'audit' })];
    const { result } = await executeChain(chain, req(), CTX);
    expect(result.status).toBe('success');
    expect(result.results.find((r) => r.interceptor === 'deny')).toMatchObject({ valid: false, severity: 'error' });
    expect(result.results.find((r) => r.interceptor === 'crash')).toMatchObject({ info: { mode: 'audit', error: 'boom' } });
    expect(result.validationSummary).toEqual({ errors: 1, warnings: 1, infos: 0 });
  });

  it('receiving: a blocking validator stops the mutations after it', async () => {
    let mutated = false;
    const m = mutator('m', () => ((mutated = true), { modified: true, payload: {} }));
    const { result } = await executeChain([validator('v', () => deny()), m], req('response'), CTX);
    expect(result.status).toBe('validation_failed');
    expect(mutated).toBe(false);
    expect(result.finalPayload).toEqual({ note: 'hi' });
  });
});

describe('mutation', () => {
  it('is atomic: a failing mutator voids the ones before it', async () => {
    let validated = false;
    const chain = [tagger('a'), tagger('b'), mutator('c', crash), tagger('d'), validator('v', () => ((validated = true), allow()))];
    const { result } = await executeChain(chain, req('request', { note: 'hi' }), CTX);
    expect(result.status).toBe('mutation_failed');
    expect(result.finalPayload).toEqual({ note: 'hi' });
    expect(result.abortedAt).toEqual({ interceptor: 'c', reason: 'boom', type: 'mutation' });
    expect(result.results.map((r) => r.interceptor)).toEqual(['a', 'b', 'c']);
    expect(validated).toBe(false);
  });

  it('fails on a mutation that is not JSON, or modified without a payload', async () => {
    for (const run of [() => ({ modified: true, payload: { d: new Date() } }), () => ({ modified: true }) as never, () => ({ modified: true, payload: { n: Number.NaN } })]) {
      const { result } = await executeChain([mutator('m', run)], req(), CTX);
      expect(result.status).toBe('mutation_failed');
    }
  });

  it('skips a failOpen mutator that crashes; the others still apply', async () => {
    const { result } = await executeChain([tagger('a'), mutator('b', crash, { failOpen: true }), tagger('c')], req('request', {}), CTX);
    expect(result.status).toBe('success');
    expect(result.finalPayload).toEqual({ trail: ['a', 'c'] });
    expect(result.results[1]).toEqual({ interceptor: 'b', type: 'mutation', phase: 'request', modified: false, payload: { trail: ['a'] }, info: { error: 'boom', failOpen: true } });
  });

  it('audit mode runs in shadow: result recorded, payload not applied', async () => {
    const seen: unknown[] = [];
    const chain = [tagger('shadow', { mode: 'audit' }), validator('v', (p) => (seen.push(p), allow()))];
    const { result } = await executeChain(chain, req('request', {}), CTX);
    expect(result.status).toBe('success');
    expect(result.finalPayload).toEqual({});
    expect(seen).toEqual([{}]);
    expect(result.results[0]).toMatchObject({ interceptor: 'shadow', modified: true, payload: { trail: ['shadow'] } });
  });

  it('cannot corrupt the original or another interceptor by mutating in place', async () => {
    const input = { note: 'hi', list: [1] };
    const vandal = mutator('a', (p) => {
      (p as { list: number[] }).list.push(666);
      throw new Error('after vandalism');
    });
    const { result } = await executeChain([vandal], req('request', input), CTX);
    expect(result.finalPayload).toEqual({ note: 'hi', list: [1] });
    expect(input.list).toEqual([1]);
  });

  it('a mutator that declines passes the payload through unchanged', async () => {
    const { result } = await executeChain([mutator('m', () => ({ modified: false, payload: { other: 1 } }))], req('request', { a: 1 }), CTX);
    expect(result.finalPayload).toEqual({ a: 1 });
    expect(result.results[0]).toMatchObject({ modified: false, payload: { a: 1 } });
  });
});

describe('timeouts', () => {
  it('abandons an interceptor that ignores its signal at its deadline, and signals it', async () => {
    let aborted: AbortSignal | undefined;
    const stuck = validator('stuck', (_p, ctx) => ((aborted = ctx.signal), never()));
    const t0 = performance.now();
    const { result } = await executeChain([stuck], req(), CTX, { interceptorTimeoutMs: 50 });
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(result.status).toBe('timeout');
    expect(decisionOf(result)).toBe('deny');
    expect(result.abortedAt).toEqual({ interceptor: 'stuck', reason: 'timed out after 50 ms', type: 'validation' });
    expect(aborted?.aborted).toBe(true);
  });

  it('a mutator timeout denies and restores the original payload', async () => {
    const { result } = await executeChain([tagger('a'), mutator('slow', never)], req('request', {}), CTX, { interceptorTimeoutMs: 50 });
    expect(result.status).toBe('timeout');
    expect(result.finalPayload).toEqual({});
  });

  it('a failOpen interceptor that times out is skipped', async () => {
    const { result } = await executeChain([validator('slow', never, { failOpen: true })], req(), CTX, { interceptorTimeoutMs: 30 });
    expect(result.status).toBe('success');
    expect(result.results[0]).toMatchObject({ info: { failOpen: true, error: 'timed out after 30 ms' } });
  });

  it('the chain deadline denies even when each interceptor is within its own', async () => {
    const slowTagger = (name: string, ms: number) => mutator(name, async (p, ctx) => (await sleep(ms, ctx.signal), { modified: true, payload: p }));
    const t0 = performance.now();
    const chain = [slowTagger('a', 5), slowTagger('b', 2000), slowTagger('c', 5)];
    const { result } = await executeChain(chain, req(), CTX, { chainTimeoutMs: 100, interceptorTimeoutMs: 5000 });
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(result.status).toBe('timeout');
    expect(result.abortedAt).toEqual({ interceptor: 'b', reason: 'chain timed out after 100 ms', type: 'mutation' });
    expect(result.finalPayload).toEqual({ note: 'hi' });
    expect(result.results.map((r) => r.interceptor)).toEqual(['a']);
  });
});

describe('the chain deadline reaches the interceptor it interrupts', () => {
  // The chain makes its deadline's signal only when an asynchronous attempt races it: the
  // interceptor running when the deadline passes still sees its own signal abort, with the reason.
  it("a running interceptor's signal aborts at the chain deadline, after synchronous steps made no signal", async () => {
    let seen: { aborted: boolean; reason?: unknown } | undefined;
    const waits = validator('waits', (_p, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => ((seen = { aborted: ctx.signal.aborted, reason: ctx.signal.reason }), resolve({ valid: true })), { once: true })));
    const { result } = await executeChain([tagger('a'), validator('quick', allow), waits], req(), CTX, { chainTimeoutMs: 80, interceptorTimeoutMs: 5000 });
    expect(result.status).toBe('timeout');
    await new Promise((r) => setTimeout(r, 10));
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toMatchObject({ code: 'ERR_CHAIN_TIMEOUT', message: 'chain timed out after 80 ms' });
  });
});

describe('synchronous and asynchronous steps in one chain', () => {
  // Synchronous steps run back to back with no promise between them; the first asynchronous one
  // carries the rest, and the chain deadline (armed before the first step) still races it.
  it('mixed mutators and validators keep their order, their payloads and their results', async () => {
    const asyncTagger = (name: string) => mutator(name, async (p) => ({ modified: true, payload: { ...(p as object), trail: [...((p as { trail?: string[] }).trail ?? []), name] } }), { priorityHint: 0 });
    const seen: unknown[] = [];
    const look = (name: string, async: boolean) => validator(name, (p) => (seen.push([name, (p as { trail: string[] }).trail]), async ? Promise.resolve({ valid: true }) : { valid: true }));
    const chain = [tagger('a', { priorityHint: -3 }), asyncTagger('b'), tagger('c', { priorityHint: 3 }), look('v1', false), look('v2', true), look('v3', false)];
    const { result } = await executeChain(chain, req(), CTX);
    expect(result.status).toBe('success');
    expect(result.finalPayload).toEqual({ note: 'hi', trail: ['a', 'b', 'c'] });
    expect(result.results.map((r) => r.interceptor)).toEqual(['a', 'b', 'c', 'v1', 'v2', 'v3']);
    expect(seen).toEqual([['v1', ['a', 'b', 'c']], ['v2', ['a', 'b', 'c']], ['v3', ['a', 'b', 'c']]]);
  });

  it('a synchronous throw in a step is that interceptor failing, not the chain', async () => {
    const { result } = await executeChain([tagger('a'), mutator('boom', crash), validator('v', allow)], req(), CTX);
    expect(result.status).toBe('mutation_failed');
    expect(result.abortedAt).toMatchObject({ interceptor: 'boom', type: 'mutation' });
    expect(result.finalPayload).toEqual({ note: 'hi' }); // atomic: a's change is voided
  });

  it('the chain deadline still holds after synchronous steps, naming the asynchronous culprit', async () => {
    const t0 = performance.now();
    const chain = [tagger('a'), validator('quick', allow), validator('hangs', never)];
    const { result } = await executeChain(chain, req(), CTX, { chainTimeoutMs: 100, interceptorTimeoutMs: 5000 });
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(result.status).toBe('timeout');
    expect(result.abortedAt).toEqual({ interceptor: 'hangs', reason: 'chain timed out after 100 ms', type: 'validation' });
    expect(result.finalPayload).toEqual({ note: 'hi' });
    expect(result.results.map((r) => r.interceptor)).toEqual(['a']);
  });
});

describe('observers', () => {
  it('a 5-second observer does not slow the chain, and its failure never blocks', async () => {
    const slow = observer('slow', async () => (await sleep(5000), { observed: true }));
    const broken = observer('broken', crash);
    const t0 = performance.now();
    const run = await executeChain([slow, broken, validator('v', allow)], req(), CTX, { interceptorTimeoutMs: 300 });
    expect(performance.now() - t0).toBeLessThan(200);
    expect(run.result.status).toBe('success');
    expect(run.result.results).toEqual([
      { interceptor: 'broken', type: 'observability', phase: 'request', observed: true },
      { interceptor: 'slow', type: 'observability', phase: 'request', observed: true },
      { interceptor: 'v', type: 'validation', phase: 'request', valid: true },
    ]);
    // observers settles (never rejects) once the slow one is abandoned at its own deadline.
    await expect(run.observers).resolves.toBeUndefined();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(250);
  });

  it('observers see the payload as it stands at their step', async () => {
    const seen: unknown[] = [];
    const obs = observer('o', (p) => (seen.push(p), { observed: true }));
    const req1 = await executeChain([obs, tagger('m')], req('request', {}), CTX);
    await req1.observers;
    const req2 = await executeChain([obs, tagger('m')], req('response', {}), CTX);
    await req2.observers;
    expect(seen).toEqual([{ trail: ['m'] }, {}]);
  });
});

describe('never an allow by accident', () => {
  it('resolves bad input or a broken chain to a deny with status error', async () => {
    const cases: [Interceptor[], { event: string; phase: 'request' | 'response'; payload: unknown }][] = [
      [[validator('v', allow)], { event: 'tools/call', phase: 'request', payload: { f: () => 1 } }],
      [[validator('v', allow)], { event: 'tools/call', phase: 'sideways' as never, payload: {} }],
      [[validator('v', allow)], { event: '', phase: 'request', payload: {} }],
      [[validator('dup', allow), validator('dup', allow)], { event: 'tools/call', phase: 'request', payload: {} }],
      [[{ descriptor: null } as never], { event: 'tools/call', phase: 'request', payload: {} }],
    ];
    for (const [chain, r] of cases) {
      const { result } = await executeChain(chain, r, CTX);
      expect(result.status).toBe('error');
      expect(decisionOf(result)).toBe('deny');
      expect(result.abortedAt?.interceptor).toBe('(chain)');
    }
    const bad = await executeChain([validator('v', allow)], req(), CTX, { directions: { request: 'upstream' as never, response: 'receiving' } });
    expect(bad.result.status).toBe('error');
    const noCtx = await executeChain([validator('v', allow)], req(), null as never);
    expect(noCtx.result.status).toBe('error');
  });

  it('reports durations only when given a clock', async () => {
    let t = 0;
    const clock = { monotonic: () => (t += 5) };
    const timed = await executeChain([validator('v', allow)], req(), CTX, { clock });
    expect(timed.result.totalDurationMs).toBeGreaterThan(0);
    expect(timed.result.results[0].durationMs).toBe(5);
    const untimed = await executeChain([validator('v', allow)], req(), CTX);
    expect(JSON.stringify(untimed.result)).not.toContain('Duration');
  });
});
