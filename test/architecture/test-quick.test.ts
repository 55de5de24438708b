// `npm run test:quick` leaves out whole directories (vitest.quick.config.ts), not a list of files:
// this holds the convention that keeps it true. No test outside those directories may reach, through
// its relative imports, code that drives Chromium, builds Go or starts wrangler/workerd.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { QUICK_EXCLUDES } from '../../vitest.quick.config.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What needs a tool only `.ci/run` installs, by the directory it belongs in. */
const NEEDS: Array<{ dir: keyof typeof QUICK_EXCLUDES; what: string; marker: RegExp }> = [
  { dir: 'test/web/', what: 'Chromium', marker: /['"]playwright-core['"]/ },
  { dir: 'test/interop/', what: 'Go', marker: /\b(?:spawn|spawnSync|execFile|execFileSync|exec|execSync)\(\s*['"]go['"]/ },
  { dir: 'test/workers/', what: 'wrangler/workerd', marker: /node_modules\/\.bin\/wrangler|['"](?:wrangler|miniflare|@cloudflare\/vitest-pool-workers)['"]/ },
];

function testFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const rel = `${dir}/${name}`;
    if (statSync(join(ROOT, rel)).isDirectory()) return name === 'node_modules' ? [] : testFiles(rel);
    return rel.endsWith('.test.ts') ? [rel] : [];
  });
}

/** The file and every project file it reaches through relative imports (`./x.js` is `./x.ts` here). */
function reached(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(join(ROOT, file), 'utf8');
  for (const m of text.matchAll(/(?:from|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const target = relative(ROOT, resolve(ROOT, dirname(file), m[1]));
    if (target.startsWith('src/') || target.startsWith('node_modules/')) continue; // src/ drives none of these tools
    const ts = target.replace(/\.(?:m?js)$/, '.ts');
    for (const candidate of [ts, target]) {
      try { if (statSync(join(ROOT, candidate)).isFile()) { reached(candidate, seen); break; } } catch { /* try the next spelling */ }
    }
  }
  return seen;
}

describe('npm run test:quick leaves out by directory', () => {
  it('each directory it leaves out exists and holds tests', () => {
    for (const dir of Object.keys(QUICK_EXCLUDES)) expect(testFiles(dir.replace(/\/$/, '')).length, dir).toBeGreaterThan(0);
  });

  it('no test outside those directories reaches Chromium, Go or wrangler/workerd', () => {
    const quick = testFiles('test').filter((f) => !Object.keys(QUICK_EXCLUDES).some((dir) => f.startsWith(dir)));
    expect(quick.length).toBeGreaterThan(100);
    const misplaced: string[] = [];
    for (const file of quick) {
      for (const dep of reached(file)) {
        const text = readFileSync(join(ROOT, dep), 'utf8');
        for (const need of NEEDS) if (need.marker.test(text)) misplaced.push(`${file} needs ${need.what} (through ${dep}): move it under ${need.dir}`);
      }
    }
    expect(misplaced).toEqual([]);
  });

  it('the markers find what the left-out directories hold (so the check above can fail)', () => {
    for (const need of NEEDS) {
      const found = testFiles(need.dir.replace(/\/$/, '')).some((f) => [...reached(f)].some((dep) => need.marker.test(readFileSync(join(ROOT, dep), 'utf8'))));
      expect(found, `${need.what} in ${need.dir}`).toBe(true);
    }
  });
});
