// The suite that runs inside workerd (@cloudflare/vitest-pool-workers): the store conformance
// suite against the Durable Object store, and decisions end to end through the Worker. Node-side
// Worker tests (bundle scan, wrangler dev) are in test/workers/*.test.ts of the main config.
import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The specs run the example config (the one Node runs), not whatever a team last generated into
// src/worker/config.generated.json with `npm run build:config their.yaml`: it is resolved here,
// through the same build step, and stands in for the generated file.
const exampleConfig = fileURLToPath(new URL('./test-output/workers/config.example.json', import.meta.url));
mkdirSync(fileURLToPath(new URL('./test-output/workers/', import.meta.url)), { recursive: true });
execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build-worker-config.ts', 'fixtures/config/vouch.example.yaml', '--out', exampleConfig], {
  cwd: fileURLToPath(new URL('.', import.meta.url)),
  env: { ...process.env, VOUCH_FILES_ROOT: '' },
  stdio: ['ignore', 'ignore', 'inherit'],
});

/** Fixed test keys (seeds of 7s and 8s), in the key text form of the secrets. */
const key = (alg: string, byte: number) => JSON.stringify({ v: 1, alg, seed: Buffer.alloc(32, byte).toString('base64') });

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: './wrangler.toml' },
      miniflare: {
        bindings: {
          VOUCH_SIGNING_KEY: key('ML-DSA-65', 7),
          VOUCH_ED25519_KEY: key('Ed25519', 8),
          VOUCH_KEY_NAME: 'test.vouch',
        },
        // An R2 bucket for the tile archive specs (archive-r2.spec.ts), which hand it to their log
        // objects as VOUCH_ARCHIVE. Not bound under that name: the other specs run without an archive.
        r2Buckets: ['ARCHIVE_TEST'],
      },
    }),
  ],
  resolve: {
    // As wrangler.toml [alias]: the Cedar web build, initialized from the bundled wasm module.
    alias: [
      { find: '@cedar-policy/cedar-wasm/nodejs', replacement: fileURLToPath(new URL('./src/worker/cedar-web.ts', import.meta.url)) },
      { find: /^\.\/config\.generated\.json$/, replacement: exampleConfig },
    ],
  },
  test: {
    // *.spec.ts, not *.test.ts: the main (Node) config runs every test/**/*.test.ts.
    include: ['test/workers/workerd/**/*.spec.ts'],
    // A real vouch interceptor server on 127.0.0.1 for the remote interceptor specs (remote.spec.ts),
    // a real `vouch witness` for the witnessing specs (witness.spec.ts), an OTLP receiver (otlp.spec.ts),
    // `vouch verify` on Node for bundles a Worker exported (retention.spec.ts).
    globalSetup: ['test/workers/workerd/_remote-server.ts', 'test/workers/workerd/_witness-server.ts', 'test/workers/workerd/_otlp-collector.ts', 'test/workers/workerd/_node-verifier.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
