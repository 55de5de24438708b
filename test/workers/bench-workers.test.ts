// CI's smoke of the Workers bench (bench/workers.bench.ts) at toy size, under test/workers/ with the other
// wrangler tests (test:quick leaves them out): both Workers up under
// `wrangler dev --local` (offline), the guards each records checked, and every line measured.
import { describe, expect, it } from 'vitest';
import { run, TOY } from '../../bench/workers.bench.js';
import { expectLines, runToy } from '../bench/_smoke.js';

describe('bench/workers.bench.ts', () => {
  it('at toy size, every line is there, the example config read against the stateless one', async () => {
    const got = await runToy('workers', (ctx) => run(ctx, TOY));
    const c = TOY.levels[0].c;
    expectLines(got, [`decisions.c${c}`, `stateless.c${c}`, `decisions.c${c}.p50`, `stateless.c${c}.p50`]);
    expect(got.get(`decisions.c${c}`)!.baseline).toBe(got.get(`stateless.c${c}`)!.value);
  }, 240_000);
});
