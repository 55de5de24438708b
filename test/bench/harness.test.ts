// The bench harness (bench/_harness.ts, `npm run bench`) and CI's hold on every bench module:
// a module that throws, or returns a figure that is not a number, makes the run exit non-zero and
// is named; and every bench/*.bench.ts has a smoke in test/bench/ that runs it (issue 40: the audit
// bench was broken for weeks because the run went on past it, and no smoke ran it).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { discover, runBench } from '../../bench/_harness.js';

const BENCH = fileURLToPath(new URL('../../bench/', import.meta.url));
const SMOKES = fileURLToPath(new URL('./', import.meta.url));

const OK = `export async function run() { return [{ name: 'fine', unit: 'ops/s', value: 1 }]; }\n`;
const THROWS = `export async function run() { throw new Error('verify of 10 entries did not come out clean'); }\n`;
const NAN = `export async function run() { return [{ name: 'rate', unit: 'ops/s', value: Number.NaN }]; }\n`;

/** Run the harness over a directory of the given modules; its exit code and what it wrote to stderr. */
async function harness(modules: Record<string, string>, args: string[] = ['--quick']): Promise<{ code: number; stderr: string; report: { modules: { module: string; ok: boolean }[] } }> {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-bench-harness-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(modules)) writeFileSync(join(dir, `${name}.bench.ts`), text);
  let stderr = '';
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((stderr += String(s)), true));
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    const code = await runBench(args, dir);
    return { code, stderr, report: JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8')) };
  } finally {
    err.mockRestore();
    out.mockRestore();
  }
}
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('npm run bench (bench/_harness.ts)', () => {
  it('exits 0 when every module runs and returns numbers', async () => {
    const r = await harness({ a: OK, b: OK });
    expect(r.code).toBe(0);
    expect(r.report.modules.map((m) => m.ok)).toEqual([true, true]);
  });

  it('goes on past a module that throws, then exits 1 naming it and why', async () => {
    const r = await harness({ audit: THROWS, log: OK });
    expect(r.code).toBe(1);
    expect(r.report.modules).toMatchObject([{ module: 'audit', ok: false }, { module: 'log', ok: true }]);
    expect(r.stderr).toMatch(/bench: 1 of 2 module\(s\) FAILED: audit \(verify of 10 entries did not come out clean\)/);
  });

  it('a figure that is not a finite number fails its module', async () => {
    const r = await harness({ rates: NAN });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/FAILED: rates \(rates: malformed results at \[0\]\.value\)/);
  });

  it('--only a module that fails exits 1 too', async () => {
    expect((await harness({ audit: THROWS, log: OK }, ['--quick', '--only', 'audit'])).code).toBe(1);
  });
});

describe('every bench module has a smoke in CI', () => {
  it('test/bench/NAME.test.ts exists for each bench/NAME.bench.ts, and runs that module', () => {
    const modules = discover(BENCH);
    expect(modules.length).toBeGreaterThan(0);
    const missing: string[] = [];
    for (const name of modules) {
      // A bench that needs wrangler has its smoke with the other Workers tests (test:quick leaves them out).
      const path = [join(SMOKES, `${name}.test.ts`), join(SMOKES, '..', 'workers', `bench-${name}.test.ts`)].find((p) => existsSync(p));
      if (path === undefined) {
        missing.push(`${name}: no test/bench/${name}.test.ts (or test/workers/bench-${name}.test.ts)`);
        continue;
      }
      const text = readFileSync(path, 'utf8');
      // It imports the module itself and calls its run(): a smoke of something else does not count.
      if (!text.includes(`'../../bench/${name}.bench.js'`) || !/\brun\(/.test(text)) missing.push(`${name}: ${path} does not import and run bench/${name}.bench.ts`);
    }
    expect(missing, 'add a toy-size smoke for each (see test/bench/audit.test.ts)').toEqual([]);
  });

  it('the check sees a module without a smoke', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-bench-discover-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'x'));
    writeFileSync(join(dir, 'newthing.bench.ts'), OK);
    writeFileSync(join(dir, '_helper.ts'), '');
    expect(discover(dir)).toEqual(['newthing']);
    expect(existsSync(join(SMOKES, 'newthing.test.ts'))).toBe(false);
  });
});
