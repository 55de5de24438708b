// interceptor/invoke of one interceptor, volatile-key stripping, and the system clock used
// for durations.
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { executeChain, stripDurations, stripVolatile } from '../../src/interceptors/chain.js';
import { invokeInterceptor } from '../../src/interceptors/invoke.js';
import type { Json } from '../../src/interceptors/types.js';
import { allow, crash, CTX, deny, mutator, observer, validator } from './chain-kit.js';

const params = { event: 'tools/call', phase: 'request' as const, payload: { note: 'hi' } };

describe('invokeInterceptor', () => {
  it('returns the raw SEP result: audit mode and failOpen are chain semantics', async () => {
    const v = validator('v', () => deny('nope'), { mode: 'audit', failOpen: true });
    expect(await invokeInterceptor(v, params, CTX)).toEqual({
      interceptor: 'v',
      type: 'validation',
      phase: 'request',
      valid: false,
      severity: 'error',
      messages: [{ message: 'nope', severity: 'error' }],
    });
  });

  it('awaits an observer and returns its metrics', async () => {
    const o = observer('o', () => ({ observed: true, metrics: { bytes: 12 } }));
    expect(await invokeInterceptor(o, params, CTX)).toEqual({ interceptor: 'o', type: 'observability', phase: 'request', observed: true, metrics: { bytes: 12 } });
  });

  it('throws ERR_INTERCEPTOR_FAILED on a crash or a malformed outcome, ERR_CHAIN_TIMEOUT on a timeout', async () => {
    await expect(invokeInterceptor(validator('v', crash), params, CTX)).rejects.toMatchObject({ code: 'ERR_INTERCEPTOR_FAILED' });
    await expect(invokeInterceptor(mutator('m', () => ({ modified: 'y' }) as never), params, CTX)).rejects.toMatchObject({ code: 'ERR_INTERCEPTOR_FAILED' });
    const stuck = validator('s', () => new Promise(() => {}));
    await expect(invokeInterceptor(stuck, params, CTX, { timeoutMs: 20 })).rejects.toMatchObject({ code: 'ERR_CHAIN_TIMEOUT' });
  });

  it('uses prepare live (reporting its state) and the given state in replay', async () => {
    let prepares = 0;
    const v = validator('v', (_p, ctx) => ((ctx.state as { ok: boolean }).ok ? allow() : deny()), { prepare: async () => (prepares++, { ok: true }) });
    const states: Json[] = [];
    expect((await invokeInterceptor(v, params, CTX, { onState: (s) => states.push(s) })).type).toBe('validation');
    expect(states).toEqual([{ ok: true }]);
    const replayed = await invokeInterceptor(v, params, CTX, { replayState: { v: { ok: false } } });
    expect(replayed).toMatchObject({ valid: false });
    expect(prepares).toBe(1);
  });
});

describe('volatile keys and the clock', () => {
  it('strips durations with the system clock, and only them', async () => {
    const { result } = await executeChain([validator('v', allow), mutator('m', (p) => ({ modified: true, payload: { ...(p as object), durationMs: 3 } }))], params, CTX, {
      clock: systemClock,
    });
    expect(typeof result.totalDurationMs).toBe('number');
    expect(result.results.every((r) => typeof r.durationMs === 'number')).toBe(true);
    const structural = stripDurations(result);
    expect(JSON.stringify(structural)).not.toContain('totalDurationMs');
    expect(structural.results.every((r) => r.durationMs === undefined)).toBe(true);
    expect(structural.finalPayload).toEqual({ note: 'hi', durationMs: 3 }); // payload untouched
    const deep = stripVolatile(result);
    expect(JSON.stringify(deep)).not.toContain('durationMs');
    expect(stripVolatile({ a: [{ info: 1, b: 2 }] }, ['info'])).toEqual({ a: [{ b: 2 }] });
  });

  it('gives RFC 3339 UTC time and a monotonic counter', () => {
    expect(systemClock.isoNow()).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const a = systemClock.monotonic();
    expect(systemClock.monotonic()).toBeGreaterThanOrEqual(a);
    expect(systemClock.now()).toBeInstanceOf(Date);
  });
});
