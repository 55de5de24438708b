// The Worker's build inputs, checked on Node. Whatever config a team generated (`npm run
// build:config their.yaml`) must run on Workers and be current with the file it names; the example
// config (the one Node runs) resolves for the Worker with every built-in; a remote interceptor
// server is not refused (the Worker connects it) unless a deployed Worker cannot reach it; a config
// the Worker cannot run fails build:config with every reason; a generated file older than its
// config fails --check; settings stay unexpanded until the Worker resolves them from its vars;
// the bundled migrations are exactly migrations/*.sql.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/policy/load-config.js';
import type { Json } from '../../src/interceptors/types.js';
import { resolveConfigDocument } from '../../src/policy/index.js';
import { resolveEmbeddedConfig } from '../../src/policy/config-embedded.js';
import { checkGeneratedWorkerConfig, renderWorkerConfig, WORKER_CONFIG_OUT, WORKER_CONFIG_SOURCE, workerConfigSource, type GeneratedWorkerConfig } from '../../scripts/build-worker-config.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'vouch-worker-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `npm run build:config` as a user runs it (the script, with its exit code and message). */
const buildConfig = (...args: string[]) => buildConfigWith({}, ...args);
const buildConfigWith = (env: Record<string, string>, ...args: string[]) =>
  new Promise<{ code: number; out: string }>((done) =>
    execFile(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/build-worker-config.ts'), ...args], { cwd: ROOT, timeout: 60_000, env: { ...process.env, WRANGLER_COMMAND: '', VOUCH_CONFIG: '', ...env } }, (err, stdout, stderr) =>
      done({ code: err ? Number(err.code ?? 1) : 0, out: stdout + stderr }),
    ),
  );

function exampleWith(extra: string): string {
  const text = readFileSync(WORKER_CONFIG_SOURCE, 'utf8').replace('policies:\n  files: [policy.cedar]\n  schema: schema.cedarschema.json', `policies:\n  files: [${join(ROOT, 'fixtures/config/policy.cedar')}]\n  schema: ${join(ROOT, 'fixtures/config/schema.cedarschema.json')}`);
  const file = join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, text.replace('interceptors:\n', `interceptors:\n${extra}`));
  return file;
}

