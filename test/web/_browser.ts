// Test helpers for the audit console: build the page with Vite (web/ -> web/dist) and launch the
// system's headless Chromium through playwright-core. No Chromium is a loud failure, not a skip:
// CI installs it (.ci/run), and a console test that cannot run must not pass.
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));
export const OUTPUT = fileURLToPath(new URL('../../test-output/', import.meta.url));

/** Always rebuilt (about 4 s): a stale bundle would test yesterday's page. */
export async function buildConsole(): Promise<void> {
  const { build } = await import('vite');
  await build({ configFile: fileURLToPath(new URL('../../vite.web.config.ts', import.meta.url)), logLevel: 'error' });
  if (!existsSync(`${DIST}index.html`)) throw new Error('vite build did not write web/dist/index.html');
  mkdirSync(OUTPUT, { recursive: true });
}

export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => !!p);
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`Chromium not found (looked at ${candidates.join(', ')}): install it (apt-get install -y chromium, as .ci/run does) or set CHROMIUM_PATH`);
  return found;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    timeout: 30_000,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
