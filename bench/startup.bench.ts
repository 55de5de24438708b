// Start-up at scale (issue 15 item 2): `vouch serve` on a log of 100,000 and 1,000,000 entries
// (10,000 and 100,000 with --quick), timed from process spawn to the ready line, to /healthz ready
// and to the first decision answered, plus how long the background leaf audit takes to finish.
// The open check is O(log n), so the first two sizes must start about equally fast (bar: < 1 s to
// the first decision, and the large log within 1.5x of the small). Also `vouch log verify` rate.
// Logs come from bench/_startup-gen.ts (cached under the OS temp dir); each size runs on a copy.
// Run alone with `npm run bench -- --only startup`. The issue-40 bars (a 5,000,000-entry log beside a
// 10,000-entry one): VOUCH_BENCH_STARTUP_SIZES=10000,5000000 npm run bench -- --only startup
// (docs/performance.md); `log verify` is then timed on both sizes, with its CPU and peak RSS.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkSignedTree } from '../src/log/index.js';
import { loadKeys, logPath, openSqliteStore } from '../src/store/node.js';
import { BIN, cpuMsOf, firstDecision, startServe, stopServe } from './_serve-process.js';
import { startupLog } from './_startup-gen.js';
import { median } from './_stats.js';
import type { BenchContext, Result } from './_types.js';

interface Started {
  readyMs: number;
  healthyMs: number;
  firstDecisionMs: number;
  /** CPU time (all threads) the server process had used when the first decision was answered: steadier than wall time on a shared machine. */
  firstDecisionCpuMs: number;
  auditMs?: number;
}

