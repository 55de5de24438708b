// CI's smoke of the start-up bench (bench/startup.bench.ts) at toy size: generated logs, `vouch
// serve` spawned on each, its first decision answered and its background audit finished, and
// `vouch log verify` of the small one, and decisions at c=64 on each with the large log's CPU and
// p99 read against the small one's (issue 40's 1.1x bar): every line it promises is a finite number.
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
    // The c=64 decisions: each size's figures, the large one's against the small one's of the same run, and the bar.
    const load = (n: number) => [`c64.cpu.${n}`, `c64.p50.${n}`, `c64.p99.${n}`, `c64.rate.${n}`];
    expectLines(got, [...load(a), ...load(b), `c64.cpu.bar.${b}vs${a}`, `c64.p99.bar.${b}vs${a}`, `c64.bar.${b}vs${a}`]);
    for (const q of ['cpu', 'p99']) {
      expect(got.get(`c64.${q}.${b}`)!.baseline, q).toBe(got.get(`c64.${q}.${a}`)!.value);
      const bar = got.get(`c64.${q}.bar.${b}vs${a}`)!;
      expect(bar).toMatchObject({ unit: 'x', baseline: 1.1 });
      expect(bar.note).toMatch(/bar: at most 1.1x: (PASS|FAIL)$/);
    }
    // Pass (1) exactly when both ratios are within the bar: a figure, whatever this machine measured.
    const verdict = got.get(`c64.bar.${b}vs${a}`)!;
    expect(verdict.value).toBe(got.get(`c64.cpu.bar.${b}vs${a}`)!.value <= 1.1 && got.get(`c64.p99.bar.${b}vs${a}`)!.value <= 1.1 ? 1 : 0);
    expect(verdict.note).toMatch(/same decision at both sizes \(allow, tenant default, the example config without its rate limit\); background audit complete/);
  }, 120_000);
});
