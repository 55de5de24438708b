// The timer loop the TSA stamper and the witness submitter share (src/periodic.ts), on real timers
// with short intervals: a round at start and then on the interval, never two at once, a failing
// round that does not stop the loop, a close that waits for the round in flight, an unref'd timer.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { PeriodicTask } from '../src/periodic.js';

/** A promise the test resolves by hand. */
function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

describe('PeriodicTask', () => {
  it('runs a round at start, then one every interval', async () => {
    let rounds = 0;
    const task = new PeriodicTask(async () => void rounds++, 20);
    task.start();
    expect(rounds).toBe(1); // the first round starts at once, not after the first interval
    await sleep(130);
    await task.close();
    // 6 intervals fit in 130 ms; a loaded machine may lose some, but the timer must have fired.
    expect(rounds).toBeGreaterThanOrEqual(3);
    expect(rounds).toBeLessThanOrEqual(8);
  });

  it('never runs two rounds at once: a tick during a round joins it', async () => {
    let inFlight = 0;
    let most = 0;
    let rounds = 0;
    const task = new PeriodicTask(async () => {
      rounds++;
      most = Math.max(most, ++inFlight);
      await sleep(60);
      inFlight--;
    }, 5);
    task.start();
    const a = task.tick();
    expect(task.tick()).toBe(a);
    await sleep(200);
    await task.close();
    expect(most).toBe(1);
    // 200 ms of 60 ms rounds: at most 4, though the 5 ms timer fired about 40 times.
    expect(rounds).toBeGreaterThanOrEqual(2);
    expect(rounds).toBeLessThanOrEqual(4);
  });

  it('a failing round is dropped and the next one still runs', async () => {
    let rounds = 0;
    const task = new PeriodicTask(async () => {
      rounds++;
      throw new Error('remote down');
    }, 15);
    task.start();
    await expect(task.tick()).resolves.toBeUndefined();
    await sleep(80);
    await task.close();
    expect(rounds).toBeGreaterThanOrEqual(2);
  });

  it('close waits for the round in flight, then no round starts', async () => {
    const g = gate();
    let rounds = 0;
    let finished = false;
    const task = new PeriodicTask(async () => {
      rounds++;
      await g.promise;
      finished = true;
    }, 10);
    task.start();
    let closed = false;
    const closing = task.close().then(() => (closed = true));
    expect(task.closed).toBe(true);
    await sleep(40);
    expect(closed).toBe(false); // still waiting on the round
    g.open();
    await closing;
    expect(finished).toBe(true);
    await task.tick();
    await sleep(40);
    expect(rounds).toBe(1);
  });

  it('idle resolves when the round in flight is done, without stopping the loop', async () => {
    const g = gate();
    let rounds = 0;
    const task = new PeriodicTask(async () => {
      rounds++;
      await g.promise;
    }, 1000);
    void task.tick();
    let idle = false;
    const waiting = task.idle().then(() => (idle = true));
    await sleep(20);
    expect(idle).toBe(false);
    g.open();
    await waiting;
    expect(task.closed).toBe(false);
    await task.tick();
    expect(rounds).toBe(2);
    await task.close();
  });

  it('does not keep the process alive: its timer is unref\'d', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const task = new PeriodicTask(async () => undefined, 60_000);
    const before = timers();
    task.start();
    expect(timers()).toBe(before);
    await task.close();
  });
});
