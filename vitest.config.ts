import { defineConfig } from 'vitest/config';

// One suite for the whole project; slow process-level tests set their own timeouts.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Tests spawn bin/vouch.js, which runs dist/: build it first when stale.
    globalSetup: ['test/helpers/build-dist.ts'],
  },
});
