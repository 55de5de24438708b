import { defineConfig } from 'vitest/config';

// One suite for the whole project; slow process-level tests set their own timeouts.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time on the documented 2 cores (vitest's default is cores - 1, one): most files
    // wait on processes they spawned (vouch, MCP servers, wrangler, Chromium), so the second core
    // would idle. The whole suite's wall time drops by about a third; timeouts were set for a loaded machine.
    maxWorkers: 2,
    // Tests spawn bin/vouch.js, which runs dist/: build it first when stale.
    globalSetup: ['test/helpers/build-dist.ts'],
    // cose-ts (test/interop/cose-receipts.test.ts) ships ESM with extensionless relative imports,
    // which Node's loader refuses; inlined, vite's resolver reads them.
    server: { deps: { inline: ['@ldclabs/cose-ts'] } },
  },
});
