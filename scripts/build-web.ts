// Build the audit console (web/ -> web/dist) when it is missing or older than its sources, so that
// `npm start` (its `prestart`) serves /audit from the first command. Offline: Vite only reads files.
// Usage: node --import tsx scripts/build-web.ts [--if-stale] [--out DIR] [--quiet]
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const DEFAULT_OUT = join(ROOT, 'web', 'dist');
/** Written into the output: which project files the bundle was built from (paths relative to the root). */
export const STAMP = '.vouch-build.json';

/** Files that always count as sources, bundled or not: the page, its config, the lock file. */
function alwaysSources(): string[] {
  const out = [join(ROOT, 'web', 'index.html'), join(ROOT, 'vite.web.config.ts'), join(ROOT, 'package-lock.json')];
  const walk = (dir: string) => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      if (d.isDirectory()) walk(join(dir, d.name));
      else out.push(join(dir, d.name));
    }
  };
  walk(join(ROOT, 'web', 'src'));
  return out;
}

const mtime = (p: string) => {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return Infinity; // a source that vanished (renamed, deleted): rebuild
  }
};

/** Why the build in `out` must be redone, or undefined when it is current. */
export function staleReason(out = DEFAULT_OUT): string | undefined {
  if (!existsSync(join(out, 'index.html'))) return `${relative(ROOT, out) || out}/index.html is missing`;
  let stamp: { sources?: unknown };
  try {
    stamp = JSON.parse(readFileSync(join(out, STAMP), 'utf8'));
  } catch {
    return 'no build record (built by another tool)';
  }
  const built = statSync(join(out, STAMP)).mtimeMs;
  const recorded = Array.isArray(stamp.sources) ? stamp.sources.filter((s): s is string => typeof s === 'string').map((s) => join(ROOT, s)) : [];
  for (const f of new Set([...alwaysSources(), ...recorded])) {
    if (mtime(f) > built) return `${relative(ROOT, f)} is newer than the build`;
  }
  return undefined;
}

/** Build into a fresh directory, then swap it in, so that a concurrent reader never sees a half-written page. */
export async function buildWeb(out = DEFAULT_OUT): Promise<{ ms: number; sources: number }> {
  const t0 = Date.now();
  const { build } = await import('vite');
  const tmp = `${out}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(dirname(out), { recursive: true });
  const result = await build({ configFile: join(ROOT, 'vite.web.config.ts'), logLevel: 'error', build: { outDir: tmp, emptyOutDir: true } });
  const modules = new Set<string>();
  for (const o of Array.isArray(result) ? result : [result]) {
    for (const c of (o as { output?: { type: string; moduleIds?: string[] }[] }).output ?? []) {
      for (const id of c.type === 'chunk' ? c.moduleIds ?? [] : []) {
        const file = resolve(id.split('?')[0]);
        if (file.startsWith(ROOT) && !file.includes('/node_modules/') && existsSync(file)) modules.add(relative(ROOT, file));
      }
    }
  }
  if (!existsSync(join(tmp, 'index.html'))) throw new Error(`vite build wrote no index.html into ${tmp}`);
  writeFileSync(join(tmp, STAMP), JSON.stringify({ builtBy: 'scripts/build-web.ts', sources: [...modules].sort() }, null, 1) + '\n');
  const old = `${out}.${process.pid}.old`;
  if (existsSync(out)) renameSync(out, old);
  renameSync(tmp, out);
  rmSync(old, { recursive: true, force: true });
  return { ms: Date.now() - t0, sources: modules.size };
}

async function main(argv: string[]): Promise<number> {
  const ifStale = argv.includes('--if-stale');
  const quiet = argv.includes('--quiet');
  const i = argv.indexOf('--out');
  const out = i >= 0 && argv[i + 1] ? resolve(argv[i + 1]) : DEFAULT_OUT;
  const say = (m: string) => quiet || process.stderr.write(`${m}\n`);
  const why = ifStale ? staleReason(out) : 'asked to build';
  if (!why) {
    say(`audit console: ${relative(ROOT, out) || out} is up to date`);
    return 0;
  }
  try {
    await import('vite');
  } catch {
    // An install without devDependencies: the service still runs, /audit says how to build the page.
    say(`audit console not built (${why}): vite is not installed (npm ci installs it); /audit answers 404 until \`npm run build:web\``);
    return 0;
  }
  say(`audit console: building ${relative(ROOT, out) || out} (${why})...`);
  let r;
  try {
    r = await buildWeb(out);
  } catch (e) {
    if (!ifStale) throw e;
    // Before `vouch serve`: the service still starts; its ready line says the console is not there.
    process.stderr.write(`audit console build FAILED (${(e as Error).message}); ${existsSync(join(out, 'index.html')) ? 'serving the previous build' : '/audit answers 404'}\n`);
    return 0;
  }
  say(`audit console: built in ${(r.ms / 1000).toFixed(1)} s from ${r.sources} project files`);
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (e) => {
      process.stderr.write(`audit console build failed: ${(e as Error).stack ?? e}\n`);
      process.exitCode = 1;
    },
  );
}
