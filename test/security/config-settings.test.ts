// Settings in config and policy files (`${VOUCH_NAME:-default}`): expanded from the environment
// when read, recorded expanded; the attacker is whoever controls the environment of the process
// and tries to widen the policy or copy a secret variable into the recorded policy.
import { mkdtempSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { expandSettings } from '../../src/policy/config-settings.js';
import { loadConfigFile } from '../../src/policy/load-config.js';
import { authorizeMessage } from '../../src/interceptors/builtin/cedar-policy.js';

const fixtures = fileURLToPath(new URL('../../fixtures/config/', import.meta.url));

function exampleCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-settings-'));
  for (const f of ['vouch.example.yaml', 'policy.cedar', 'schema.cedarschema.json']) copyFileSync(join(fixtures, f), join(dir, f));
  return join(dir, 'vouch.example.yaml');
}
const ctx = (event: string) => ({ event, phase: 'request' as const, direction: 'sending' as const, time: '2026-12-01T10:00:00Z', principal: 'alice', roles: ['tool-user'], server: 'filesystem', signal: new AbortController().signal });

describe('config settings', () => {
  const saved = process.env.VOUCH_FILES_ROOT;
  afterEach(() => {
    if (saved === undefined) delete process.env.VOUCH_FILES_ROOT;
    else process.env.VOUCH_FILES_ROOT = saved;
  });

  it('expands a VOUCH_ variable, else its default; leaves other text alone', () => {
    expect(expandSettings('a ${VOUCH_X:-/d} b', {})).toBe('a /d b');
    expect(expandSettings('a ${VOUCH_X:-/d} b', { VOUCH_X: '/srv/x' })).toBe('a /srv/x b');
    expect(expandSettings('${HOME} ${PATH:-x} $VOUCH_X', { HOME: '/root', VOUCH_X: 'y' })).toBe('${HOME} ${PATH:-x} $VOUCH_X');
    expect(() => expandSettings('${VOUCH_NEEDED}', {})).toThrow(/not set and has no default/);
  });

  it('refuses a value that would add a rule or widen a pattern', () => {
    for (const evil of ['/tmp/a/*', '/tmp/a" || true || "', '/tmp/../etc', '/tmp/a\\"', '/tmp/a }; permit(principal, action, resource); //', '/tmp/a b', ''.padEnd(600, 'a')])
      expect(() => expandSettings('"${VOUCH_FILES_ROOT:-/tmp/allowed}/*"', { VOUCH_FILES_ROOT: evil }), evil).toThrow(/refused/);
  });

  it('the example policy follows VOUCH_FILES_ROOT, and records the value in force', async () => {
    process.env.VOUCH_FILES_ROOT = '/srv/shared';
    const r = await loadConfigFile(exampleCopy());
    expect(r.policySource.policies).toContain('context.path like "/srv/shared/*"');
    expect(r.policySource.policies).not.toContain('${');
    expect(JSON.stringify(r.config)).toContain('file:///srv/shared');
    const read = (path: string) => authorizeMessage(r.policySet, { name: 'read_file', arguments: { path } }, ctx('tools/call')).valid;
    expect(read('/srv/shared/report.md')).toBe(true);
    expect(read('/tmp/allowed/report.md')).toBe(false);
    delete process.env.VOUCH_FILES_ROOT;
    const d = await loadConfigFile(exampleCopy());
    expect(d.policySource.policies).toContain('context.path like "/tmp/allowed/*"');
    expect(d.policyDigest).not.toBe(r.policyDigest);
  });

  it('a refused value stops the config from loading (ERR_CONFIG), with the file named', async () => {
    process.env.VOUCH_FILES_ROOT = '/tmp/x" || true || "';
    await expect(loadConfigFile(exampleCopy())).rejects.toMatchObject({ code: 'ERR_CONFIG', message: expect.stringContaining('VOUCH_FILES_ROOT') });
  });

  it('never reads a variable outside VOUCH_*, so a secret cannot reach the recorded policy', async () => {
    const path = exampleCopy();
    writeFileSync(path, readFileSync(path, 'utf8').replace('maxTokens: 4000', 'maxTokens: 4000 # ${AWS_SECRET_ACCESS_KEY:-none}'));
    process.env.AWS_SECRET_ACCESS_KEY = 'wJalrXUtnFEMI';
    try {
      const r = await loadConfigFile(path);
      expect(JSON.stringify(r.resolved)).not.toContain('wJalrXUtnFEMI');
    } finally {
      delete process.env.AWS_SECRET_ACCESS_KEY;
    }
  });
});
