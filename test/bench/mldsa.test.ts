// CI's smoke of the ML-DSA-65 bench (bench/mldsa.bench.ts) at toy size: every backend line is
// there, measured where the backend is here and marked absent (never 0) where it is not.
import { describe, expect, it } from 'vitest';
import { run, TOY } from '../../bench/mldsa.bench.js';
import { expectLines, runToy } from './_smoke.js';

describe('bench/mldsa.bench.ts', () => {
  it('at toy size, every backend line is there, each other backend read against noble', async () => {
    const got = await runToy('mldsa', (ctx) => run(ctx, TOY));
    const names = ['noble', 'pqclean', 'native'].flatMap((b) => [`mldsa65 ${b} sign`, `mldsa65 ${b} verify`]);
    // pqclean and native depend on what is installed: present or "absent" with a note, never missing.
    expectLines(got, names, { mayBeAbsent: names.slice(2) });
    for (const n of names.slice(0, 2)) expect(got.get(n)!.value).toBeGreaterThan(0);
    for (const n of names.slice(2)) {
      const r = got.get(n)!;
      if (r.absent) expect(r.note).toMatch(/absent/);
      else expect(r.baseline).toBe(got.get(n.includes('sign') ? 'mldsa65 noble sign' : 'mldsa65 noble verify')!.value);
    }
  }, 120_000);
});
