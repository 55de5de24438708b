// The config a Worker carries: settings stay unexpanded until the Worker resolves them from its own
// vars, giving exactly what Node's loadConfigFile gives with the same values (digests included);
// an unset one without a default is ERR_CONFIG naming where to set it; a config cannot read a name
// the Worker binds for itself (its signing keys, auth) or anything named like a secret.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { embeddedSettingNames, resolveEmbeddedConfig, settingsOf } from '../../src/policy/config-embedded.js';
import { resolveConfigDocument } from '../../src/policy/index.js';
import { EXAMPLE_CONFIG, loadConfigFile, readEmbeddedConfig } from '../../src/policy/load-config.js';

const dir = mkdtempSync(join(tmpdir(), 'vouch-embedded-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const saved = process.env.VOUCH_FILES_ROOT;
afterEach(() => {
  if (saved === undefined) delete process.env.VOUCH_FILES_ROOT;
  else process.env.VOUCH_FILES_ROOT = saved;
});

describe('an embedded config', () => {
  it('keeps the example setting unexpanded, whatever the build machine has set', async () => {
    const e = await readEmbeddedConfig(EXAMPLE_CONFIG.pathname, 'example', { VOUCH_FILES_ROOT: '/build/machine' });
    expect(e.text).toContain("'file://${VOUCH_FILES_ROOT:-/tmp/allowed}'");
    expect(e.policies!.join('\n')).toContain('${VOUCH_FILES_ROOT:-/tmp/allowed}');
    expect(JSON.stringify(e)).not.toContain('/build/machine');
    expect(embeddedSettingNames(e)).toEqual(['VOUCH_FILES_ROOT']);
  });

  it("resolves with the Worker's value as Node resolves the file with the same environment (same digests)", async () => {
    const e = await readEmbeddedConfig(EXAMPLE_CONFIG.pathname, 'example');
    for (const value of [undefined, '/srv/shared']) {
      if (value === undefined) delete process.env.VOUCH_FILES_ROOT;
      else process.env.VOUCH_FILES_ROOT = value;
      const onNode = await loadConfigFile(EXAMPLE_CONFIG.pathname);
      const onWorker = resolveConfigDocument(resolveEmbeddedConfig(e, value === undefined ? {} : { VOUCH_FILES_ROOT: value }));
      expect(onWorker.chainDigest).toBe(onNode.chainDigest);
      expect(onWorker.policyDigest).toBe(onNode.policyDigest);
      const roots = onWorker.config.interceptors.find((d) => d.name === 'roots') as unknown as { config: { allow: string[] } };
      expect(roots.config.allow).toEqual([`file://${value ?? '/tmp/allowed'}`]);
      expect(onWorker.policySource.policies).toContain(`"${value ?? '/tmp/allowed'}/*"`);
    }
  });

  it('a setting in a number in a flow mapping works as on Node (text, not document, is expanded)', async () => {
    const file = join(dir, 'n.yaml');
    writeFileSync(file, 'version: 1\ninterceptors:\n  - { name: rate, use: rate-limit, config: { limit: ${VOUCH_LIMIT:-100} } }\nuncovered: [{ events: ["*"], phase: both }]\n');
    const e = await readEmbeddedConfig(file, 'n.yaml');
    const doc = resolveEmbeddedConfig(e, { VOUCH_LIMIT: '3' }) as { interceptors: { config: { limit: number } }[] };
    expect(doc.interceptors[0].config.limit).toBe(3);
  });

  it('an unset setting with no default is ERR_CONFIG naming it and where to set it', async () => {
    const file = join(dir, 'u.yaml');
    writeFileSync(file, "version: 1\ninterceptors:\n  - { name: roots, use: roots-guard, config: { allow: ['file://${VOUCH_TEAM_ROOT}'] } }\nuncovered: [{ events: ['*'], phase: both }]\n");
    const e = await readEmbeddedConfig(file, 'team.yaml', { VOUCH_TEAM_ROOT: '/srv/team' });
    expect(() => resolveEmbeddedConfig(e, {}, 'wrangler.toml [vars]')).toThrow(expect.objectContaining({ code: 'ERR_CONFIG', message: expect.stringMatching(/team\.yaml: setting \$\{VOUCH_TEAM_ROOT\} is not set .*; set it in wrangler\.toml \[vars\]/) }));
    // A value that could add a rule is refused as on Node.
    expect(() => resolveEmbeddedConfig(e, { VOUCH_TEAM_ROOT: '/srv" || true || "' })).toThrow(expect.objectContaining({ code: 'ERR_CONFIG' }));
  });

  it("a config cannot read the Worker's keys, auth or anything named like a secret as a setting", () => {
    const bindings = {
      VOUCH_SIGNING_KEY: '{"v":1}',
      VOUCH_SIGNING_KEY_PREVIOUS: '{"v":1}',
      VOUCH_ED25519_KEY: '{"v":1}',
      VOUCH_AUTH: '{}',
      VOUCH_KEY_NAME: 'vouch.local',
      VOUCH_API_TOKEN: 't',
      VOUCH_DB_PASSWORD: 'p',
      VOUCH_UPSTREAM_SECRET: 's',
      VOUCH_LOG: {},
      VOUCH_FILES_ROOT: '/srv/shared',
      OTHER: 'x',
    };
    expect(settingsOf(bindings)).toEqual({ VOUCH_FILES_ROOT: '/srv/shared' });
  });
});
