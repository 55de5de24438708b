import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { digestJson } from '../../src/canonical/index.js';
import { parseConfigText, resolveConfigDocument } from '../../src/policy/index.js';
import { loadConfigFile } from '../../src/policy/load-config.js';
import { expandSettings } from '../../src/policy/config-settings.js';

const fixtures = fileURLToPath(new URL('../../fixtures/config/', import.meta.url));
const example = join(fixtures, 'vouch.example.yaml');
// As loadConfigFile reads it: settings (`${VOUCH_FILES_ROOT:-...}`) expanded.
const policyText = expandSettings(readFileSync(join(fixtures, 'policy.cedar'), 'utf8'));
const schema = JSON.parse(readFileSync(join(fixtures, 'schema.cedarschema.json'), 'utf8'));

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'vouch-config-'));
}

describe('loadConfigFile', () => {
  it('loads the example: policies inlined, digests over the resolved document', async () => {
    const r = await loadConfigFile(example);
    expect(r.policySource).toEqual({ policies: policyText, schema });
    expect(r.policyDigest).toBe(digestJson({ policies: policyText, schema }));
    expect(r.policySet.digest).toBe(r.policyDigest);
    expect(r.config.policies).toEqual({ inline: { policies: policyText, schema } });
    expect(r.chainDigest).toBe(digestJson(r.resolved));
    expect(JSON.stringify(r.resolved)).not.toContain('policy.cedar');
    expect(r.config.interceptors).toHaveLength(13);
  });

  it('rebuilds the same thing from the stored document, without files', async () => {
    const r = await loadConfigFile(example);
    const stored = JSON.parse(JSON.stringify(r.resolved));
    const again = resolveConfigDocument(stored);
    expect(again.chainDigest).toBe(r.chainDigest);
    expect(again.policyDigest).toBe(r.policyDigest);
    expect(again.config).toEqual(r.config);
    expect(resolveConfigDocument(again.resolved).chainDigest).toBe(r.chainDigest);
  });

  it('reads the same config from JSON and YAML to the same digest', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'policy.cedar'), policyText);
    writeFileSync(join(dir, 'schema.cedarschema.json'), JSON.stringify(schema));
    const doc = parseConfigText(readFileSync(example, 'utf8'), 'yaml');
    writeFileSync(join(dir, 'vouch.json'), JSON.stringify(doc, null, 2));
    writeFileSync(join(dir, 'vouch.yml'), toYaml(doc));
    const [a, b, c] = await Promise.all([loadConfigFile(join(dir, 'vouch.json')), loadConfigFile(join(dir, 'vouch.yml')), loadConfigFile(example)]);
    expect(a.chainDigest).toBe(b.chainDigest);
    expect(a.chainDigest).toBe(c.chainDigest);
  });

  it('joins several policy files in order and names the file and line of a problem', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.cedar'), '@id("a")\npermit(principal, action == Action::"tools/call", resource == Tool::"echo");\n');
    writeFileSync(join(dir, 'b.cedar'), '// second file\n\npermit(principal, action == Action::"tools/cal", resource);\n');
    writeFileSync(join(dir, 's.json'), JSON.stringify(schema));
    writeFileSync(join(dir, 'v.yaml'), 'version: 1\npolicies: { files: [a.cedar, b.cedar], schema: s.json }\ninterceptors: [{ name: authz, use: cedar-policy }]\n');
    await expect(loadConfigFile(join(dir, 'v.yaml'))).rejects.toMatchObject({
      code: 'ERR_POLICY',
      issues: [{ path: '/policies/files/1', message: expect.stringMatching(/^b\.cedar line 3:\d+: policy "policy1": unrecognized action/) }],
    });
    writeFileSync(join(dir, 'b.cedar'), '// second file\n');
    const ok = await loadConfigFile(join(dir, 'v.yaml'));
    expect(ok.policySource.policies).toBe(readFileSync(join(dir, 'a.cedar'), 'utf8') + '\n// second file\n');
  });

  it('converts a Cedar-syntax schema file to the JSON form', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'p.cedar'), 'permit(principal, action == Action::"tools/call", resource == Tool::"echo");');
    writeFileSync(join(dir, 's.cedarschema'), 'entity User; entity Tool; action "tools/call" appliesTo { principal: User, resource: Tool };');
    writeFileSync(join(dir, 'v.yaml'), 'version: 1\npolicies: { files: [p.cedar], schema: s.cedarschema }\ninterceptors: []\n');
    const r = await loadConfigFile(join(dir, 'v.yaml'));
    expect(r.policySource.schema).toMatchObject({ '': { entityTypes: { User: {}, Tool: {} } } });
  });

  it('lists every missing file', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'v.yaml'), 'version: 1\npolicies: { files: [nope.cedar, gone.cedar], schema: missing.json }\ninterceptors: []\n');
    await expect(loadConfigFile(join(dir, 'v.yaml'))).rejects.toMatchObject({
      code: 'ERR_CONFIG',
      issues: [
        { path: '/policies/files/0', message: expect.stringContaining('ENOENT') },
        { path: '/policies/files/1', message: expect.stringContaining('ENOENT') },
        { path: '/policies/schema', message: expect.stringContaining('ENOENT') },
      ],
    });
  });

  it('names the file in config errors and refuses a missing config', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'v.yaml'), 'version: 3\ninterceptors: {}\n');
    await expect(loadConfigFile(join(dir, 'v.yaml'))).rejects.toMatchObject({
      code: 'ERR_CONFIG',
      message: expect.stringContaining(join(dir, 'v.yaml')),
      issues: [{ path: '/version' }, { path: '/interceptors' }],
    });
    await expect(loadConfigFile(join(dir, 'absent.yaml'))).rejects.toMatchObject({ code: 'ERR_CONFIG' });
  });

  it('treats a config without policies as the empty (deny-all) set', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'v.json'), JSON.stringify({ version: 1, interceptors: [{ name: 'pii', use: 'pii-redactor' }] }));
    const r = await loadConfigFile(join(dir, 'v.json'));
    expect(r.policySource).toEqual({ policies: '' });
    expect(r.policyDigest).toBe(digestJson({ policies: '' }));
  });
});

describe('resolveConfigDocument', () => {
  it('refuses a document that still names policy files', () => {
    expect(() => resolveConfigDocument({ version: 1, policies: { files: ['p.cedar'] }, interceptors: [] })).toThrow(
      expect.objectContaining({ code: 'ERR_CONFIG', issues: [expect.objectContaining({ path: '/policies/files' })] }),
    );
  });

  it('refuses an inline policy set that does not validate', () => {
    expect(() => resolveConfigDocument({ version: 1, policies: { inline: { policies: 'permit(principal, action == Action::"x", resource);', schema } }, interceptors: [] })).toThrow(
      expect.objectContaining({ code: 'ERR_POLICY' }),
    );
  });
});
