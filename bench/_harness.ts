// The harness behind `npm run bench [-- --json] [--only NAME] [--quick]` (bench/run.ts): runs every
// *.bench.ts module of a directory (each exports `run(ctx): Promise<Result[]>`), prints a table (or,
// with --json, one JSON object per result and nothing else on stdout), writes out/report.json, and
// exits non-zero naming every module that failed: a broken bench must not pass unnoticed (issue 40).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { checkResults, formatTable, jsonLine, machineFacts, writeReport, type ModuleOutcome } from './_report.js';
import type { BenchContext, BenchModule, Result } from './_types.js';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const USAGE = `usage: npm run bench [-- --json] [--only NAME] [--quick]
  --json     one JSON object per result on stdout, nothing else (progress goes to stderr)
  --only N   run only bench/N.bench.ts
  --quick    short workloads, one repetition`;

/** The modules of a directory: NAME for each NAME.bench.ts. */
export function discover(dir: string = BENCH_DIR): string[] {
  return readdirSync(dir).filter((f) => f.endsWith('.bench.ts')).map((f) => f.slice(0, -'.bench.ts'.length)).sort();
}

/** Run the harness over `dir`'s modules (default bench/); resolves to the exit code: 0 only if every module ran and returned well-formed results. */
export async function runBench(args: string[], dir: string = BENCH_DIR): Promise<number> {
  const HERE = dir;
  const REPORT = join(dir, 'out', 'report.json');
  let values;
  try {
    ({ values } = parseArgs({ args, options: { json: { type: 'boolean', default: false }, only: { type: 'string' }, quick: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } } }));
  } catch (e) {
    process.stderr.write(`bench: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) return process.stdout.write(USAGE + '\n'), 0;
  const all = discover(dir);
  const names = values.only ? all.filter((m) => m === values.only) : all;
  if (names.length === 0) {
    process.stderr.write(`bench: no module ${JSON.stringify(values.only)}; have ${all.join(', ') || 'none'}\n`);
    return 2;
  }
  // --json promises nothing but result lines on stdout: a module's stray console.log goes to stderr.
  if (values.json) console.log = console.info = console.error;

  const temps: string[] = [];
  const ctx: BenchContext = {
    quick: values.quick,
    repeat: values.quick ? 1 : 3,
    tempDir: (prefix) => {
      const d = mkdtempSync(join(tmpdir(), `vouch-bench-${prefix}-`));
      temps.push(d);
      return d;
    },
    log: (line) => process.stderr.write(`${line}\n`),
  };
  const startedAt = new Date().toISOString();
  const results: Result[] = [];
  const modules: ModuleOutcome[] = [];
  try {
    for (const name of names) {
      const t0 = performance.now();
      ctx.log(`bench ${name}${values.quick ? ' (quick)' : ''}...`);
      try {
        const mod = (await import(pathToFileURL(join(HERE, `${name}.bench.ts`)).href)) as Partial<BenchModule>;
        if (typeof mod.run !== 'function') throw new Error(`${name}.bench.ts does not export run(ctx)`);
        const got = checkResults(name, await mod.run(ctx)).map((r) => ({ ...r, name: `${name}.${r.name}` }));
        results.push(...got);
        if (values.json) for (const r of got) process.stdout.write(jsonLine(r) + '\n');
        modules.push({ module: name, ok: true, durationMs: Math.round(performance.now() - t0) });
      } catch (e) {
        ctx.log(`bench ${name} FAILED: ${(e as Error)?.stack ?? e}`);
        modules.push({ module: name, ok: false, durationMs: Math.round(performance.now() - t0), error: String((e as Error)?.message ?? e) });
      }
    }
  } finally {
    for (const d of temps) rmSync(d, { recursive: true, force: true });
  }
  writeReport(REPORT, { tool: 'vouch', startedAt, quick: values.quick, machine: machineFacts(), modules, results });
  if (!values.json) {
    process.stdout.write(formatTable(results) + '\n');
    const m = machineFacts();
    process.stdout.write(`\n${m.cpus} x ${m.cpuModel}, node ${m.node} ${m.nodeFlags.join(' ') || '(no flags)'}; ML-DSA-65 signer of the services measured: ${m.mldsaSigner}; report: ${REPORT}\n`);
  }
  const failed = modules.filter((m) => !m.ok);
  if (failed.length === 0) return 0;
  // Last on stderr, after the table: which modules failed and why (their stacks are above).
  process.stderr.write(`bench: ${failed.length} of ${modules.length} module(s) FAILED: ${failed.map((m) => `${m.module} (${(m.error ?? '').split('\n')[0].slice(0, 200)})`).join('; ')}\n`);
  return 1;
}
