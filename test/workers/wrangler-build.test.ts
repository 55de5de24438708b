// The policy you deploy is the one you edited: real `wrangler dev --local` in a copy of the project
// (its own wrangler.toml with the [build] step, its own src/worker/config.generated.json), the
// config named by $VOUCH_CONFIG. Edit the YAML, start again: the new policy decides. Edit it while
// wrangler dev runs (under watch_dir): the Worker is rebuilt with it. Settings come from the
// Worker's vars, not from the build machine, and one with no value stops the Worker with ERR_CONFIG.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatKeyText } from '../../src/crypto/index.js';
import { generateSeed } from '../../src/crypto/node.js';
import { ROOT, startDev, type DevServer } from './_wrangler.js';

const project = mkdtempSync(join(tmpdir(), 'vouch-wrangler-build-'));
const config = join(project, 'fixtures/config/team.yaml');
const key = `VOUCH_SIGNING_KEY='${formatKeyText('ML-DSA-65', generateSeed()).trim()}'`;
let dev: DevServer | undefined;

const stop = async () => {
  await dev?.stop();
  dev = undefined;
};
/** Start wrangler dev in the project copy, with these .dev.vars lines and build environment. */
const start = async (vars: string[], env: Record<string, string> = {}) => {
  await stop(); // a test that failed before its own stop leaves none running
  writeFileSync(join(project, '.dev.vars'), `${[key, ...vars].join('\n')}\n`, { mode: 0o600 });
  dev = await startDev({ persist: join(project, 'state'), envFile: join(project, '.dev.vars'), cwd: project, env: { VOUCH_CONFIG: config, WRANGLER_COMMAND: '', ...env } });
  return dev;
};

const decide = async (event: string, phase: string, payload: unknown) => {
  const res = await fetch(`${dev!.url}/v1/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ event, phase, payload, context: { sessionId: 's1', server: 'everything' } }),
  });
  const json = (await res.json()) as any;
  return { status: res.status, effect: json.effect as string | undefined, by: json.chain?.abortedAt?.interceptor as string | undefined, json };
};
const echo = () => decide('tools/call', 'request', { name: 'echo', arguments: { message: 'hi' } });
const roots = (uri: string) => decide('roots/list', 'response', { roots: [{ uri }] });

beforeAll(() => {
  for (const d of ['src', 'scripts', 'migrations', 'fixtures/config']) cpSync(join(ROOT, d), join(project, d), { recursive: true });
  for (const f of ['wrangler.toml', 'package.json', 'tsconfig.json']) cpSync(join(ROOT, f), join(project, f));
  symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'));
  mkdirSync(join(project, 'state'));
  // The team's config: the example as `vouch init` gives it, a rate limit the test will edit.
  writeFileSync(config, readFileSync(join(ROOT, 'fixtures/config/vouch.example.yaml'), 'utf8'));
});

afterAll(async () => {
  await stop();
  rmSync(project, { recursive: true, force: true });
}, 30_000);

describe('wrangler dev: the embedded config is the one on disk', () => {
  it('edit the YAML, start again: the new policy decides; the settings are the Worker vars', async () => {
    await start(['VOUCH_FILES_ROOT=/srv/shared'], { VOUCH_FILES_ROOT: '/build/machine' });
    // wrangler's [build] step embedded the team's config, not the example.
    expect(JSON.parse(readFileSync(join(project, 'src/worker/config.generated.json'), 'utf8')).source).toBe('fixtures/config/team.yaml');
    expect((await echo()).effect, dev!.output()).toBe('allow');
    // VOUCH_FILES_ROOT from the Worker's vars, not the build machine's value nor the default.
    expect((await roots('file:///srv/shared/docs')).effect).toBe('allow');
    expect((await roots('file:///build/machine')).effect).toBe('deny');
    expect((await roots('file:///tmp/allowed')).effect).toBe('deny');
    await stop();

    writeFileSync(config, readFileSync(config, 'utf8').replace('config: { limit: 6000,', 'config: { limit: 1,'));
    await start(['VOUCH_FILES_ROOT=/srv/shared']);
    // Under the edited limit of 1 a minute, the second call at the latest is denied by rate.
    await echo();
    const after = await echo();
    expect(after.effect, dev!.output()).toBe('deny');
    expect(after.by).toBe('rate');
    // No VOUCH_FILES_ROOT var now: the default.
    await stop();
  }, 300_000);

  it('an edit while wrangler dev runs (config under watch_dir) rebuilds the Worker with it', async () => {
    writeFileSync(config, readFileSync(config, 'utf8').replace('config: { limit: 1,', 'config: { limit: 6000,'));
    await start([]);
    expect((await echo()).effect, dev!.output()).toBe('allow');
    expect((await roots('file:///tmp/allowed/x')).effect).toBe('allow'); // no var: the default
    writeFileSync(config, readFileSync(config, 'utf8').replace('config: { limit: 6000,', 'config: { limit: 1,'));
    let last: Awaited<ReturnType<typeof echo>> | undefined;
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      last = await echo().catch(() => undefined);
      if (last?.effect === 'deny') break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    expect(last?.effect, dev!.output()).toBe('deny');
    expect(last?.by).toBe('rate');
    await stop();
  }, 300_000);

  it('a setting with no default and no var stops the Worker with ERR_CONFIG naming [vars]', async () => {
    writeFileSync(config, readFileSync(config, 'utf8').replace("'file://${VOUCH_FILES_ROOT:-/tmp/allowed}'", "'file://${VOUCH_TEAM_ROOT}'"));
    // The build checks the config with the build machine's value; the Worker has none.
    await start([], { VOUCH_TEAM_ROOT: '/srv/team' });
    const r = await echo();
    expect(r.status, dev!.output()).toBe(500);
    expect(r.json.error.code).toBe('ERR_CONFIG');
    expect(r.json.error.message).toContain('${VOUCH_TEAM_ROOT} is not set');
    expect(r.json.error.message).toContain('wrangler.toml [vars]');
    await stop();
    // With the var, the Worker runs it.
    await start(['VOUCH_TEAM_ROOT=/srv/team'], { VOUCH_TEAM_ROOT: '/srv/team' });
    expect((await roots('file:///srv/team/a')).effect, dev!.output()).toBe('allow');
  }, 300_000);
});
