// CI's smoke of the gateway bench (bench/gateway.bench.ts) at toy size: every line is measured and
// reported, the MCP 2026-07-28 lines beside the 2025 ones, each with the baseline it names: the
// SDK v2 client's direct call for the 2026 path, and the 2025 path's added cost of the same run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, TOY } from '../../bench/gateway.bench.js';

describe('bench/gateway.bench.ts', () => {
  it('at toy size, every line is there with its baseline, the 2026 ones beside the 2025 ones, and no call failed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-bench-gw-smoke-'));
    try {
      // A failed echo (an error result, a deny, a client that did not land on 2026-07-28) throws out of run().
      const results = await run({ quick: true, repeat: 1, tempDir: () => mkdtempSync(join(dir, 'run-')), log: () => undefined }, TOY);
      const byName = new Map(results.map((r) => [r.name, r]));
      const line = (name: string) => {
        const r = byName.get(name);
        expect(r, name).toBeDefined();
        expect(Number.isFinite(r!.value), name).toBe(true);
        return r!;
      };
      for (const era of ['', '2026']) {
        for (const q of ['p50', 'p99', 'cpu']) {
          const echo = line(`echo${era}.${q}`);
          expect(echo.value, `echo${era}.${q}`).toBeGreaterThan(0);
          expect(echo.baseline, `echo${era}.${q} baseline`).toBeGreaterThan(0);
          // added = through the gateway minus the direct call, as printed.
          const added = line(`added${era}.${q}`);
          expect(Math.abs(added.value - (echo.value - echo.baseline!)), `added${era}.${q}`).toBeLessThanOrEqual(Math.max(0.01, Math.abs(added.value) * 0.01) + 0.01 * echo.value);
        }
        expect(line(`echo${era}.c16`)).toMatchObject({ unit: 'calls/s', baseline: expect.any(Number) });
        expect(line(`echo${era}.c16`).value).toBeGreaterThan(0);
      }
      // The 2026 path's added cost is read against the 2025 path's of the same run.
      for (const q of ['p50', 'p99', 'cpu']) expect(line(`added2026.${q}`).baseline).toBe(line(`added.${q}`).value);
      for (const q of ['p50', 'p99']) expect(line(`signed.added2026.${q}`).baseline).toBe(line(`signed.added.${q}`).value);
      expect(line('echo2026.p50').note).toContain('2026-07-28');
      expect(line('added2026.minus2025.p50').unit).toBe('ms');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
