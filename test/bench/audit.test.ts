// CI's smoke of the audit bench (bench/audit.bench.ts) at toy size: it exports, verifies (with and
// without replay) and replays a generated log, and every line it promises is a finite number.
// Before issue 40 the bench exported under the data directory's key name while logs sign under
// their origin, so verify never came out clean and `npm run bench` went on past it.
import { describe, it } from 'vitest';
import { run, TOY } from '../../bench/audit.bench.js';
import { expectLines, runToy } from './_smoke.js';

describe('bench/audit.bench.ts', () => {
  it('at toy size, export, verify, verify-replay and replay come out clean and every line is there', async () => {
    const got = await runToy('audit', (ctx) => run(ctx, TOY));
    const [a, b] = TOY.sizes.map(String);
    const per = (n: string) => [`export.${n}.rate`, `verify.${n}.seconds`, `verify.${n}.rate`, `verify.${n}.peakRss`, `verify-replay.${n}.rate`, `replay.${n}.rate`];
    expectLines(got, [...per(a), ...per(b), `verify.memoryGrowth.${b}vs${a}`]);
  }, 120_000);
});
