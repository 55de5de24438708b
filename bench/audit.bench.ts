// Audit bundles at scale: export, verify (structure, signatures, root) and verify with replay,
// and replay from the database, for 10,000 and 100,000 entries (2,000 and 10,000 with --quick).
// Each measurement runs in a fresh process (bench/_audit-child.ts) so its peak RSS is its own;
// generation (Appender, large batches) is not timed. Bar (DESIGN.md section 10): a 100,000-entry
// bundle verifies in under 10 s, with peak memory within 1.5x of the 10,000-entry run.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { generateBenchLog } from './_audit-gen.js';
import type { BenchContext, Result } from './_types.js';

const run$ = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHILD = fileURLToPath(new URL('./_audit-child.ts', import.meta.url));

interface Measured {
  ms: number;
  cpuMs: number;
  entries: number;
  ok: boolean;
  maxRssMb: number;
  heapPeakMb: number;
}

async function measure(mode: string, bundle: string, data: string): Promise<Measured> {
  const { stdout, stderr } = await run$(process.execPath, ['--import', 'tsx', CHILD, mode, bundle, data], { cwd: ROOT, maxBuffer: 1 << 20 });
  const m = JSON.parse(stdout.trim().split('\n').pop()!) as Measured;
  if (!m.ok) throw new Error(`${mode} of ${m.entries} entries did not come out clean: ${stderr.trim().slice(0, 1000)}`);
  return m;
}

/** The median run by wall time (fresh process each). */
async function median(mode: string, bundle: string, data: string, repeat: number): Promise<Measured> {
  const runs: Measured[] = [];
  for (let i = 0; i < repeat; i++) runs.push(await measure(mode, bundle, data));
  runs.sort((a, b) => a.ms - b.ms);
  return runs[Math.floor(runs.length / 2)];
}

/** The two log sizes measured (the memory-growth line compares them). */
export interface AuditSizes {
  sizes: [number, number];
}

/** CI's smoke (test/bench/audit.test.ts): every line, at a size that takes seconds. */
export const TOY: AuditSizes = { sizes: [40, 160] };

export async function run(ctx: BenchContext, override?: AuditSizes): Promise<Result[]> {
  const sizes = override?.sizes ?? (ctx.quick ? [2_000, 10_000] : [10_000, 100_000]);
  const label = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(n));
  const out: Result[] = [];
  const peaks: Record<number, number> = {};
  for (const n of sizes) {
    const data = ctx.tempDir(`audit-${label(n)}`);
    const bundle = join(data, 'bundle');
    const t0 = performance.now();
    await generateBenchLog(data, n);
    ctx.log(`  audit: generated ${n} entries in ${Math.round(performance.now() - t0)} ms (not timed)`);
    const exp = await measure('export', bundle, data);
    out.push({ name: `export.${label(n)}.rate`, unit: 'entries/s', value: Math.round(exp.entries / (exp.ms / 1000)), note: `${exp.entries} entries with payloads in ${(exp.ms / 1000).toFixed(2)} s` });
    const v = await median('verify', bundle, data, ctx.repeat);
    peaks[n] = v.maxRssMb;
    out.push({ name: `verify.${label(n)}.seconds`, unit: 's', value: +(v.ms / 1000).toFixed(3), note: `wall; ${(v.cpuMs / 1000).toFixed(2)} s CPU; leaves, links, root, signatures, documents` });
    out.push({ name: `verify.${label(n)}.rate`, unit: 'entries/s', value: Math.round(v.entries / (v.ms / 1000)) });
    out.push({ name: `verify.${label(n)}.peakRss`, unit: 'MiB', value: Math.round(v.maxRssMb), note: `heap high-water ${Math.round(v.heapPeakMb)} MiB` });
    const vr = await measure('verify-replay', bundle, data);
    out.push({ name: `verify-replay.${label(n)}.rate`, unit: 'entries/s', value: Math.round(vr.entries / (vr.ms / 1000)), note: `every decision replayed (Cedar + PII chain) in ${(vr.ms / 1000).toFixed(1)} s; peak RSS ${Math.round(vr.maxRssMb)} MiB` });
    const r = await measure('replay', bundle, data);
    out.push({ name: `replay.${label(n)}.rate`, unit: 'decisions/s', value: Math.round(r.entries / (r.ms / 1000)), note: `from the SQLite log; peak RSS ${Math.round(r.maxRssMb)} MiB, heap ${Math.round(r.heapPeakMb)} MiB` });
  }
  const [small, large] = sizes;
  out.push({ name: `verify.memoryGrowth.${label(large)}vs${label(small)}`, unit: 'x', value: +(peaks[large] / peaks[small]).toFixed(2), baseline: 1.5, ratio: +(peaks[large] / peaks[small] / 1.5).toFixed(2), note: 'peak RSS ratio; bar: at most 1.5' });
  return out;
}
