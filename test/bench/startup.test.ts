// CI's smoke of the start-up bench (bench/startup.bench.ts) at toy size: generated logs, `vouch
// serve` spawned on each, its first decision answered and its background audit finished, and
// `vouch log verify` of the small one: every line it promises is a finite number.
import { describe, expect, it } from 'vitest';
import { run, TOY } from '../../bench/startup.bench.js';
import { expectLines, runToy } from './_smoke.js';

describe('bench/startup.bench.ts', () => {
  it('at toy size, every line is there, the large log read against the small one', async () => {
    const got = await runToy('startup', (ctx) => run(ctx, TOY));
    const [a, b] = TOY.sizes;
    const per = (n: number) => [`open-check.${n}`, `first-decision.${n}`, `ready-line.${n}`, `healthz-ready.${n}`, `audit-complete.${n}`];
    // first-decision-cpu is read from /proc: Linux only (CI is).
    expectLines(got, [...per(a), ...per(b), `log-verify.${a}`, `log-verify.${b}`, `log-verify-peak-rss.${a}`, `log-verify-peak-rss.${b}`, ...(process.platform === 'linux' ? [`first-decision-cpu.${a}`, `first-decision-cpu.${b}`] : [])]);
    expect(got.get(`first-decision.${b}`)!.baseline).toBe(got.get(`first-decision.${a}`)!.value);
  }, 120_000);
});
