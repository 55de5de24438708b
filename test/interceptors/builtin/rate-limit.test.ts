import { describe, expect, it } from 'vitest';
import { createRateLimit, decideRate, windowStartOf } from '../../../src/interceptors/builtin/rate-limit.js';
import type { InterceptorContext, ValidationOutcome } from '../../../src/interceptors/types.js';
import { apply, ctxOf, denied, depsOf, make } from './_content-ctx.js';

const call = (name: string) => ({ name, arguments: { query: 'SELECT count(*) FROM orders' } });
const at = (time: string, extra: Partial<InterceptorContext> = {}) =>
  ctxOf('tools/call', 'request', { time, principal: 'alice', sessionId: 's1', server: 'sqlite', ...extra });

describe('rate-limit', () => {
  it('allows `limit` calls per window, denies the next, and resets in the next window', async () => {
    const rl = make(createRateLimit, { limit: 3, windowMs: 60_000 });
    const times = ['2025-06-01T12:00:00Z', '2025-06-01T12:00:10Z', '2025-06-01T12:00:59.999Z', '2025-06-01T12:00:30Z', '2025-06-01T12:01:00Z'];
    const results = [];
    for (const t of times) results.push(await apply(rl, call('read_query'), at(t)));
    expect(results.map((r) => denied(r.outcome))).toEqual([false, false, false, true, false]);
    expect(results[3].state).toEqual({ count: 4, windowStart: '2025-06-01T12:00:00.000Z', limit: 3 });
    expect((results[3].outcome as ValidationOutcome).messages).toEqual([{ message: 'rate limit exceeded: 4/3 in window', severity: 'error' }]);
    expect(results[4].state).toEqual({ count: 1, windowStart: '2025-06-01T12:01:00.000Z', limit: 3 });
  });

  it('counts per principal and tool by default', async () => {
    const rl = make(createRateLimit, { limit: 1 });
    const t = '2025-06-01T12:00:00Z';
    expect(denied((await apply(rl, call('read_query'), at(t))).outcome)).toBe(false);
    expect(denied((await apply(rl, call('list_tables'), at(t))).outcome)).toBe(false);
    expect(denied((await apply(rl, call('read_query'), at(t, { principal: 'bob' }))).outcome)).toBe(false);
    expect(denied((await apply(rl, call('read_query'), at(t, { sessionId: 'other' }))).outcome)).toBe(true);
    // Another tenant never shares a counter.
    expect(denied((await apply(rl, call('read_query'), at(t, { tenant: 'acme' }))).outcome)).toBe(false);
  });

  it('can key by server and session instead', async () => {
    const rl = make(createRateLimit, { limit: 1, key: ['server', 'session'] });
    const t = '2025-06-01T12:00:00Z';
    expect(denied((await apply(rl, call('read_query'), at(t))).outcome)).toBe(false);
    expect(denied((await apply(rl, call('list_tables'), at(t))).outcome)).toBe(true);
    expect(denied((await apply(rl, call('read_file'), at(t, { server: 'filesystem' }))).outcome)).toBe(false);
  });

  it("a session is the caller's own: another principal naming it, or calling without one, has its own counter", async () => {
    const rl = make(createRateLimit, { limit: 1, key: ['session'] });
    const t = '2025-06-01T12:00:00Z';
    expect(denied((await apply(rl, call('read_query'), at(t))).outcome)).toBe(false);
    expect(denied((await apply(rl, call('read_query'), at(t, { principal: 'bob' }))).outcome)).toBe(false); // bob names alice's s1
    // Without a session (MCP 2026-07-28): the principal is the conversation, not one counter for all.
    const none = { sessionId: undefined };
    expect(denied((await apply(rl, call('read_query'), at(t, { ...none, principal: 'carol' }))).outcome)).toBe(false);
    expect(denied((await apply(rl, call('read_query'), at(t, { ...none, principal: 'dave' }))).outcome)).toBe(false);
    expect(denied((await apply(rl, call('read_query'), at(t, { ...none, principal: 'carol' }))).outcome)).toBe(true);
    expect(denied((await apply(rl, call('read_query'), at(t, { ...none, principal: 'carol', onBehalfOf: 'erin' }))).outcome)).toBe(false);
  });

  it('shares counters through the store, not the instance', async () => {
    const deps = depsOf();
    const a = make(createRateLimit, { limit: 1 }, deps, 'rl');
    const b = make(createRateLimit, { limit: 1 }, deps, 'rl');
    await apply(a, call('read_query'), at('2025-06-01T12:00:00Z'));
    expect(denied((await apply(b, call('read_query'), at('2025-06-01T12:00:01Z'))).outcome)).toBe(true);
  });

  it('replays from the recorded state alone, with the same answer', async () => {
    const rl = make(createRateLimit, { limit: 2 });
    const ctx = at('2025-06-01T12:00:00Z');
    let last;
    for (let i = 0; i < 3; i++) last = await apply(rl, call('read_query'), ctx);
    const fresh = make(createRateLimit, { limit: 2 });
    expect(await fresh.run(call('read_query'), { ...ctx, state: last!.state })).toEqual(last!.outcome);
    expect(decideRate({ count: 2, windowStart: '2025-06-01T12:00:00.000Z', limit: 2 }).valid).toBe(true);
  });

  it('computes fixed windows from the decision time only', () => {
    expect(windowStartOf('2025-06-01T12:34:56.789Z', 60_000)).toBe('2025-06-01T12:34:00.000Z');
    expect(windowStartOf('2025-06-01T14:34:56+02:00', 3_600_000)).toBe('2025-06-01T12:00:00.000Z');
    expect(() => windowStartOf('June 1st', 1000)).toThrow(expect.objectContaining({ code: 'ERR_INPUT' }));
  });

  it('fails closed on missing or malformed state', () => {
    const rl = make(createRateLimit, { limit: 2 });
    const ctx = at('2025-06-01T12:00:00Z');
    expect(() => rl.run(call('x'), ctx)).toThrow(expect.objectContaining({ code: 'ERR_INPUT' }));
    expect(() => rl.run(call('x'), { ...ctx, state: { count: '3', windowStart: 1, limit: 2 } })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ path: '/count' }), expect.objectContaining({ path: '/windowStart' })] }),
    );
  });

  it('requires a limit and validates every option', () => {
    expect(() => make(createRateLimit)).toThrow(expect.objectContaining({ code: 'ERR_CONFIG', issues: [expect.objectContaining({ path: '/config/limit' })] }));
    expect(() => make(createRateLimit, { limit: 0, windowMs: 'minute', key: ['ip'] })).toThrow(
      expect.objectContaining({
        issues: [
          expect.objectContaining({ path: '/config/limit' }),
          expect.objectContaining({ path: '/config/windowMs' }),
          expect.objectContaining({ path: '/config/key/0' }),
        ],
      }),
    );
    expect(make(createRateLimit, { limit: 5 }).descriptor).toMatchObject({ type: 'validation', hooks: [{ events: ['tools/call'], phase: 'request' }] });
  });
});
