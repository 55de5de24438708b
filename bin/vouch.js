#!/usr/bin/env node
// vouch's command line. It runs the compiled JavaScript in dist/ (tsc, `npm run build`); in a
// checkout (src/ present) it first rebuilds dist/ when a source is newer, so edits are never stale.
import { existsSync } from 'node:fs';

if (existsSync(new URL('../src/', import.meta.url))) {
  const { buildDist } = await import('../scripts/build-dist.mjs');
  buildDist({ ifStale: true, quiet: true });
}
const { main } = await import('../dist/cli/main.js');
process.exitCode = await main(process.argv.slice(2));
