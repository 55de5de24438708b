// The Worker's build inputs, checked on Node. Whatever config a team generated (`npm run
// build:config their.yaml`) must run on Workers and be current with the file it names; the example
// config (the one Node runs) resolves for the Worker with every built-in; a remote interceptor
// server is not refused (the Worker connects it); a config the Worker cannot run fails
// build:config and build:worker's check with every reason; the bundled migrations are exactly
// migrations/*.sql.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/policy/load-config.js';
import type { Json } from '../../src/interceptors/types.js';
import { resolveConfigDocument } from '../../src/policy/index.js';
import { checkGeneratedWorkerConfig, renderWorkerConfig, WORKER_CONFIG_OUT, WORKER_CONFIG_SOURCE, type GeneratedWorkerConfig } from '../../scripts/build-worker-config.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'vouch-worker-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `npm run build:config` as a user runs it (the script, with its exit code and message). */
const buildConfig = (...args: string[]) =>
  new Promise<{ code: number; out: string }>((done) =>
    execFile(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/build-worker-config.ts'), ...args], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) =>
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
    const embedded = resolveConfigDocument(rendered.config);
    expect(embedded.chainDigest).toBe(onNode.chainDigest);
    expect(embedded.policyDigest).toBe(onNode.policyDigest);
    const uses = (rendered.config as { interceptors: { use?: string }[] }).interceptors.map((d) => d.use);
    expect(uses).toEqual(expect.arrayContaining(['schema-guard', 'rate-limit', 'cross-boundary-guard', 'cedar-policy']));
  });

  it('a remote interceptor server is not refused: build:config embeds it as declared, and --check passes it', async () => {
    // Nothing listens there: the build never calls a server (the Worker connects when an isolate starts).
    const file = exampleWith('  - name: corp-remote\n    remote:\n      url: http://127.0.0.1:9/mcp\n      names: [corp/dlp-scan]\n');
    const out = join(dir, 'remote.json');
    const r = await buildConfig(file, '--out', out);
    expect(r.code, r.out).toBe(0);
    const generated = JSON.parse(readFileSync(out, 'utf8')) as { config: { interceptors: Json[] } };
    expect(generated.config.interceptors[0]).toEqual({ name: 'corp-remote', remote: { url: 'http://127.0.0.1:9/mcp', names: ['corp/dlp-scan'] } });
    const check = await buildConfig('--check', '--out', out);
    expect(check.code, check.out).toBe(0);
    expect(check.out).toContain('runs on Workers');
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

  it('build:worker checks the generated file first: a hand-edited one that cannot run stops the build', async () => {
    const generated = JSON.parse(await renderWorkerConfig()) as { source: string; config: { interceptors: Json[] } };
    generated.config.interceptors.push({ name: 'broken', use: 'schema-guard', config: { unknownTool: 'maybe' } });
    const file = join(dir, 'edited.json');
    writeFileSync(file, JSON.stringify(generated));
    const r = await buildConfig('--check', '--out', file);
    expect(r.code).toBe(1);
    expect(r.out).toContain('unknownTool');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['build:worker']).toMatch(/^node --import tsx scripts\/build-worker-config\.ts --check && /);
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
