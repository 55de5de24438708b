// CI's smoke of the many-tenants bench (bench/tenants.bench.ts) at toy size: `vouch serve` over a
// data directory of 1 tenant log and of more than start-up opens, each answering its first
// decision, and every line it promises (RSS from /proc, Linux) a finite number.
import { describe, expect, it } from 'vitest';
import { run, TOY } from '../../bench/tenants.bench.js';
import { expectLines, runToy } from './_smoke.js';

describe('bench/tenants.bench.ts', () => {
  it('at toy size, every line is there, the many-tenant lines read against the one-tenant ones', async () => {
    const got = await runToy('tenants', (ctx) => run(ctx, TOY));
    const n = TOY.tenants;
    expectLines(got, ['first-decision.1', `first-decision.${n}`, ...(process.platform === 'linux' ? ['rss.1', `rss.${n}`] : [])]);
    expect(got.get(`first-decision.${n}`)!.baseline).toBe(got.get('first-decision.1')!.value);
  }, 120_000);
});
