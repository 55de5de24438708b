// Recorded state and replay: prepare() runs only live, its JSON result is the state that
// run() sees and the entry records; replay hands the same state back and gets the same result.
import { describe, expect, it } from 'vitest';
import { canonicalText } from '../../src/canonical/index.js';
import { executeChain, stripVolatile } from '../../src/interceptors/chain.js';
import type { Json } from '../../src/interceptors/types.js';
import { allow, CTX, deny, validator } from './chain-kit.js';

const req = { event: 'tools/call', phase: 'request' as const, payload: { name: 'search' } };

function rateLimit(limit: number) {
  const counter = { hits: 0, prepares: 0 };
  const ic = validator('rate', (_p, ctx) => ((ctx.state as { count: number }).count > limit ? deny('rate limited') : allow()), {
    prepare: async () => (counter.prepares++, { count: ++counter.hits }),
  });
  return { ic, counter };
}

describe('recorded state and replay', () => {
  it('records what prepare returned, by name, and run sees it', async () => {
    const { ic, counter } = rateLimit(1);
    const first = await executeChain([ic, validator('plain', allow)], req, CTX);
    const second = await executeChain([ic, validator('plain', allow)], req, CTX);
    expect(first.state).toEqual({ rate: { count: 1 } });
    expect(second.state).toEqual({ rate: { count: 2 } });
    expect(first.result.status).toBe('success');
    expect(second.result.status).toBe('validation_failed');
    expect(counter.prepares).toBe(2);
  });

  it('replays to the identical result without calling prepare', async () => {
    const { ic, counter } = rateLimit(1);
    await executeChain([ic], req, CTX);
    const live = await executeChain([ic], req, CTX, { clock: { monotonic: () => performance.now() } });
    const before = counter.prepares;
    const replay = await executeChain([ic], req, CTX, { replayState: live.state });
    expect(counter.prepares).toBe(before);
    expect(replay.result.status).toBe('validation_failed');
    expect(canonicalText(stripVolatile(replay.result))).toBe(canonicalText(stripVolatile(live.result)));
    expect(replay.state).toEqual(live.state);
  });

  it('fails an interceptor whose state is missing in replay (fail closed)', async () => {
    const { ic } = rateLimit(5);
    const { result } = await executeChain([ic], req, CTX, { replayState: {} });
    expect(result.status).toBe('validation_failed');
    expect(result.abortedAt).toEqual({ interceptor: 'rate', reason: 'no recorded state', type: 'validation' });
    // Interceptors without prepare() need no state.
    const plain = await executeChain([validator('plain', allow)], req, CTX, { replayState: {} });
    expect(plain.result.status).toBe('success');
  });

  it('records a failed prepare so replay fails the same way', async () => {
    const ic = validator('remote', allow, {
      prepare: async () => {
        throw new Error('connection refused');
      },
    });
    const live = await executeChain([ic], req, CTX);
    expect(live.result.status).toBe('validation_failed');
    expect(live.result.abortedAt?.reason).toBe('prepare failed: connection refused');
    const replay = await executeChain([ic], req, CTX, { replayState: live.state });
    expect(canonicalText(stripVolatile(replay.result))).toBe(canonicalText(stripVolatile(live.result)));
  });

  it('records a prepare that timed out so replay reports the same timeout', async () => {
    const ic = validator('remote', allow, { prepare: () => new Promise<Json>(() => {}) });
    const live = await executeChain([ic], req, CTX, { interceptorTimeoutMs: 30 });
    expect(live.result.status).toBe('timeout');
    expect(Object.keys(live.state)).toEqual(['remote']);
    const replay = await executeChain([ic], req, CTX, { replayState: live.state, interceptorTimeoutMs: 30 });
    expect(canonicalText(stripVolatile(replay.result))).toBe(canonicalText(stripVolatile(live.result)));
  });

  it('gives prepare and run their own copies of the payload', async () => {
    const ic = validator('v', (p) => ((p as { name: string }).name === 'search' ? allow() : deny('tampered')), {
      prepare: async (p) => {
        (p as { name: string }).name = 'changed';
        return null;
      },
    });
    const { result, state } = await executeChain([ic], req, CTX);
    expect(result.status).toBe('success');
    expect(state).toEqual({ v: null });
  });

  it('fails an interceptor whose prepare returns something that is not JSON', async () => {
    const ic = validator('v', allow, { prepare: async () => ({ when: new Date() }) as never });
    const { result } = await executeChain([ic], req, CTX);
    expect(result.status).toBe('validation_failed');
    expect(result.abortedAt?.reason).toMatch(/^prepare failed: not JSON/);
  });
});

describe('an interceptor a remote server names "__proto__" (the protocol name rule lets it through)', () => {
  it('its recorded state is an own member: recorded in the entry, and replay gets it back', async () => {
    const { ic } = rateLimit(1);
    const named = { ...ic, descriptor: { ...ic.descriptor, name: '__proto__' } };
    const live = await executeChain([named], req, CTX);
    expect(Object.keys(live.state)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(live.state)).toBe(Object.prototype);
    const recorded = canonicalText(live.state);
    expect(recorded).toBe('{"__proto__":{"count":1}}');
    const replay = await executeChain([named], req, CTX, { replayState: JSON.parse(recorded) as Record<string, Json> });
    expect(canonicalText(stripVolatile(replay.result))).toBe(canonicalText(stripVolatile(live.result)));
    expect(replay.result.status).toBe('success');
  });
});
