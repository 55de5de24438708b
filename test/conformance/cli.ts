// `npm run conformance -- DIR [ERA]`: every fixture file (*.json, recursively) in DIR against a
// freshly started server per fixture, over MCP ERA (2025-11-25, the default, or 2026-07-28);
// prints one line per fixture and ends with `N passed, M failed`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runFixture, type Era, type Fixture } from './runner.js';

function files(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : f.endsWith('.json') ? [p] : [];
  });
}

const dir = process.argv[2];
const era = (process.argv[3] ?? '2025-11-25') as Era;
if (!dir || (era !== '2025-11-25' && era !== '2026-07-28')) {
  process.stderr.write('usage: npm run conformance -- DIR [2025-11-25|2026-07-28]\n');
  process.exit(2);
}
let passed = 0;
let failed = 0;
for (const file of files(dir)) {
  const f = JSON.parse(readFileSync(file, 'utf8')) as Fixture;
  if (!f || !Array.isArray(f.steps) || !Array.isArray(f.interceptors)) continue; // not a fixture (manifest, schema)
  const out = await runFixture(f, era);
  if (out.ok) passed++;
  else failed++;
  process.stdout.write(`${out.ok ? 'PASS' : 'FAIL'} ${f.id}\n`);
  for (const s of out.steps) if (!s.ok) process.stdout.write(`     step ${s.step}: ${s.detail}\n`);
}
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exitCode = failed === 0 && passed > 0 ? 0 : 1;
