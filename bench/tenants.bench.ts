// Many tenants (issue 40): `vouch serve` over a data directory of 1 tenant log and of 1,000 (40
// with a toy size), timed from process spawn to the first decision answered, and its resident
// memory then (VmRSS), medians of several starts, the 1-tenant directory the baseline of the same
// run. Bar: 1,000 tenants start to first decision < 1 s, and RSS < 2x that of one tenant.
// Logs: one real signed entry each (bench/_tenants-gen.ts), cached under the OS temp dir; not timed.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tenantsDataDir } from './_tenants-gen.js';
import { median, round } from './_stats.js';
import type { BenchContext, Result } from './_types.js';

const BIN = fileURLToPath(new URL('../bin/vouch.js', import.meta.url));
const BIN_FLAGS = readFileSync(BIN, 'utf8').split('\n', 1)[0].split(/\s+/).slice(3);
const DECISION = JSON.stringify({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'hi' } } });

export interface TenantsSizes {
  /** Tenant logs in the large directory (the small one has 1). */
  tenants: number;
  starts: number;
}

/** CI's smoke (test/bench/tenants.test.ts): more tenants than start-up opens (16), one start each. */
export const TOY: TenantsSizes = { tenants: 40, starts: 1 };

/** Resident set of a process, MiB (Linux /proc; NaN elsewhere). */
function rssMb(pid: number | undefined): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

async function startOnce(data: string): Promise<{ firstMs: number; rssMb: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [...BIN_FLAGS, BIN, 'serve', '--port', '0', '--data', data, '--checkpoint-idle', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        const m = /vouch ready on (http:\/\/[^\s]+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });
    const res = await fetch(`${url}/v1/authorize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: DECISION });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`first decision answered ${res.status}`);
    const firstMs = performance.now() - t0;
    return { firstMs, rssMb: rssMb(child.pid) };
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
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