async function startOnce(data: string, auditCapMs: number): Promise<Started> {
  const { child, t0, url } = await startServe(data);
  try {
    const readyMs = performance.now() - t0;
    // The first decision, sent at once: it waits for the log to be opened and checked.
    await firstDecision(url);
    const firstDecisionMs = performance.now() - t0;
    const firstDecisionCpuMs = cpuMsOf(child.pid);
    let healthyMs = NaN;
    for (;;) {
      const h = await fetch(`${url}/healthz`);
      await h.arrayBuffer();
      if (h.status === 200) {
        healthyMs = performance.now() - t0;
        break;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    let auditMs: number | undefined;
    while (performance.now() - t0 < auditCapMs) {
      const text = await (await fetch(`${url}/metrics`)).text();
      if (/^vouch_audit_failed\{tenant="default"\} 1$/m.test(text)) throw new Error('background audit found a mismatch in a generated log');
      if (/^vouch_audit_complete\{tenant="default"\} 1$/m.test(text)) {
        auditMs = performance.now() - t0;
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    return { readyMs, healthyMs, firstDecisionMs, firstDecisionCpuMs, auditMs };
  } finally {
    await stopServe(child);
  }
}


/** `vouch log verify` of a data directory as a child process: wall, CPU (all threads) and peak RSS (/proc VmHWM, polled). */
async function timeVerify(data: string): Promise<{ ms: number; cpuMs: number; peakRssMb: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, 'log', 'verify', '--data', data, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (b) => (out += b));
  child.stderr.on('data', (b) => (err += b));
  let cpuMs = NaN;
  let peak = NaN;
  const sample = () => {
    try {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (hwm) peak = Number(hwm[1]) / 1024;
      const c = cpuMsOf(child.pid);
      if (Number.isFinite(c)) cpuMs = c;
    } catch {
      // gone between samples: the last sample stands
    }
  };
  const timer = setInterval(sample, 50);
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  clearInterval(timer);
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`log verify of the generated log failed: ${out.slice(0, 500)} ${err.slice(0, 500)}`);
  return { ms, cpuMs, peakRssMb: peak };
}

/** Sizes from VOUCH_BENCH_STARTUP_SIZES ("10000,5000000"), when set. */
function sizesFromEnv(): [number, number] | undefined {
  const v = process.env.VOUCH_BENCH_STARTUP_SIZES;
  if (!v) return undefined;
  const n = v.split(',').map(Number);
  if (n.length !== 2 || !n.every((x) => Number.isSafeInteger(x) && x > 0)) throw new Error(`VOUCH_BENCH_STARTUP_SIZES must be two sizes, "10000,5000000"; got ${JSON.stringify(v)}`);
  return [n[0], n[1]];
}

/** The two log sizes, and server starts per size (the median is reported). */
export interface StartupSizes {
  sizes: [number, number];
  starts: number;
}

/** CI's smoke (test/bench/startup.test.ts): every line, one start per size. */
export const TOY: StartupSizes = { sizes: [50, 200], starts: 1 };

export async function run(ctx: BenchContext, override?: StartupSizes): Promise<Result[]> {
  // This process's own first fetch loads its HTTP client (undici): not part of the server's start-up.
  await (await fetch('data:,warm')).text();
  const sizes = override?.sizes ?? sizesFromEnv() ?? (ctx.quick ? [10_000, 100_000] : [100_000, 1_000_000]);
  const out: Result[] = [];
  let small: number | undefined;
  let smallCpu: number | undefined;
  let smallCheck: number | undefined;
  for (const n of sizes) {
    ctx.log(`  startup: log of ${n} entries (generated once, then cached)...`);
    const cached = await startupLog(n, ctx.log);
    // A cache generated before a newer migration: apply it once, here and untimed, so each run
    // measures an ordinary restart rather than a one-off schema upgrade over the whole log.
    openSqliteStore(logPath(cached, 'default')).close();
    const data = join(ctx.tempDir('startup'), 'data');
    cpSync(cached, data, { recursive: true });
    // The copy's dirty pages reach the disk now, not during the timed starts (at 100,000 entries
    // 200 MB of writeback overlapped the first start and made it 30% slower than the same start after).
    spawnSync('sync');
    // The part of start-up that could grow with the log, alone and in-process: open the store and
    // check it against the newest signed checkpoint (what Appender.open does before signing).
    const checks: number[] = [];
    for (let i = 0; i < (override?.starts ?? Math.max(3, ctx.repeat)); i++) {
      const c0 = performance.now();
      const store = openSqliteStore(logPath(data, 'default'), { readonly: true });
      checkSignedTree(store, store.meta('origin')!, loadKeys(data).verifiers);
      store.close();
      checks.push(performance.now() - c0);
    }
    const check = median(checks);
    smallCheck ??= check;
    out.push({ name: `open-check.${n}`, unit: 'ms', value: Number(check.toFixed(2)), ...(n !== sizes[0] ? { baseline: Number(smallCheck.toFixed(2)), ratio: check / smallCheck } : {}), note: 'open the store, verify the newest note strictly, rebuild its root from stored nodes (in-process)' });
    const runs: Started[] = [];
    // At least three starts (a median, not one sample): one start is about a second.
    const starts = override?.starts ?? Math.max(3, ctx.repeat);
    for (let i = 0; i < starts; i++) {
      // The audit is timed on the first run only: it rehashes every entry, and is off the decision path.
      runs.push(await startOnce(data, i === 0 ? 600_000 : 0));
      ctx.log(`  startup ${n}: ${JSON.stringify(runs.at(-1))}`);
    }
    const first = median(runs.map((r) => r.firstDecisionMs));
    small ??= first;
    out.push({ name: `first-decision.${n}`, unit: 'ms', value: Math.round(first), ...(n !== sizes[0] ? { baseline: Math.round(small), ratio: first / small } : {}), note: `spawn to first decision answered, median of ${starts}` });
    const cpu = median(runs.map((r) => r.firstDecisionCpuMs));
    smallCpu ??= cpu;
    if (Number.isFinite(cpu)) out.push({ name: `first-decision-cpu.${n}`, unit: 'ms', value: Math.round(cpu), ...(n !== sizes[0] ? { baseline: Math.round(smallCpu), ratio: cpu / smallCpu } : {}), note: 'server CPU (all threads) from spawn to the first decision' });
    out.push({ name: `ready-line.${n}`, unit: 'ms', value: Math.round(median(runs.map((r) => r.readyMs))), note: 'spawn to the ready line' });
    out.push({ name: `healthz-ready.${n}`, unit: 'ms', value: Math.round(median(runs.map((r) => r.healthyMs))), note: 'spawn to /healthz 200 (polled after the first decision)' });
    if (runs[0].auditMs !== undefined) out.push({ name: `audit-complete.${n}`, unit: 'ms', value: Math.round(runs[0].auditMs), note: 'spawn to vouch_audit_complete 1 (background, off the decision path)' });
    // Every size: the rate must not fall as the log grows, nor memory grow with it (issue 40: >= 50,000/s on two cores).
    const v = await timeVerify(data);
    out.push({ name: `log-verify.${n}`, unit: 'entries/s', value: Math.round((n / v.ms) * 1000), note: `\`vouch log verify\` wall time, process start included; ${(v.cpuMs / 1000).toFixed(1)} s CPU (all threads), ${Math.round((n / v.cpuMs) * 1000)} entries per CPU-second` });
    out.push({ name: `log-verify-peak-rss.${n}`, unit: 'MiB', value: Math.round(v.peakRssMb), note: 'VmHWM of the verify process (its threads included)' });
  }
  return out;
}