describe('the Worker config', () => {
  it('the generated config (whichever config it came from) runs on Workers and is current with its source', async () => {
    const generated = await checkGeneratedWorkerConfig();
    const source = resolve(ROOT, generated.source);
    // A team's own config is re-rendered from its own file, so `npm run build:config team.yaml`
    // leaves `npm test` green; only a file changed since its last build:config is stale.
    if (existsSync(source)) expect(readFileSync(WORKER_CONFIG_OUT, 'utf8'), `stale: run npm run build:config ${generated.source}`).toBe(await renderWorkerConfig(source));
  });

  it('the example config, the one Node runs, resolves for the Worker with every built-in (no reduced Worker config)', async () => {
    const rendered = JSON.parse(await renderWorkerConfig()) as GeneratedWorkerConfig;
    expect(rendered.source).toBe('fixtures/config/vouch.example.yaml');
    const onNode = await loadConfigFile(WORKER_CONFIG_SOURCE);
    const document = resolveEmbeddedConfig(rendered, {});
    const embedded = resolveConfigDocument(document);
    expect(embedded.chainDigest).toBe(onNode.chainDigest);
    expect(embedded.policyDigest).toBe(onNode.policyDigest);
    const uses = (document as { interceptors: { use?: string }[] }).interceptors.map((d) => d.use);
    expect(uses).toEqual(expect.arrayContaining(['schema-guard', 'rate-limit', 'cross-boundary-guard', 'cedar-policy']));
  });

  it('a remote interceptor server is not refused: build:config embeds it as declared, and --check passes it', async () => {
    // Nothing listens there: the build never calls a server (the Worker connects when an isolate starts).
    const file = exampleWith('  - name: corp-remote\n    remote:\n      url: https://dlp.corp.example/mcp\n      names: [corp/dlp-scan]\n');
    const out = join(dir, 'remote.json');
    const r = await buildConfig(file, '--out', out);
    expect(r.code, r.out).toBe(0);
    const generated = JSON.parse(readFileSync(out, 'utf8')) as GeneratedWorkerConfig;
    expect((resolveEmbeddedConfig(generated, {}) as { interceptors: Json[] }).interceptors[0]).toEqual({ name: 'corp-remote', remote: { url: 'https://dlp.corp.example/mcp', names: ['corp/dlp-scan'] } });
    const check = await buildConfig('--check', '--out', out);
    expect(check.code, check.out).toBe(0);
    expect(check.out).toContain('runs on Workers');
  });

  // The operator who declares a server only reachable from the build machine's network: the build
  // passed and every call was a recorded deny once deployed. Now the build says why, for every
  // spelling of such an address; `wrangler dev` (WRANGLER_COMMAND=dev) runs the Worker here and may.
  it.each([
    ['http://127.0.0.1:9000/mcp', 'loopback'],
    ['http://2130706433:9000/mcp', 'loopback'],
    ['http://0x7f.1:9000/mcp', 'loopback'],
    ['http://[::1]:9000/mcp', 'loopback'],
    ['http://[::ffff:127.0.0.1]/mcp', 'loopback'],
    ['http://localhost:9000/mcp', 'localhost'],
    ['http://dlp.localhost/mcp', 'localhost'],
    ['http://10.2.3.4/mcp', 'private'],
    ['http://172.20.0.5/mcp', 'private'],
    ['http://192.168.1.10/mcp', 'private'],
    ['http://169.254.169.254/mcp', 'link-local'],
    ['http://[fd12::1]/mcp', 'unique-local'],
    ['http://100.64.1.1/mcp', 'shared address space'],
    ['http://0.0.0.0/mcp', 'unspecified'],
  ])('a remote interceptor server at %s is refused by the build for a deployed Worker (%s)', async (url, why) => {
    const file = exampleWith(`  - name: corp-remote\n    remote:\n      url: ${url}\n      names: [corp/dlp-scan]\n`);
    const err = await renderWorkerConfig(file).then(() => undefined, (e: unknown) => e as { code: string; message: string; issues: { path: string; message: string }[] });
    expect(err?.code).toBe('ERR_CONFIG');
    expect(err?.issues).toEqual([{ path: '/interceptors/0/remote/url', message: expect.stringContaining(why) }]);
    expect(err?.message).toContain('a deployed Worker cannot reach it');
    // Built for wrangler dev, the Worker runs on this machine and may reach it.
    await expect(renderWorkerConfig(file, { target: 'local' })).resolves.toContain('corp-remote');
  });

  it('build:config says why and writes nothing for a loopback server', async () => {
    const file = exampleWith('  - name: corp-remote\n    remote:\n      url: http://127.0.0.1:9000/mcp\n      names: [corp/dlp-scan]\n');
    const out = join(dir, 'loopback.json');
    const r = await buildConfig(file, '--out', out);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(/^vouch: ERR_CONFIG: .*\/interceptors\/0\/remote\/url: http:\/\/127\.0\.0\.1:9000\/mcp is loopback \(127\.0\.0\.0\/8\): a deployed Worker cannot reach it/m);
    expect(existsSync(out)).toBe(false);
  });

  it('wrangler dev builds the same config with a loopback server (the Worker runs on this machine)', async () => {
    const file = exampleWith('  - name: corp-remote\n    remote:\n      url: http://127.0.0.1:9000/mcp\n      names: [corp/dlp-scan]\n');
    const out = join(dir, 'dev.json');
    const r = await buildConfigWith({ WRANGLER_COMMAND: 'dev' }, file, '--out', out);
    expect(r.code, r.out).toBe(0);
    expect(existsSync(out)).toBe(true);
  });

  it('a config the Worker cannot run fails build:config with every reason, and nothing is written', async () => {
    const file = exampleWith('  - name: nope\n    use: no-such-guard\n  - name: rate2\n    use: rate-limit\n    config: { limit: 0 }\n');
    const out = join(dir, 'never.json');
    const r = await buildConfig(file, '--out', out);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^vouch: ERR_CONFIG: /m);
    expect(r.out).toContain('no-such-guard');
    expect(r.out).toContain('/interceptors/1/config');
    expect(existsSync(out)).toBe(false);
  });

  it('--check refuses a hand-edited generated file that cannot run', async () => {
    const generated = JSON.parse(await renderWorkerConfig()) as GeneratedWorkerConfig;
    generated.text = generated.text.replace('interceptors:\n', 'interceptors:\n  - name: broken\n    use: schema-guard\n    config: { unknownTool: maybe }\n');
    generated.source = 'nowhere/vouch.yaml';
    const file = join(dir, 'edited.json');
    writeFileSync(file, JSON.stringify(generated));
    const r = await buildConfig('--check', '--out', file);
    expect(r.code).toBe(1);
    expect(r.out).toContain('unknownTool');
  });

  // The issue: the YAML was edited, `npm run build:worker` said "runs on Workers" over the old
  // embedded config. --check compares with the file it came from; wrangler.toml [build] makes every
  // wrangler dev, wrangler deploy and build:worker embed the config as it is now.
  it('a generated file older than its config (or a policy file it names) fails --check with ERR_CONFIG naming the fix', async () => {
    const file = exampleWith('');
    const out = join(dir, 'stale.json');
    writeFileSync(out, await renderWorkerConfig(file));
    await expect(checkGeneratedWorkerConfig(out)).resolves.toMatchObject({ format: 'yaml' });
    writeFileSync(file, readFileSync(file, 'utf8').replace('config: { limit: 6000,', 'config: { limit: 5,'));
    const r = await buildConfig('--check', '--out', out);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(/^vouch: ERR_CONFIG: .*is stale: .*changed since it was generated; run npm run build:config /m);
    // A policy file it names, too.
    const policy = join(dir, 'policy.cedar');
    writeFileSync(policy, readFileSync(join(ROOT, 'fixtures/config/policy.cedar'), 'utf8'));
    const own = join(dir, 'own-policy.yaml');
    writeFileSync(own, readFileSync(file, 'utf8').replace(/files: \[[^\]]+\]/, 'files: [policy.cedar]'));
    const out2 = join(dir, 'stale2.json');
    writeFileSync(out2, await renderWorkerConfig(own));
    await checkGeneratedWorkerConfig(out2);
    writeFileSync(policy, `${readFileSync(policy, 'utf8')}\nforbid (principal, action, resource);\n`);
    await expect(checkGeneratedWorkerConfig(out2)).rejects.toMatchObject({ code: 'ERR_CONFIG', message: expect.stringContaining('is stale') });
  }, 120_000);

  it('wrangler.toml builds the config before every wrangler dev and deploy; build:worker goes through it', () => {
    const toml = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8');
    expect(toml).toMatch(/^\[build\]\ncommand = "node --import tsx scripts\/build-worker-config\.ts"$/m);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['build:worker']).toMatch(/wrangler deploy --dry-run/);
  });

  it('which config: the argument, else $VOUCH_CONFIG, else .vouch/vouch.yaml (vouch init), else the example', () => {
    const project = mkdtempSync(join(dir, 'project-'));
    expect(workerConfigSource(undefined, {}, project)).toBe(WORKER_CONFIG_SOURCE);
    mkdirSync(join(project, '.vouch'));
    writeFileSync(join(project, '.vouch/vouch.yaml'), 'version: 1\n');
    expect(workerConfigSource(undefined, {}, project)).toBe(join(project, '.vouch/vouch.yaml'));
    expect(workerConfigSource(undefined, { VOUCH_CONFIG: 'team/vouch.yaml' }, project)).toBe(join(project, 'team/vouch.yaml'));
    expect(workerConfigSource('/abs/x.yaml', { VOUCH_CONFIG: 'team/vouch.yaml' }, project)).toBe('/abs/x.yaml');
  });

  it('$VOUCH_CONFIG names the config build:config embeds', { timeout: 120_000 }, async () => {
    const file = exampleWith('');
    const out = join(dir, 'named.json');
    const r = await buildConfigWith({ VOUCH_CONFIG: file, VOUCH_FILES_ROOT: '/build/machine' }, '--out', out);
    expect(r.code, r.out).toBe(0);
    // A setting given to the build is not the Worker's: said, and not embedded.
    expect(r.out).toContain('VOUCH_FILES_ROOT set in the build environment is not what the Worker uses: put it in wrangler.toml [vars]');
    expect(readFileSync(out, 'utf8')).not.toContain('/build/machine');
    expect((JSON.parse(readFileSync(out, 'utf8')) as GeneratedWorkerConfig).text).toBe(readFileSync(file, 'utf8'));
  });

  it('the Worker bundles every migration, in order (src/worker/migrations.ts)', () => {
    const onDisk = readdirSync(new URL('../../migrations/', import.meta.url)).filter((f) => f.endsWith('.sql')).sort();
    const source = readFileSync(new URL('../../src/worker/migrations.ts', import.meta.url), 'utf8');
    const imported = [...source.matchAll(/from '\.\.\/\.\.\/migrations\/(\d{4}_[a-z0-9_]+\.sql)'/g)].map((m) => m[1]);
    const listed = [...source.matchAll(/file: '(\d{4}_[a-z0-9_]+\.sql)'/g)].map((m) => m[1]);
    expect(imported).toEqual(onDisk);
    expect(listed).toEqual(onDisk);
  });
});
