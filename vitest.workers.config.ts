// The suite that runs inside workerd (@cloudflare/vitest-pool-workers): the store conformance
// suite against the Durable Object store, and decisions end to end through the Worker. Node-side
// Worker tests (bundle scan, wrangler dev) are in test/workers/*.test.ts of the main config.
import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

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
      },
    }),
  ],
  resolve: {
    // As wrangler.toml [alias]: the Cedar web build, initialized from the bundled wasm module.
    alias: { '@cedar-policy/cedar-wasm/nodejs': fileURLToPath(new URL('./src/worker/cedar-web.ts', import.meta.url)) },
  },
  test: {
    // *.spec.ts, not *.test.ts: the main (Node) config runs every test/**/*.test.ts.
    include: ['test/workers/workerd/**/*.spec.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
