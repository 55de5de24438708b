// Many tenants (issue 40): `vouch serve` over a data directory of 1 tenant log and of 1,000 (40
// with a toy size), timed from process spawn to the first decision answered, and its resident
// memory then (VmRSS), medians of several starts, the 1-tenant directory the baseline of the same
// run. Bar: 1,000 tenants start to first decision < 1 s, and RSS < 2x that of one tenant.
// Logs: one real signed entry each (bench/_tenants-gen.ts), cached under the OS temp dir; not timed.
import { tenantsDataDir } from './_tenants-gen.js';
import { firstDecision, rssMbOf, startServe, stopServe } from './_serve-process.js';
import { median, round } from './_stats.js';
import type { BenchContext, Result } from './_types.js';

export interface TenantsSizes {
  /** Tenant logs in the large directory (the small one has 1). */
  tenants: number;
  starts: number;
}

/** CI's smoke (test/bench/tenants.test.ts): more tenants than start-up opens (16), one start each. */
export const TOY: TenantsSizes = { tenants: 40, starts: 1 };

async function startOnce(data: string): Promise<{ firstMs: number; rssMb: number }> {
  const { child, t0, url } = await startServe(data);
  try {
    await firstDecision(url);
    return { firstMs: performance.now() - t0, rssMb: rssMbOf(child.pid) };
  } finally {
    await stopServe(child);
  }
}

export async function run(ctx: BenchContext, sizes?: TenantsSizes): Promise<Result[]> {
  await (await fetch('data:,warm')).text(); // this process's HTTP client, loaded before timing
  const n = sizes?.tenants ?? (ctx.quick ? 200 : 1000);
  const starts = sizes?.starts ?? Math.max(3, ctx.repeat);
  const one = await tenantsDataDir(1, ctx.log);
  const many = await tenantsDataDir(n, ctx.log);
  const runs: Record<'one' | 'many', { firstMs: number; rssMb: number }[]> = { one: [], many: [] };
  // In turns, so drift on a shared machine hits both alike.
  for (let i = 0; i < starts; i++) {
    for (const k of ['one', 'many'] as const) {
      runs[k].push(await startOnce(k === 'one' ? one : many));
      ctx.log(`  tenants ${k === 'one' ? 1 : n}: ${JSON.stringify(runs[k].at(-1))}`);
    }
  }
  const first1 = median(runs.one.map((r) => r.firstMs));
  const firstN = median(runs.many.map((r) => r.firstMs));
  const out: Result[] = [
    { name: 'first-decision.1', unit: 'ms', value: Math.round(first1), note: `spawn to first decision, 1 tenant log, median of ${starts}` },
    { name: `first-decision.${n}`, unit: 'ms', value: Math.round(firstN), baseline: Math.round(first1), ratio: round(firstN / first1), note: `spawn to first decision, ${n} tenant logs (none opened at start), median of ${starts}; bar < 1000 ms` },
  ];
  const rss1 = median(runs.one.map((r) => r.rssMb));
  const rssN = median(runs.many.map((r) => r.rssMb));
  if (Number.isFinite(rss1) && Number.isFinite(rssN)) {
    out.push({ name: 'rss.1', unit: 'MiB', value: round(rss1), note: 'server VmRSS at the first decision, 1 tenant log' });
    out.push({ name: `rss.${n}`, unit: 'MiB', value: round(rssN), baseline: round(rss1), ratio: round(rssN / rss1), note: `server VmRSS at the first decision, ${n} tenant logs; bar < 2x` });
  }
  return out;
}
