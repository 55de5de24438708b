// Test helpers for the audit console: build the page with Vite (web/ -> web/dist), launch the
// system's headless Chromium through playwright-core, and open the console logged in with every
// dialog and CSP violation recorded. No Chromium is a loud failure, not a skip: CI installs it
// (.ci/run), and a console test that cannot run must not pass.
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startServer, type RunningServer } from '../../src/http/node-server.js';
import { testIssuer } from '../http/_server.js';

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

/** The console freshly built, then a real server over `data` with bearer-token auth from a test issuer and no checkpoint delay. */
export async function startConsoleServer(data: string, config: string): Promise<{ server: RunningServer; issuer: Awaited<ReturnType<typeof testIssuer>> }> {
  await buildConsole();
  const issuer = await testIssuer();
  const server = await startServer({ data, port: 0, config, auth: issuer.auth, idleCheckpointMs: 0 });
  return { server, issuer };
}

export interface ConsolePage {
  browser: Browser;
  page: Page;
  /** Every alert/confirm/prompt the page raised (dismissed): markup an attacker planted must raise none. */
  dialogs: string[];
  /** Every CSP violation, `directive blocked-uri`: under the console's CSP nothing the page does may be refused. */
  violations: string[];
}

/** Chromium with one console-sized page that logs in with `auditToken` (the console's session token) on every load. */
export async function openConsolePage(auditToken: string): Promise<ConsolePage> {
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
  page.setDefaultTimeout(15_000);
  const dialogs: string[] = [];
  const violations: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.addInitScript((t) => sessionStorage.setItem('vouch.audit.token', t), auditToken);
  await page.exposeFunction('__violation', (v: string) => void violations.push(v));
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation', (e) => (window as unknown as { __violation(v: string): void }).__violation(`${e.violatedDirective} ${e.blockedURI}`)));
  return { browser, page, dialogs, violations };
}
