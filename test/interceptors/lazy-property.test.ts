// Objects made per decision carry no accessor of their own (lazy-property.ts): an object literal's
// `get x() {}` gave each object a hidden class of its own in the old generation, which kept the
// getter's closure, and the decision's scope with it, alive through every scavenge.
import { describe, expect, it } from 'vitest';
import { withRead } from '../../src/lazy-property.js';
import { executeChain } from '../../src/interceptors/chain.js';
import { validator, allow, CTX } from './chain-kit.js';

const ownAccessors = (o: object): string[] => Object.entries(Object.getOwnPropertyDescriptors(o)).filter(([, d]) => d.get || d.set).map(([k]) => k);

describe('withRead', () => {
  it('copies the fields and reads the property from its source at each read', () => {
    let n = 0;
    const o = withRead({ a: 1, b: { c: 2 } }, 'x', () => ++n);
    expect(o.a).toBe(1);
    expect(o.b).toEqual({ c: 2 });
    expect(n).toBe(0);
    expect([o.x, o.x]).toEqual([1, 2]);
    expect(ownAccessors(o)).toEqual([]);
    expect(Object.keys(o)).toEqual(['a', 'b']);
    expect({ ...o }).toEqual({ a: 1, b: { c: 2 } });
  });

  it('gives objects of one property name one class, whatever their sources', () => {
    const a = withRead({ v: 1 }, 'signal', () => 'a');
    const b = withRead({ v: 2 }, 'signal', () => 'b');
    const c = withRead({ v: 3 }, 'signed', () => 'c');
    expect(Object.getPrototypeOf(a)).toBe(Object.getPrototypeOf(b));
    expect(Object.getPrototypeOf(a)).not.toBe(Object.getPrototypeOf(c));
    expect([a.signal, b.signal, c.signed]).toEqual(['a', 'b', 'c']);
  });
});

describe('the context an interceptor gets', () => {
  it('has no own accessor; its signal is made when read and aborts with the chain', async () => {
    const seen: Record<string, unknown>[] = [];
    const ic = validator('v', (_p, ctx) => {
      seen.push(ctx as never);
      return allow();
    });
    ic.prepare = (_p, ctx) => {
      seen.push(ctx as never);
      return { ok: true };
    };
    const run = await executeChain([ic], { event: 'tools/call', phase: 'request', payload: { name: 't' } }, CTX);
    expect(run.result.status).toBe('success');
    expect(seen).toHaveLength(2);
    for (const ctx of seen) {
      expect(ownAccessors(ctx)).toEqual([]);
      expect(ctx.signal).toBeInstanceOf(AbortSignal);
      expect(ctx.principal).toBe('alice');
    }
    expect(seen[1].state).toEqual({ ok: true });
  });
});
