// CI's smoke of the burst bench (bench/workers-burst.bench.ts) at toy size, under test/workers/ with the
// other wrangler tests (test:quick leaves them out): one small burst each way under `wrangler dev --local`
// (offline), every line there, a count. No threshold: which layer answers what is the measurement.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { run, TOY } from '../../bench/workers-burst.bench.js';
import { expectLines, runToy } from '../bench/_smoke.js';

/** The direct lines need ss (iproute2) on Linux to find workerd's own socket; elsewhere they are "absent". */
const hasSs = (() => {
  try {
    execFileSync('ss', ['-V'], { stdio: 'ignore' });
    return process.platform === 'linux';
  } catch {
    return false;
  }
})();

describe('bench/workers-burst.bench.ts', () => {
  it('at toy size, every line is there for the proxy and the direct socket, and each way counts every call once', async () => {
    const got = await runToy('workers-burst', (ctx) => run(ctx, TOY));
    const kinds = ['ok', 'restarted503', 'vouch503', 'otherError', 'noAnswer'];
    const direct = kinds.map((k) => `direct.${k}`);
    expectLines(got, [...kinds.map((k) => `proxy.${k}`), ...direct], { mayBeAbsent: hasSs ? [] : direct });
    for (const via of hasSs ? ['proxy', 'direct'] : ['proxy']) {
      expect(kinds.reduce((n, k) => n + got.get(`${via}.${k}`)!.value, 0), `${via}: every call counted once`).toBe(TOY.calls * TOY.rounds);
    }
  }, 360_000);
});
