// Compile the Node service (src/ -> dist/, tsc with tsconfig.build.json) so that `vouch` and its
// worker threads run JavaScript, with no TypeScript loader at run time. Plain JavaScript so it runs
// before anything is built. `--if-stale` builds only when a source is newer than the last build
// (npm start, npm test, npm run bench and a checkout's bin/vouch.js call it); type errors are then
// warnings, as `npm run typecheck` is the check. Usage: node scripts/build-dist.mjs [--if-stale] [--quiet]
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SRC = join(ROOT, 'src');
export const DIST = join(ROOT, 'dist');
const STAMP = join(DIST, '.vouch-build.json');
const LOCK = join(DIST, '.build-lock');
/** Not part of the Node build: the Cloudflare Worker is bundled from src by wrangler (into dist/worker). */
const EXCLUDED = (rel) => rel === 'worker.ts' || rel === 'worker' || rel.startsWith('worker/');
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'].map((f) => join(ROOT, f));

/** Source files of the build, relative to src/ (TypeScript, the .mjs worker entries, JSON). */
function sources() {
  const out = [];
  const walk = (dir) => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      const rel = relative(SRC, join(dir, d.name));
      if (EXCLUDED(rel)) continue;
      if (d.isDirectory()) walk(join(dir, d.name));
      else if (/\.(ts|mjs|json)$/.test(d.name) && !d.name.endsWith('.d.ts')) out.push(rel);
    }
  };
  walk(SRC);
  return out.sort();
}

/** Why dist/ must be rebuilt, or undefined when it is current. */
export function staleReason() {
  if (!existsSync(SRC)) return undefined; // an install without sources: dist/ is all there is
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
  } catch {
    return 'dist/ is not built';
  }
  const built = statSync(STAMP).mtimeMs;
  const now = sources();
  if (JSON.stringify(now) !== JSON.stringify(stamp.sources)) return 'source files were added or removed';
  for (const f of [...now.map((s) => join(SRC, s)), ...CONFIGS]) {
    try {
      if (statSync(f).mtimeMs > built) return `${relative(ROOT, f)} is newer than the build`;
    } catch {
      return `${relative(ROOT, f)} vanished`;
    }
  }
  return undefined;
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** One build at a time across processes (tests spawn the CLI in parallel): mkdir is atomic. */
function withLock(f) {
  mkdirSync(DIST, { recursive: true });
  const t0 = Date.now();
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      let age = 0;
      try {
        age = Date.now() - statSync(LOCK).mtimeMs;
      } catch {}
      if (age > 180_000) rmSync(LOCK, { recursive: true, force: true }); // a builder that died
      if (Date.now() - t0 > 300_000) throw new Error(`dist/ build lock ${LOCK} held for 5 minutes`);
      sleep(100);
    }
  }
  try {
    return f();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** dist/ files whose source is gone (a moved or deleted module must not keep resolving). */
function removeOrphans(srcs) {
  const want = new Set(srcs.map((s) => s.replace(/\.ts$/, '.js')));
  const walk = (dir) => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, d.name);
      const rel = relative(DIST, p);
      if (EXCLUDED(rel.replace(/\.js(\.map)?$/, '.ts')) || rel === 'worker.js' || rel.startsWith('.')) continue;
      if (d.isDirectory()) {
        walk(p);
        if (readdirSync(p).length === 0) rmSync(p, { recursive: true });
      } else if (!want.has(rel.replace(/\.map$/, ''))) rmSync(p);
    }
  };
  walk(DIST);
}

/**
 * dist/.bundle/ (scripts/bundle-dist.mjs): what bin/vouch.js and the log thread run when present.
 * Without esbuild (an install without dev dependencies), or if bundling fails, there is none, so
 * an old bundle never runs newer code: the compiled modules run as they are.
 */
function bundle(say) {
  const dir = join(DIST, '.bundle');
  rmSync(dir, { recursive: true, force: true });
  try {
    createRequire(import.meta.url).resolve('esbuild');
  } catch {
    return say('vouch build: esbuild is not installed: running dist/ unbundled');
  }
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'bundle-dist.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    say(`vouch build: bundling failed (running dist/ unbundled):\n${`${r.stdout}${r.stderr}`.trim().split('\n').slice(0, 10).join('\n')}`);
  }
}

function compile(allowTypeErrors, quiet, say) {
  const t0 = Date.now();
  const srcs = sources();
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    throw new Error('dist/ is not built and TypeScript is not installed: run `npm ci && npm run build`');
  }
  const run = () => spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, encoding: 'utf8' });
  let r = run();
  // tsc's incremental record can outlive deleted outputs: rebuild from scratch when one is missing.
  if (srcs.some((s) => s.endsWith('.ts') && !existsSync(join(DIST, s.replace(/\.ts$/, '.js'))))) {
    rmSync(join(DIST, '.tsbuildinfo'), { force: true });
    r = run();
  }
  if (r.status !== 0) {
    const text = `${r.stdout}${r.stderr}`.trim();
    if (!allowTypeErrors) throw new Error(`tsc -p tsconfig.build.json failed:\n${text}`);
    if (!quiet) process.stderr.write(`vouch build: tsc reported errors (emitted anyway; \`npm run typecheck\` checks):\n${text.split('\n').slice(0, 20).join('\n')}\n`);
  }
  for (const s of srcs.filter((s) => s.endsWith('.mjs') || s.endsWith('.json'))) {
    mkdirSync(dirname(join(DIST, s)), { recursive: true });
    copyFileSync(join(SRC, s), join(DIST, s));
  }
  removeOrphans(srcs);
  bundle(say);
  writeFileSync(STAMP, JSON.stringify({ builtBy: 'scripts/build-dist.mjs', sources: srcs }, null, 1) + '\n');
  // Dated when compiling began, so a source saved during the build makes the next check rebuild.
  utimesSync(STAMP, t0 / 1000, t0 / 1000);
  say(`vouch build: dist/ compiled in ${((Date.now() - t0) / 1000).toFixed(1)} s (${srcs.length} sources)`);
}

/** Build dist/ (always, or only when stale); returns what was done. */
export function buildDist({ ifStale = false, quiet = false, allowTypeErrors = ifStale } = {}) {
  const say = (m) => quiet || process.stderr.write(`${m}\n`);
  if (ifStale && !staleReason()) return 'up to date';
  return withLock(() => {
    const why = ifStale ? staleReason() : 'asked to build';
    if (!why) return 'up to date'; // another process built it while we waited
    say(`vouch build: compiling src/ to dist/ (${why})...`);
    compile(allowTypeErrors, quiet, say);
    return 'built';
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  try {
    const done = buildDist({ ifStale: argv.includes('--if-stale'), quiet: argv.includes('--quiet') });
    if (done === 'up to date' && !argv.includes('--quiet')) process.stderr.write('vouch build: dist/ is up to date\n');
  } catch (e) {
    process.stderr.write(`${e.message}\n`);
    process.exitCode = 1;
  }
}
