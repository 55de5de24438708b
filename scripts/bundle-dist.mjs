// Bundle the compiled service (dist/) into dist/.bundle/: one file for the CLI and one for the log
// writer thread (esbuild). Node's ES module loader spends about a millisecond on each of the
// hundreds of modules `vouch serve` loads; one file loads in half the time, and start-up is what
// issue 15 times. Run by scripts/build-dist.mjs after tsc; bin/vouch.js runs the bundle when it is
// there and dist/cli/main.js otherwise (an install without esbuild still runs).
//
// Every module keeps its own place: `import.meta.url` in each is rewritten to the URL of its
// compiled file, so paths relative to it (fixtures, migrations, the console, the worker scripts)
// resolve as they do unbundled. better-sqlite3 (native) and cedar-wasm (reads its .wasm beside
// itself) stay packages.
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
export const BUNDLE_DIR = join(DIST, '.bundle');
export const BUNDLES = [
  { entry: 'cli/main.js', out: 'vouch' },
  { entry: 'store/log-thread-host.js', out: 'log-thread-host' },
  { entry: 'store/verify-thread-host.js', out: 'verify-thread-host' },
  { entry: 'crypto/sign-worker.mjs', out: 'sign-worker' },
];

function ownUrls(outFile) {
  return {
    name: 'own-module-urls',
    setup(b) {
      b.onLoad({ filter: /[\\/]dist[\\/].*\.m?js$/ }, async (args) => {
        let text = await readFile(args.path, 'utf8');
        if (text.includes('import.meta.url')) {
          const rel = relative(dirname(outFile), args.path).split('\\').join('/');
          text = text.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel.startsWith('.') ? rel : `./${rel}`)}, import.meta.url).href`);
        }
        return { contents: text, loader: 'js' };
      });
    },
  };
}

export async function bundleDist() {
  const esbuild = await import('esbuild');
  // One build, code split: what a dynamic import() loads (the other commands, the MCP SDK, the
  // OpenTelemetry exporter) is a chunk of its own, read only when used, so start-up parses only
  // what it runs. All files land in BUNDLE_DIR, the directory the URL rewrite is relative to.
  const outfile = join(BUNDLE_DIR, 'any.mjs');
  await esbuild.build({
      entryPoints: Object.fromEntries(BUNDLES.map((b) => [b.out, join(DIST, b.entry)])),
      outdir: BUNDLE_DIR,
      outExtension: { '.js': '.mjs' },
      chunkNames: 'chunk-[hash]',
      splitting: true,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      external: ['better-sqlite3', '@cedar-policy/cedar-wasm', '@cedar-policy/cedar-wasm/*', 'pqclean', 'pqclean/*'],
      // CommonJS packages inside an ES module bundle call require(): give them Node's.
      banner: { js: "import { createRequire as __vouchCreateRequire } from 'node:module'; const require = __vouchCreateRequire(import.meta.url);" },
      plugins: [ownUrls(outfile)],
      legalComments: 'none',
      logLevel: 'error',
    });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await bundleDist();
