// `npm run test:quick`, the edit-test loop: the main suite without the test directories that need
// what only `.ci/run` installs or that take minutes each (see QUICK_EXCLUDES). `npm test` runs them all.
import { defineConfig, mergeConfig } from 'vitest/config';
import main from './vitest.config.js';

/**
 * Directories left out, by what they need. A test that drives Chromium, builds Go or starts
 * workerd/wrangler lives in one of them; test/architecture/test-quick.test.ts fails on one elsewhere.
 */
export const QUICK_EXCLUDES = {
  'test/web/': 'headless Chromium (Debian package chromium)',
  'test/interop/': 'Go and golang.org/x/mod from Debian packages',
  'test/workers/': 'Cloudflare Workers (wrangler, workerd)',
} as const;

export default mergeConfig(main, defineConfig({
  test: { exclude: Object.keys(QUICK_EXCLUDES).map((dir) => `${dir}**`) },
}));
