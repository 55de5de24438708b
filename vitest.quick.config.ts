// `npm run test:quick`, the edit-test loop: the core's suites, without the test directories that need
// what only `.ci/run` installs or that drive real processes (see QUICK_EXCLUDES). `npm test` runs them all.
import { defineConfig, mergeConfig } from 'vitest/config';
import main from './vitest.config.js';

/**
 * Directories left out, by what they need. A test that drives Chromium, builds Go or starts
 * workerd/wrangler lives in one of them; test/architecture/test-quick.test.ts fails on one elsewhere.
 */
export const QUICK_EXCLUDES = {
  'test/web/': 'headless Chromium (Debian package chromium)',
  'test/interop/': 'Go and golang.org/x/mod, python3-cbor2 and python3-cryptography from Debian packages',
  'test/workers/': 'Cloudflare Workers (wrangler, workerd)',
  // Process-level suites: each file starts vouch, MCP servers or its CLI as real processes (seconds
  // each, most of the suite's time). The core's own suites stay: a few minutes on 2 cores.
  'test/mcp/': 'the gateway against real MCP servers, as processes',
  'test/http/': 'the service over real HTTP',
  'test/cli/': 'the command line, as processes',
  'test/security/': 'attacks played end to end against real servers',
  'test/bench/': 'every bench at toy size',
} as const;

export default mergeConfig(main, defineConfig({
  test: { exclude: Object.keys(QUICK_EXCLUDES).map((dir) => `${dir}**`) },
}));
