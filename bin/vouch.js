#!/usr/bin/env -S node --max-semi-space-size=32
// vouch's command line. It runs the compiled JavaScript in dist/ (tsc, `npm run build`); in a
// checkout (src/ present) it first rebuilds dist/ when a source is newer, so edits are never stale.
// The young generation (--max-semi-space-size, MB per semi-space; V8's default is 16 here): each
// decision allocates about 190 KB that dies young, and at 64 concurrent callers a 16 MB space was
// scavenged twice as often, each time copying every in-flight request's objects: 32 halved the
// scavenges and cut server CPU per decision by about a tenth (docs/performance.md). V8 sizes the
// heap when the process starts, so it is a node flag: here, in `npm start` and in `npm run bench`
// alike (test/cli/node-flags.test.ts holds the three equal).
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

// Cedar's engine is 4 MB of WebAssembly. V8 compiles each of its functions with the baseline
// compiler on first call, and recompiles the ones that run a lot with the optimizing compiler on
// background threads. At V8's budget that recompiling ran all through start-up's policy load (about
// half a second of CPU on two cores, perf), and delayed the first decision. `serve` and `gateway`
// start with a budget large enough that start-up stays on baseline code; a few seconds later
// they load a new instance of the engine under V8's own budget (src/policy/engine-refresh.ts),
// so decisions are optimized as before. Set before anything loads wasm.
const serving = (process.argv[2] === 'serve' || process.argv[2] === 'gateway') && !process.argv.slice(3).some((a) => a === '--help' || a === '-h');
if (serving) {
  setFlagsFromString('--wasm-tiering-budget=2000000000');
  globalThis[Symbol.for('vouch.wasmStartUpTieringBudget')] = 2_000_000_000;
}

if (existsSync(new URL('../src/', import.meta.url))) {
  const { buildDist } = await import('../scripts/build-dist.mjs');
  buildDist({ ifStale: true, quiet: true });
}
// `vouch serve` starts its log thread before loading the rest, so the thread's start-up runs beside
// this one's (store/log-thread-start.ts prestartLogThread): the longest path of start-up otherwise.
if (serving && process.argv[2] === 'serve') (await import('../dist/store/log-thread-start.js')).prestartLogThread();
// One file (scripts/bundle-dist.mjs) when the build made it: it loads in half the time of the modules.
const bundled = new URL('../dist/.bundle/vouch.mjs', import.meta.url);
const { main } = await import(existsSync(bundled) ? bundled.href : '../dist/cli/main.js');
process.exitCode = await main(process.argv.slice(2));
