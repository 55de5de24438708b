// Ordering across the trust boundary: sending = mutate (priority, name) -> validate + observe;
// receiving = validate + observe -> mutate; results in a deterministic order.
import { describe, expect, it } from 'vitest';
import { executeChain } from '../../src/interceptors/chain.js';
import { listInterceptors, priorityOf, selectInterceptors } from '../../src/interceptors/list.js';
import type { InterceptorContext } from '../../src/interceptors/types.js';
import { allow, CTX, deny, latch, mutator, observer, tagger, validator } from './chain-kit.js';

const req = (phase: 'request' | 'response', payload: unknown = { name: 'echo' }) => ({ event: 'tools/call', phase, payload });

describe('chain ordering', () => {
  it('runs mutations by priority ascending, ties by ordinal name (not locale)', async () => {
    // Ordinal: 'B' (0x42) < 'a' (0x61) < 'b'; localeCompare would put 'a' first.
    const chain = [tagger('b'), tagger('a'), tagger('B'), tagger('late', { priorityHint: 10 }), tagger('early', { priorityHint: -10 })];
    const { result } = await executeChain(chain, req('request'), CTX);
    expect(result.status).toBe('success');
    expect((result.finalPayload as { trail: string[] }).trail).toEqual(['early', 'B', 'a', 'b', 'late']);
    expect(result.results.map((r) => r.interceptor)).toEqual(['early', 'B', 'a', 'b', 'late']);
  });

  it('applies per-phase priority hints', async () => {
    const redactor = tagger('redactor', { priorityHint: { request: -50000, response: 50000 } });
    const chain = [tagger('m1', { priorityHint: 5 }), redactor, tagger('m2')];
    const request = await executeChain(chain, req('request'), CTX);
    expect((request.result.finalPayload as { trail: string[] }).trail).toEqual(['redactor', 'm2', 'm1']);
    const response = await executeChain(chain, req('response'), CTX);
    expect((response.result.finalPayload as { trail: string[] }).trail).toEqual(['m2', 'm1', 'redactor']);
    expect(priorityOf(redactor.descriptor, 'request')).toBe(-50000);
    expect(priorityOf(redactor.descriptor, 'response')).toBe(50000);
    expect(priorityOf(tagger('z').descriptor, 'response')).toBe(0);
  });

  it('sending: validators see the mutated payload; receiving: the raw one, and mutations follow', async () => {
    const seen: unknown[] = [];
    const v = validator('v', (p) => (seen.push(p), allow()));
    const chain = [v, tagger('m')];
    const sending = await executeChain(chain, req('request', {}), CTX);
    expect(seen.pop()).toEqual({ trail: ['m'] });
    expect(sending.result.results.map((r) => r.interceptor)).toEqual(['m', 'v']);
    const receiving = await executeChain(chain, req('response', {}), CTX);
    expect(seen.pop()).toEqual({});
    expect(receiving.result.results.map((r) => r.interceptor)).toEqual(['v', 'm']);
    expect(receiving.result.finalPayload).toEqual({ trail: ['m'] });
  });

  it('flips the order when a deployment sits on the other side of the boundary', async () => {
    const seen: unknown[] = [];
    const chain = [validator('v', (p) => (seen.push(p), allow())), tagger('m')];
    const directions = { request: 'receiving', response: 'sending' } as const;
    await executeChain(chain, req('request', {}), CTX, { directions });
    expect(seen.pop()).toEqual({});
    await executeChain(chain, req('response', {}), CTX, { directions });
    expect(seen.pop()).toEqual({ trail: ['m'] });
  });

  it('hands each interceptor the context with its direction', async () => {
    const ctxs: InterceptorContext[] = [];
    const chain = [validator('v', (_p, c) => (ctxs.push(c), allow()))];
    await executeChain(chain, req('request'), { ...CTX, traceId: 't', tenant: 'acme', roles: ['enforce'], server: 'files' });
    await executeChain(chain, req('response'), CTX);
    expect(ctxs[0]).toMatchObject({ event: 'tools/call', phase: 'request', direction: 'sending', time: CTX.time, sessionId: 's-1', principal: 'alice', traceId: 't', tenant: 'acme', roles: ['enforce'], server: 'files' });
    expect(ctxs[0].signal).toBeInstanceOf(AbortSignal);
    expect(ctxs[1]).toMatchObject({ phase: 'response', direction: 'receiving' });
    expect('traceId' in ctxs[1]).toBe(false);
  });

  it('runs validators truly concurrently (each waits for the other to start)', async () => {
    const aStarted = latch();
    const bStarted = latch();
    const a = validator('a', async () => (aStarted.open(), await bStarted.promise, allow()));
    const b = validator('b', async () => (bStarted.open(), await aStarted.promise, allow()));
    const { result } = await executeChain([a, b], req('request'), CTX, { interceptorTimeoutMs: 1000 });
    expect(result.status).toBe('success');
  });

  it('reports a parallel group by priority then name, whatever the finishing order', async () => {
    const slow = validator('a-slow', async () => (await new Promise((r) => setTimeout(r, 30)), allow()));
    const fast = validator('b-fast', () => allow());
    const first = validator('z-first', () => allow(), { priorityHint: -1 });
    const obs = observer('c-obs', () => ({ observed: true }));
    const { result } = await executeChain([fast, obs, slow, first], req('request'), CTX);
    expect(result.results.map((r) => r.interceptor)).toEqual(['z-first', 'a-slow', 'b-fast', 'c-obs']);
  });

  it('selects by event (or *) and phase; other interceptors never run', async () => {
    let ran = 0;
    const other = validator('other', () => (ran++, deny()), { events: ['prompts/get'] });
    const reqOnly = validator('req-only', () => (ran++, deny()), { phase: 'request' });
    const star = validator('star', () => allow(), { events: ['*'] });
    const { result } = await executeChain([other, reqOnly, star], req('response'), CTX);
    expect(result.status).toBe('success');
    expect(ran).toBe(0);
    expect(result.results.map((r) => r.interceptor)).toEqual(['star']);
    expect(selectInterceptors([other, reqOnly, star], 'prompts/get', 'request').map((i) => i.descriptor.name)).toEqual(['other', 'star']);
  });

  it('lists in registration order, filtered by event or *', () => {
    const all = [validator('z', allow), mutator('a', () => ({ modified: false, payload: null }), { events: ['tools/list'] }), validator('w', allow, { events: ['*'] })];
    expect(listInterceptors(all).interceptors.map((d) => d.name)).toEqual(['z', 'a', 'w']);
    expect(listInterceptors(all, null).interceptors.map((d) => d.name)).toEqual(['z', 'a', 'w']);
    expect(listInterceptors(all, 'tools/list').interceptors.map((d) => d.name)).toEqual(['a', 'w']);
    expect(listInterceptors(all, 'x/y').interceptors.map((d) => d.name)).toEqual(['w']);
  });

  it('runs an empty chain to success with the payload unchanged', async () => {
    const { result } = await executeChain([], req('request', { a: 1 }), CTX);
    expect(result).toEqual({ status: 'success', event: 'tools/call', phase: 'request', results: [], finalPayload: { a: 1 }, validationSummary: { errors: 0, warnings: 0, infos: 0 } });
  });
});
