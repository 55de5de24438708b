// Shared by the bench smokes: run a bench module at toy size in a temporary directory, as
// `npm run bench` would (results checked by the harness's own checkResults), and look lines up.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { checkResults } from '../../bench/_report.js';
import type { BenchContext, Result } from '../../bench/_types.js';

export async function runToy(module: string, run: (ctx: BenchContext) => Promise<Result[]>): Promise<Map<string, Result>> {
  const dir = mkdtempSync(join(tmpdir(), `vouch-bench-${module}-smoke-`));
  try {
    const results = checkResults(module, await run({ quick: true, repeat: 1, tempDir: () => mkdtempSync(join(dir, 'run-')), log: () => undefined }));
    return new Map(results.map((r) => [r.name, r]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every promised line is there, measured (not "absent" unless allowed), a finite number. */
export function expectLines(got: Map<string, Result>, names: string[], opts: { mayBeAbsent?: string[] } = {}): void {
  for (const name of names) {
    const r = got.get(name);
    expect(r, `line ${name} (have: ${[...got.keys()].join(', ')})`).toBeDefined();
    expect(Number.isFinite(r!.value), `${name} value`).toBe(true);
    if (!opts.mayBeAbsent?.includes(name)) expect(r!.absent, `${name} absent`).toBeUndefined();
    for (const k of ['baseline', 'ratio'] as const) if (r![k] !== undefined) expect(Number.isFinite(r![k]), `${name}.${k}`).toBe(true);
  }
}
