// Benchmark output: the human table, the --json lines (one result per line, nothing else) and
// the JSON report file with the machine facts a number means nothing without.
import { mkdirSync, writeFileSync } from 'node:fs';
import { arch, cpus, platform, release } from 'node:os';
import { dirname } from 'node:path';
import { describeMldsaBackend } from '../src/crypto/mldsa-backend.js';
import { round } from './_stats.js';
import type { Result } from './_types.js';

export interface ModuleOutcome {
  module: string;
  ok: boolean;
  durationMs: number;
  error?: string;
}

export interface Report {
  tool: 'vouch';
  startedAt: string;
  quick: boolean;
  machine: { node: string; nodeFlags: string[]; platform: string; release: string; arch: string; cpus: number; cpuModel: string; mldsaSigner: string };
  modules: ModuleOutcome[];
  results: Result[];
}

/** The node flags but the module loader (`--import tsx`). */
function v8Flags(argv: string[]): string[] {
  return argv.filter((a, i) => !a.startsWith('--import') && argv[i - 1] !== '--import');
}

export function machineFacts(): Report['machine'] {
  const c = cpus();
  // The server runs in this process: its V8 flags (the young generation, bin/vouch.js) are the server's.
  return { node: process.version, nodeFlags: v8Flags(process.execArgv), platform: platform(), release: release(), arch: arch(), cpus: c.length, cpuModel: c[0]?.model ?? 'unknown', mldsaSigner: signerInUse() };
}

/** The ML-DSA-65 backend the services this run starts sign with (they pick it as `vouch serve` does). */
function signerInUse(): string {
  try {
    return describeMldsaBackend();
  } catch (e) {
    return `none: ${(e as Error)?.message ?? e}`;
  }
}

/** The --json line of one result: exactly name, unit, value and, when present, baseline and ratio. */
export function jsonLine(r: Result): string {
  const o: Record<string, string | number | boolean | null> = { name: r.name, unit: r.unit, value: r.absent ? null : r.value };
  if (r.absent) o.absent = true;
  if (r.baseline !== undefined) o.baseline = r.baseline;
  if (r.ratio !== undefined) o.ratio = r.ratio;
  return JSON.stringify(o);
}

const show = (x: number | undefined): string => (x === undefined ? '' : String(round(x)));

export function formatTable(results: Result[]): string {
  const rows = [['name', 'value', 'unit', 'baseline', 'ratio', 'note'], ...results.map((r) => [r.name, r.absent ? 'absent' : show(r.value), r.unit, show(r.baseline), r.ratio === undefined ? '' : `${round(r.ratio)}x`, r.note ?? ''])];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const numeric = new Set([1, 3, 4]);
  return rows
    .map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : numeric.has(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  ').trimEnd())
    .join('\n');
}

export function writeReport(path: string, report: Report): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(report, null, 2) + '\n');
}

/** Reject what a module returned unless every result is well-formed and its name unique. */
export function checkResults(module: string, results: unknown): Result[] {
  if (!Array.isArray(results)) throw new Error(`${module}: run() must resolve to an array of results`);
  const problems: string[] = [];
  results.forEach((r: Partial<Result>, i) => {
    if (typeof r?.name !== 'string' || r.name.length === 0) problems.push(`[${i}].name`);
    if (typeof r?.unit !== 'string') problems.push(`[${i}].unit`);
    if (typeof r?.value !== 'number' || !Number.isFinite(r.value)) problems.push(`[${i}].value`);
    for (const k of ['baseline', 'ratio'] as const) if (r?.[k] !== undefined && (typeof r[k] !== 'number' || !Number.isFinite(r[k]))) problems.push(`[${i}].${k}`);
  });
  if (problems.length > 0) throw new Error(`${module}: malformed results at ${problems.join(', ')}`);
  return results as Result[];
}
