// Issue 19, "the first command gives the whole product": `npm start` on a fresh data directory
// serves the audit console (prestart builds web/dist when it is missing or stale), writes the
// example config into the data directory and runs it, and its ready block says where all of it is.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, startServe } from './_serve.js';

const EXAMPLE = join(ROOT, 'fixtures', 'config');

describe('first run', () => {
  it('npm start: the console answers at /audit/, the example config is created in the data dir and in force', async () => {
    const data = join(mkdtempSync(join(tmpdir(), 'vouch-first-')), 'data');
    const s = await startServe(['--port', '0', '--data', data], { npm: true, timeoutMs: 120_000 });
    try {
      // The README's promise: the example policy is in ./.vouch (here --data) after the first run.
      for (const f of ['vouch.yaml', 'policy.cedar', 'schema.cedarschema.json']) expect(existsSync(join(data, f)), f).toBe(true);
      expect(readFileSync(join(data, 'vouch.yaml'), 'utf8')).toBe(readFileSync(join(EXAMPLE, 'vouch.example.yaml'), 'utf8'));
      expect(readFileSync(join(data, 'policy.cedar'), 'utf8')).toBe(readFileSync(join(EXAMPLE, 'policy.cedar'), 'utf8'));
      // The ready block names the console, the config (created now) and the policy in force with its entry.
      expect(s.ready).toContain(`  console  ${s.url}/audit/`);
      expect(s.ready).toContain(`  config   ${join(data, 'vouch.yaml')} (created from the example on this first run`);
      expect(s.ready).toMatch(new RegExp(`  policy   tenant default: chain sha256:[0-9a-f]{12}…  policy set sha256:[0-9a-f]{12}…  from ${join(data, 'vouch.yaml').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; policy entry #0 \\(\\S+, by start-up, not pinned\\)`));
      expect(s.stderr()).not.toMatch(/NOT the policy in force/);
      // prestart ran before the service: it built web/dist or found it current (a fresh clone has none;
      // scripts/build-web.ts is tested from a missing build below, without touching the shared tree).
      expect(s.stderr()).toMatch(/audit console: (web\/dist is up to date|built in [\d.]+ s)/);
      // The console page itself, and its script.
      const page = await fetch(`${s.url}/audit/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await page.text();
      expect(html).toMatch(/<html/i);
      const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)![1];
      const js = await fetch(`${s.url}/audit/${script}`);
      expect(js.status).toBe(200);
      expect(js.headers.get('content-type')).toMatch(/javascript/);
      // The policy that runs is the file's: the example denies dangerous_tool.
      const r = await fetch(`${s.url}/v1/authorize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event: 'tools/call', phase: 'request', payload: { name: 'dangerous_tool', arguments: {} } }) });
      expect((await r.json()).effect).toBe('deny');
    } finally {
      await s.stop(); // npm and vouch get SIGTERM together; npm reports the signal, not vouch's exit code
    }
    // A second start keeps the (possibly edited) file: nothing is created, nothing overwritten.
    const again = await startServe(['--port', '0', '--data', data]);
    try {
      expect(again.ready).toContain(`  config   ${join(data, 'vouch.yaml')}  chain`);
      expect(again.ready).not.toContain('created from the example');
    } finally {
      await again.stop();
    }
  }, 240_000);

  it('--config FILE: nothing is copied into the data dir; --json ready line names console, config and the policy in force', async () => {
    const data = join(mkdtempSync(join(tmpdir(), 'vouch-first-json-')), 'data');
    const config = join(EXAMPLE, 'vouch.example.yaml');
    const s = await startServe(['--port', '0', '--data', data, '--config', config, '--json']);
    try {
      expect(existsSync(join(data, 'vouch.yaml'))).toBe(false);
      const ready = JSON.parse(s.ready.split('\n').find((l) => l.startsWith('{"msg":"vouch ready"'))!);
      expect(ready).toMatchObject({ url: s.url, console: `${s.url}/audit/`, config, configCreated: false });
      expect(ready.tenants).toEqual([
        expect.objectContaining({ tenant: 'default', chain: ready.configChain, configInForce: true, entry: expect.objectContaining({ seq: 0, by: 'start-up', pinned: false }) }),
      ]);
      expect(ready.policy).toBe(ready.configChain);
    } finally {
      await s.stop();
    }
  }, 120_000);

  it('prestart builds the console when missing or older than its sources, offline, and skips a current build', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'vouch-web-')), 'dist');
    // No network: a proxy that goes nowhere, npm offline. Vite only reads files.
    const env = { ...process.env, HTTP_PROXY: 'http://127.0.0.1:9', HTTPS_PROXY: 'http://127.0.0.1:9', npm_config_offline: 'true' };
    const run = () => spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-web.ts', '--if-stale', '--out', out], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
    const first = run();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/building .*index\.html is missing/);
    expect(readFileSync(join(out, 'index.html'), 'utf8')).toMatch(/<script defer src="\.\/assets\/console\.js">/);
    const stamp = JSON.parse(readFileSync(join(out, '.vouch-build.json'), 'utf8'));
    // The record names the project files bundled (web/src and the core modules the page imports).
    expect(stamp.sources).toEqual(expect.arrayContaining(['web/src/main.ts', 'src/receipt/index.ts']));
    const built = statSync(join(out, 'assets', 'console.js')).mtimeMs;

    const second = run();
    expect(second.status).toBe(0);
    expect(second.stderr).toMatch(/up to date/);
    expect(statSync(join(out, 'assets', 'console.js')).mtimeMs).toBe(built);

    // A build older than its sources (as after a pull that changed web/src) is redone.
    const past = new Date('2001-01-01T00:00:00Z');
    utimesSync(join(out, '.vouch-build.json'), past, past);
    const third = run();
    expect(third.status).toBe(0);
    expect(third.stderr).toMatch(/building .*is newer than the build/);
    expect(statSync(join(out, '.vouch-build.json')).mtimeMs).toBeGreaterThan(past.getTime());
  }, 300_000);

  it('package.json runs the build before `npm start`', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.scripts.prestart).toMatch(/scripts\/build-web\.ts --if-stale/);
    expect(pkg.devDependencies.vite).toBeDefined(); // installed by `npm ci`
  });
});
