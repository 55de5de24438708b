import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { activatePolicy } from '../../src/decide/index.js';
import { createMemoryStateStores } from '../../src/interceptors/builtin/index.js';
import { parseConfig, parseConfigText, resolveConfigDocument } from '../../src/policy/index.js';

const exampleText = readFileSync(new URL('../../fixtures/config/vouch.example.yaml', import.meta.url), 'utf8');

function issuesOf(f: () => unknown): { path: string; message: string }[] {
  try {
    f();
  } catch (e) {
    expect(e).toMatchObject({ code: 'ERR_CONFIG', name: 'ConfigError' });
    return (e as { issues: { path: string; message: string }[] }).issues;
  }
  throw new Error('expected a ConfigError');
}

describe('parseConfig', () => {
  it('accepts the example config and normalizes it', () => {
    const c = parseConfig(parseConfigText(exampleText, 'yaml'));
    expect(c.version).toBe(1);
    expect(c.policies).toEqual({ files: ['policy.cedar'], schema: 'schema.cedarschema.json' });
    expect(c.interceptors.map((d) => ('use' in d ? d.use : 'remote'))).toEqual([
      'pii-redactor', 'secret-redactor', 'cross-boundary-guard', 'sensitive-field-guard', 'sampling-guard',
      'llm-guard', 'roots-guard', 'schema-guard', 'rate-limit', 'discovery-filter', 'cedar-policy', 'audit-observer',
      'provenance-enricher',
    ]);
    expect(c.interceptors[0]).toMatchObject({ name: 'pii', priorityHint: { request: -50000, response: 50000 } });
    expect(c.servers?.toolMap?.echo).toBe('everything');
    expect(c.drift).toMatchObject({ default: 'suspicious' });
  });

  it('a toolMap entry for a tool named "__proto__" is kept as its own entry (an upstream may expose such a tool)', () => {
    const doc = parseConfigText(exampleText, 'yaml') as { servers: { toolMap: Record<string, string> } };
    const text = JSON.stringify({ ...doc, servers: { toolMap: { read_file: 'filesystem' } } }).replace('"toolMap":{', '"toolMap":{"__proto__":"memory",');
    const c = parseConfig(JSON.parse(text));
    expect(Object.keys(c.servers!.toolMap!)).toEqual(['__proto__', 'read_file']);
    expect(Object.hasOwn(c.servers!.toolMap!, '__proto__') && c.servers!.toolMap!['__proto__']).toBe('memory');
  });

  it('is idempotent: parsing its own output gives the same config', () => {
    const c = parseConfig(parseYaml(exampleText));
    expect(parseConfig(JSON.parse(JSON.stringify(c)))).toEqual(c);
  });

  it('accepts a remote interceptor server declaration', () => {
    const c = parseConfig({ version: 1, interceptors: [{ name: 'corp-remote', remote: { url: 'http://127.0.0.1:9000/mcp', names: ['corp/dlp-scan'] }, mode: 'audit', failOpen: true }] });
    expect(c.interceptors[0]).toEqual({ name: 'corp-remote', remote: { url: 'http://127.0.0.1:9000/mcp', names: ['corp/dlp-scan'] }, mode: 'audit', failOpen: true });
  });

  it('normalizes flat events/phase to hooks and enforce to active', () => {
    const c = parseConfig({ version: 1, events: ['acme/scan'], interceptors: [{ name: 'a', use: 'x', events: ['tools/call', 'acme/scan'], phase: 'both', mode: 'enforce' }] });
    expect(c.interceptors[0]).toEqual({
      name: 'a',
      use: 'x',
      mode: 'active',
      hooks: [{ events: ['tools/call', 'acme/scan'], phase: 'request' }, { events: ['tools/call', 'acme/scan'], phase: 'response' }],
    });
  });

  it('lists every problem at once, by JSON Pointer', () => {
    const issues = issuesOf(() =>
      parseConfig({
        version: 2,
        directions: { request: 'up' },
        timeouts: { chainMs: 100, interceptorMs: 500 },
        policies: { files: [] },
        interceptors: [
          { name: 'a', use: 'pii-redactor', failOpen: 'yes' },
          { name: 'a', use: 'cedar-policy' },
          { name: 'b', use: 'x', remote: { url: 'http://x' } },
          { name: 'c', remote: { url: 'ftp://x', names: [] } },
          { name: 'd', use: 'x', hooks: [{ events: ['nope'], phase: 'sideways' }], priorityHint: 'high' },
          { use: 'x', events: ['tools/call'] },
          { name: 'bad name', use: 'x', faillOpen: true },
        ],
        servers: { toolMap: { echo: 3 } },
        extra: true,
      }),
    );
    expect(issues.map((i) => i.path)).toEqual([
      '/extra',
      '/version',
      '/directions/request',
      '/timeouts/interceptorMs',
      '/policies/files',
      '/interceptors/0/failOpen',
      '/interceptors/1/name',
      '/interceptors/2',
      '/interceptors/3/remote/url',
      '/interceptors/3/remote/names',
      '/interceptors/4/hooks/0/events/0',
      '/interceptors/4/hooks/0/phase',
      '/interceptors/4/priorityHint',
      '/interceptors/5/name',
      '/interceptors/5/phase',
      '/interceptors/6/faillOpen',
      '/interceptors/6/name',
      '/servers/toolMap/echo',
    ]);
    expect(issues.find((i) => i.path === '/interceptors/1/name')?.message).toBe('duplicate name "a" (also /interceptors/0)');
    expect(issues.find((i) => i.path === '/interceptors/6/faillOpen')?.message).toMatch(/^unknown field/);
  });

  it('reads optional, authorizes, declared events and uncovered rules', () => {
    const c = parseConfig({
      version: 1,
      events: ['acme/scan'],
      uncovered: [{ events: ['tools/list', 'acme/scan'], phase: 'both' }, { events: ['*'], phase: 'response' }],
      interceptors: [{ name: 'a', use: 'x', optional: true, authorizes: false, events: ['acme/scan'], phase: 'request' }],
    });
    expect(c.events).toEqual(['acme/scan']);
    expect(c.uncovered).toEqual([{ events: ['tools/list', 'acme/scan'], phase: 'both' }, { events: ['*'], phase: 'response' }]);
    expect(c.interceptors[0]).toMatchObject({ optional: true, authorizes: false });
  });

  it('refuses events it cannot decide on: undeclared, case variants of MCP events, bad uncovered rules', () => {
    const issues = issuesOf(() =>
      parseConfig({
        version: 1,
        events: ['Tools/Call', 'tools/call', 'nope', 'acme/x', 'acme/x'],
        uncovered: [{ events: ['tools/Call', 'acme/y'], phase: 'sideways' }, 'x'],
        interceptors: [
          { name: 'a', use: 'x', events: ['tools/Call'], phase: 'request', optional: 'yes' },
          { name: 'b', use: 'x', hooks: [{ events: ['acme/undeclared'], phase: 'response' }], authorizes: 1 },
        ],
      }),
    );
    expect(issues.map((i) => i.path)).toEqual([
      '/events/0',
      '/events/1',
      '/events/2',
      '/events/4',
      '/interceptors/0/optional',
      '/interceptors/1/authorizes',
      '/uncovered/0/events/0',
      '/uncovered/0/events/1',
      '/uncovered/0/phase',
      '/uncovered/1',
    ]);
    expect(issues[0].message).toMatch(/only by letter case/);
    // The hook checks run on declarations that parsed: a hook on tools/Call would never fire.
    const hooks = issuesOf(() => parseConfig({ version: 1, interceptors: [{ name: 'a', use: 'x', events: ['tools/Call'], phase: 'request' }, { name: 'b', use: 'x', events: ['acme/z'], phase: 'request' }] }));
    expect(hooks).toEqual([
      { path: '/interceptors/0/hooks', message: 'hooks unknown event "tools/Call" (did you mean "tools/call"?)' },
      { path: '/interceptors/1/hooks', message: 'hooks unknown event "acme/z" (declare custom events in /events)' },
    ]);
  });

  it('says so when a Cedar interceptor has no policies', () => {
    expect(issuesOf(() => parseConfig({ version: 1, interceptors: [{ name: 'authz', use: 'cedar-policy' }] }))).toEqual([
      { path: '/interceptors/0/use', message: 'cedar-policy needs a policies section' },
    ]);
  });

  it('refuses non-JSON values inside opaque blocks', () => {
    const issues = issuesOf(() => parseConfig({ version: 1, interceptors: [{ name: 'a', use: 'x', config: { limit: Number.NaN } }], drift: { x: Infinity } }));
    expect(issues.map((i) => i.path)).toEqual(['/interceptors/0/config/limit', '/drift/x']);
  });

  it('refuses a document that is not an object, and missing interceptors', () => {
    expect(issuesOf(() => parseConfig([]))).toEqual([{ path: '', message: 'must be an object' }]);
    expect(issuesOf(() => parseConfig({ version: 1 }))).toEqual([{ path: '/interceptors', message: 'required' }]);
  });
});

