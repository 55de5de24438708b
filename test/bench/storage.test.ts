// CI's smoke of the storage bench (bench/storage.bench.ts) at toy size: raw and compact logs are
// written in one run, every line is a finite number, and the compact file is the smaller one.
import { describe, expect, it } from 'vitest';
import { run, TOY } from '../../bench/storage.bench.js';
import { expectLines, runToy } from './_smoke.js';

describe('bench/storage.bench.ts', () => {
  it('at toy size, bytes per entry and append rate, compact against raw', async () => {
    const got = await runToy('storage', (ctx) => run(ctx, TOY));
    expectLines(got, ['disk_per_entry_2k', 'append_store_2k', 'compress_cost_2k']);
    const disk = got.get('disk_per_entry_2k')!;
    expect(disk.value).toBeLessThan(disk.baseline! / 2);
    expect(disk.value).toBeGreaterThan(0);
  }, 120_000);
});
