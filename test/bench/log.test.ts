// CI's smoke of the log bench (bench/log.bench.ts) at toy size: group commit and the naive path
// run on real SQLite logs with the signing thread, and every line it promises is a finite number.
import { describe, expect, it } from 'vitest';
import { run, TOY } from '../../bench/log.bench.js';
import { expectLines, runToy } from './_smoke.js';

describe('bench/log.bench.ts', () => {
  it('at toy size, every line is there, the group line against the naive one', async () => {
    const got = await runToy('log', (ctx) => run(ctx, TOY));
    expectLines(got, ['append_group', 'append_naive', 'append_group_p50', 'append_group_p99', 'append_naive_p50', 'group_batch_mean', 'group_sign_mean']);
    expect(got.get('append_group')!.baseline).toBe(got.get('append_naive')!.value);
    expect(got.get('append_group')!.value).toBeGreaterThan(0);
  }, 60_000);
});