describe('parseConfigText', () => {
  it('reads JSON and YAML to the same value', () => {
    const fromYaml = parseConfigText(exampleText, 'yaml');
    expect(parseConfigText(JSON.stringify(fromYaml), 'json')).toEqual(fromYaml);
  });

  it('lists YAML syntax errors with their line, and refuses duplicate keys', () => {
    const issues = issuesOf(() => parseConfigText('version: 1\nversion: 2\ninterceptors: [\n', 'yaml'));
    expect(issues.length).toBeGreaterThanOrEqual(2);
    expect(issues[0].message).toMatch(/^line 2:1: /);
  });

  it('refuses malformed JSON with ERR_CONFIG', () => {
    expect(issuesOf(() => parseConfigText('{"version": 1,', 'json'))).toHaveLength(1);
  });

  it('reads YAML 1.2: no timestamps, yes/no stay strings', () => {
    expect(parseConfigText('a: 2026-01-01\nb: yes\n', 'yaml')).toEqual({ a: '2026-01-01', b: 'yes' });
  });
});

// Each built-in's `config` is checked against its JSON Schema at load: every bad field reported by
// JSON Pointer into the config document, one ConfigError (ERR_CONFIG), before any factory runs.
describe('built-in config schemas at load', () => {
  const activate = (interceptors: unknown[]) => activatePolicy(resolveConfigDocument({ version: 1, interceptors } as never), { state: createMemoryStateStores(), remote: 'offline' });
  async function loadIssues(interceptors: unknown[]): Promise<{ path: string; message: string }[]> {
    try {
      await activate(interceptors);
    } catch (e) {
      expect(e).toMatchObject({ code: 'ERR_CONFIG', name: 'ConfigError' });
      return (e as { issues: { path: string; message: string }[] }).issues;
    }
    throw new Error('expected a ConfigError');
  }

  it('reports every schema violation of every built-in by path', async () => {
    const issues = await loadIssues([
      { name: 'rl', use: 'rate-limit', config: { limit: 0, windowMs: 'soon', key: ['principal', 'ip'], burst: 3 } },
      { name: 'pii', use: 'pii-redactor', config: { kinds: ['iban', 'nope'] } },
      { name: 'sg', use: 'schema-guard', config: { unknownTool: 'ignore' } },
      { name: 'rl2', use: 'rate-limit' },
    ]);
    expect(issues.map((i) => i.path).sort()).toEqual(
      [
        '/interceptors/0/config/limit',
        '/interceptors/0/config/windowMs',
        '/interceptors/0/config/key/1',
        '/interceptors/0/config/burst',
        '/interceptors/1/config/kinds/1',
        '/interceptors/2/config/unknownTool',
        '/interceptors/3/config/limit',
      ].sort(),
    );
    expect(issues.find((i) => i.path === '/interceptors/0/config/burst')?.message).toBe('unknown option');
    expect(issues.find((i) => i.path === '/interceptors/1/config/kinds/1')?.message).toContain('allowed: iban, card');
    expect(issues.find((i) => i.path === '/interceptors/3/config/limit')?.message).toContain('required');
  });

  it('a config that fits its schema loads, and its descriptors carry the schema', async () => {
    const p = await activate([{ name: 'rl', use: 'rate-limit', config: { limit: 3 } }]);
    expect(p.interceptors[0].descriptor.configSchema).toMatchObject({ required: ['limit'], additionalProperties: false });
    await p.close();
  });

  it('a declaration may narrow compat; a malformed one is refused by path', () => {
    const c = parseConfig({ version: 1, interceptors: [{ name: 'p', use: 'pii-redactor', compat: { minProtocol: '2025-06-18' } }] });
    expect(c.interceptors[0]).toMatchObject({ compat: { minProtocol: '2025-06-18' } });
    const issues = issuesOf(() => parseConfig({ version: 1, interceptors: [{ name: 'p', use: 'pii-redactor', compat: { minProtocol: 'v1', maxProtocol: '2024-01-01' } }] }));
    expect(issues.map((i) => i.path)).toEqual(['/interceptors/0/compat/minProtocol']);
    expect(issuesOf(() => parseConfig({ version: 1, interceptors: [{ name: 'p', use: 'pii-redactor', compat: 'x' }] })).map((i) => i.path)).toEqual(['/interceptors/0/compat']);
  });
});
