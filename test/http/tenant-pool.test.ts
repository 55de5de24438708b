// The tenant pool (src/http/tenant-pool.ts) with a real clock-free counter: the cap closes the least
// recently used idle log, never one held by a use in flight; a use during a close waits for it and
// opens again; idle logs close on sweep; a failed open is the caller's error and is retried.
import { describe, expect, it } from 'vitest';
import { createTenantPool } from '../../src/http/tenant-pool.js';

function pool(maxOpen: number, idleMs = 0) {
  let now = 0;
  const events: string[] = [];
  let failNext = false;
  let closeGate: Promise<void> = Promise.resolve();
  const p = createTenantPool<string>({
    maxOpen,
    idleMs,
    now: () => now,
    open: async (t) => {
      if (failNext) {
        failNext = false;
        throw new Error(`refused ${t}`);
      }
      events.push(`open ${t}`);
      return t;
    },
    close: async (t) => {
      events.push(`closing ${t}`);
      await closeGate;
      events.push(`closed ${t}`);
    },
  });
  return { p, events, tick: (ms: number) => (now += ms), failOnce: () => (failNext = true), gate: (g: Promise<void>) => (closeGate = g) };
}

describe('tenant pool', () => {
  it('over the cap, the least recently used idle log closes; a held one never does', async () => {
    const { p, events } = pool(2);
    const a = await p.acquire('a');
    await p.use('b', () => undefined);
    await p.use('c', () => undefined); // a is held: b (idle, least recent) goes
    await p.stop();
    expect(events).toEqual(['open a', 'open b', 'open c', 'closing b', 'closed b']);
    expect(p.isOpen('a')).toBe(true);
    a.release();
    await p.use('b', () => undefined); // now a is the least recently used idle one
    await p.stop();
    expect(events.slice(5)).toEqual(['open b', 'closing a', 'closed a']);
    expect(p.stats()).toEqual({ open: 2, opens: 4, closes: 2 });
  });

  it('a use during a close waits for it, then opens again', async () => {
    const { p, events, gate } = pool(1);
    let open!: () => void;
    gate(new Promise<void>((r) => (open = r)));
    await p.use('a', () => undefined);
    await p.use('b', () => undefined); // closes a, which waits on the gate
    const again = p.use('a', () => 'used');
    await new Promise((r) => setTimeout(r, 10));
    expect(events).toEqual(['open a', 'open b', 'closing a']);
    open();
    expect(await again).toBe('used');
    expect(events.indexOf('open a', 1)).toBeGreaterThan(events.indexOf('closed a'));
  });

  it('idle logs close on sweep; a failed open is the caller\'s error and the next use retries', async () => {
    const { p, events, tick, failOnce } = pool(10, 1000);
    await p.use('a', () => undefined);
    tick(500);
    await p.use('b', () => undefined);
    tick(600);
    await p.sweep();
    expect(events).toEqual(['open a', 'open b', 'closing a', 'closed a']);
    failOnce();
    await expect(p.use('c', () => undefined)).rejects.toThrow(/refused c/);
    expect(p.isOpen('c')).toBe(false);
    await p.use('c', () => undefined);
    expect(p.isOpen('c')).toBe(true);
  });
});
