import { describe, expect, it } from 'vitest';
import { canonicalText } from '../../src/canonical/index.js';
import type { InputError } from '../../src/errors.js';
import { parseDeclaration } from '../../src/protocol/index.js';
import { BUILTIN_COMPAT, BUILTIN_CONFIG_SCHEMAS, BUILTIN_VERSION, builtinFactories, createMemoryStateStores } from '../../src/interceptors/builtin/index.js';
import { builtinConfigIssues } from '../../src/interceptors/builtin/_config-validate.js';
import type { Json } from '../../src/interceptors/types.js';
import { examplePolicySet } from '../interceptors/builtin/_policy-helpers.js';

function issuesOf(input: unknown, path?: string): string[] {
  try {
    parseDeclaration(input, path);
  } catch (e) {
    expect(e).toMatchObject({ code: 'ERR_INPUT' });
    return (e as InputError).issues.map((i) => i.path);
  }
  throw new Error('expected an InputError');
}

/** A claims-enricher's evidence (docs/enrichers-claims.md): one fact. */
const EVIDENCE: Json = { version: 1, facts: [{ id: 'f', subject: 'ACME', attribute: 'revenue', value: 4100000000, statement: 'ACME revenue was 4.1 bn.', source: 'report' }] };

describe('parseDeclaration', () => {
  it('accepts the SEP-2624 shape and omits defaults', () => {
    const d = parseDeclaration({
      name: 'acme/pii',
      type: 'mutation',
      hooks: [{ events: ['tools/call'], phase: 'request' }],
      mode: 'active',
      failOpen: false,
      priorityHint: 0,
      description: 'redacts',
    });
    expect(d).toEqual({ name: 'acme/pii', type: 'mutation', hooks: [{ events: ['tools/call'], phase: 'request' }], description: 'redacts' });
  });

  it('keeps non-default mode, failOpen, priority hints, compat and configSchema', () => {
    const d = parseDeclaration({
      name: 'a:b.c-d_e',
      type: 'validation',
      hooks: [{ events: ['*'], phase: 'response' }],
      mode: 'audit',
      failOpen: true,
      priorityHint: { request: -50000, response: 50000 },
      compat: { minProtocol: '2025-06-18' },
      configSchema: { type: 'object' },
    });
    expect(d).toMatchObject({ mode: 'audit', failOpen: true, priorityHint: { request: -50000, response: 50000 }, compat: { minProtocol: '2025-06-18' }, configSchema: { type: 'object' } });
    expect(parseDeclaration({ name: 'x', type: 'validation', events: ['e'], phase: 'request', priorityHint: -3 }).priorityHint).toBe(-3);
    expect(parseDeclaration({ name: 'x', type: 'validation', events: ['e'], phase: 'request', priorityHint: { request: 0, response: 7 } }).priorityHint).toEqual({ response: 7 });
    expect(parseDeclaration({ name: 'x', type: 'validation', events: ['e'], phase: 'request', priorityHint: { request: 0 } }).priorityHint).toBeUndefined();
  });

  it("treats 'enforce' as active and never emits it", () => {
    const d = parseDeclaration({ name: 'x', type: 'validation', events: ['tools/call'], phase: 'request', mode: 'enforce' });
    expect(d.mode).toBeUndefined();
    expect(canonicalText(d)).not.toContain('enforce');
  });

  it('normalizes the seed shape: phase both => request then response hooks', () => {
    const both = parseDeclaration({ name: 'x', type: 'observability', events: ['tools/call', 'tools/list'], phase: 'both' });
    expect(both.hooks).toEqual([
      { events: ['tools/call', 'tools/list'], phase: 'request' },
      { events: ['tools/call', 'tools/list'], phase: 'response' },
    ]);
    const fixtureShape = parseDeclaration({ name: 'conf/x', type: 'mutation', behavior: 'uppercase-note', events: ['tools/call'], phases: 'response' });
    expect(fixtureShape).toEqual({ name: 'conf/x', type: 'mutation', hooks: [{ events: ['tools/call'], phase: 'response' }] });
  });

  it('lists every bad field by JSON Pointer, under the given prefix', () => {
    const paths = issuesOf(
      { name: 'bad name!', type: 'checker', hooks: [{ events: [], phase: 'sideways' }, 'x'], mode: 'strict', failOpen: 'yes', priorityHint: { request: 'high', later: 1 }, description: 1, compat: [], configSchema: 'no' },
      '/interceptors/2',
    );
    expect(paths.sort()).toEqual(
      [
        '/interceptors/2/name',
        '/interceptors/2/type',
        '/interceptors/2/hooks/0/events',
        '/interceptors/2/hooks/0/phase',
        '/interceptors/2/hooks/1',
        '/interceptors/2/mode',
        '/interceptors/2/failOpen',
        '/interceptors/2/priorityHint/request',
        '/interceptors/2/priorityHint/later',
        '/interceptors/2/description',
        '/interceptors/2/compat',
        '/interceptors/2/configSchema',
      ].sort(),
    );
  });

  it('checks names: non-empty, at most 200 characters, restricted alphabet', () => {
    const base = { type: 'validation', events: ['e'], phase: 'request' };
    expect(issuesOf({ ...base, name: '' })).toEqual(['/name']);
    expect(issuesOf({ ...base })).toEqual(['/name']);
    expect(issuesOf({ ...base, name: 'a'.repeat(201) })).toEqual(['/name']);
    expect(parseDeclaration({ ...base, name: 'a'.repeat(200) }).name).toHaveLength(200);
    expect(issuesOf({ ...base, name: 'é' })).toEqual(['/name']);
    expect(issuesOf({ ...base, name: 'a b' })).toEqual(['/name']);
  });

  it('refuses missing or mixed hook shapes and bad events', () => {
    expect(issuesOf({ name: 'x', type: 'validation' })).toEqual(['/events', '/phase']);
    expect(issuesOf({ name: 'x', type: 'validation', hooks: [] })).toEqual(['/hooks']);
    expect(issuesOf({ name: 'x', type: 'validation', hooks: [{ events: ['e'], phase: 'request' }], events: ['e'] })).toEqual(['/hooks']);
    expect(issuesOf({ name: 'x', type: 'validation', events: ['ok', '', 3], phase: 'request' })).toEqual(['/events/1', '/events/2']);
    expect(issuesOf({ name: 'x', type: 'validation', events: ['e'], phase: 'request', phases: 'both' })).toContain('/phases');
    expect(issuesOf({ name: 'x', type: 'validation', events: ['e'], phase: 'request', priorityHint: Number.NaN })).toEqual(['/priorityHint']);
  });

  it('refuses a non-object', () => {
    for (const v of [null, 'x', 1, []]) expect(() => parseDeclaration(v)).toThrow(expect.objectContaining({ code: 'ERR_INPUT' }));
  });

  it('returns a descriptor that does not alias the input', () => {
    const input = { name: 'x', type: 'validation', events: ['e'], phase: 'both' };
    const d = parseDeclaration(input);
    input.events.push('f');
    expect(d.hooks[0].events).toEqual(['e']);
    expect(d.hooks[1].events).toEqual(['e']);
  });
});

// The SEP-1763 seed extras: version, compat {minProtocol?, maxProtocol?} and configSchema, on the
// wire for every built-in, parsed from remote servers, each built-in's schema agreeing with its parser.
describe('declaration extras (version, compat, configSchema)', () => {
  it('parses the seed shape with version, compat and configSchema and keeps them', () => {
    const d = parseDeclaration({
      name: 'parameter-validator',
      version: '2.0.1',
      events: ['tools/call'],
      type: 'validation',
      phase: 'request',
      compat: { minProtocol: '2024-11-05', maxProtocol: '2025-12-31', future: 1 },
      configSchema: { type: 'object', properties: { strictMode: { type: 'boolean' } } },
    });
    expect(d).toEqual({
      name: 'parameter-validator',
      version: '2.0.1',
      type: 'validation',
      hooks: [{ events: ['tools/call'], phase: 'request' }],
      compat: { minProtocol: '2024-11-05', maxProtocol: '2025-12-31' },
      configSchema: { type: 'object', properties: { strictMode: { type: 'boolean' } } },
    });
    // An empty range says nothing: omitted, like any default.
    expect(parseDeclaration({ name: 'x', type: 'validation', events: ['e'], phase: 'request', compat: {} })).not.toHaveProperty('compat');
  });

  it('refuses a bad version, a malformed or inverted compat range, and a non-object configSchema, by path', () => {
    const base = { name: 'x', type: 'validation', events: ['e'], phase: 'request' };
    expect(issuesOf({ ...base, version: 2 })).toEqual(['/version']);
    expect(issuesOf({ ...base, version: '' })).toEqual(['/version']);
    expect(issuesOf({ ...base, compat: 'all' })).toEqual(['/compat']);
    expect(issuesOf({ ...base, compat: { minProtocol: 'latest', maxProtocol: 20250618 } })).toEqual(['/compat/minProtocol', '/compat/maxProtocol']);
    expect(issuesOf({ ...base, compat: { minProtocol: '2025-06-18', maxProtocol: '2024-11-05' } })).toEqual(['/compat/maxProtocol']);
    expect(issuesOf({ ...base, configSchema: [] }, '/interceptors/3')).toEqual(['/interceptors/3/configSchema']);
  });

  it('the configSchema does not alias the input', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const d = parseDeclaration({ name: 'x', type: 'validation', events: ['e'], phase: 'request', configSchema: schema });
    schema.properties.a.type = 'number';
    expect(d.configSchema).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
  });

  it('every built-in lists its version, compat and a 2020-12 config schema; a config compat narrows the range', () => {
    const deps = { policySet: examplePolicySet(), state: createMemoryStateStores() };
    const configs: Record<string, Json> = { 'rate-limit': { limit: 5 }, 'claims-enricher': { evidence: EVIDENCE } };
    for (const use of Object.keys(builtinFactories)) {
      const ic = builtinFactories[use]({ name: `b-${use}`, config: configs[use], declaration: {}, deps });
      expect(ic.descriptor, use).toMatchObject({ version: BUILTIN_VERSION, compat: BUILTIN_COMPAT, configSchema: BUILTIN_CONFIG_SCHEMAS[use] });
      expect(ic.descriptor.configSchema?.$schema, use).toBe('https://json-schema.org/draft/2020-12/schema');
      // What goes on the wire parses back to itself (a remote vouch lists the same thing).
      expect(canonicalText(parseDeclaration(JSON.parse(JSON.stringify(ic.descriptor))) as unknown as Json)).toBe(canonicalText(ic.descriptor as unknown as Json));
    }
    const narrowed = builtinFactories['pii-redactor']({ name: 'p', config: undefined, declaration: { compat: { maxProtocol: '2025-03-26' } }, deps });
    expect(narrowed.descriptor.compat).toEqual({ maxProtocol: '2025-03-26' });
  });

  // The schema is checked at load, then the parser: they must agree on what a config may be.
  const SAMPLES: Record<string, Json[]> = {
    'pii-redactor': [null, {}, { kinds: ['iban', 'email'] }, { kinds: [] }, { kinds: ['nope'] }, { kinds: 'iban' }, { other: 1 }, [], 'x'],
    'secret-redactor': [{}, { kinds: ['jwt', 'private_key'] }, { kinds: ['jwt', 'x'] }, { kinds: [1] }],
    'sensitive-field-guard': [{}, { categories: ['bank'], allow: ['user.iban'] }, { allow: [] }, { allow: [''] }, { categories: [] }, { categories: ['card', 'cvv'] }],
    'sampling-guard': [{}, { maxTokens: 100, models: ['claude-*'], maxMessages: 3, includeContext: ['none'] }, { maxTokens: 0 }, { maxTokens: 1.5 }, { includeContext: ['everything'] }, { models: [''] }],
    'llm-guard': [{}, { maxTokens: 1, denySensitive: false }, { denySensitive: 'no' }, { maxMessages: -1 }, { models: 'gpt' }],
    'roots-guard': [{}, { allow: ['file:///home/alice/project'] }, { allow: [] }, { allow: [3] }, { deny: [] }],
    'rate-limit': [{ limit: 1 }, { limit: 10, windowMs: 1000, key: ['principal', 'server'] }, {}, { limit: 0 }, { limit: 1, windowMs: 366 * 24 * 3600 * 1000 + 1 }, { limit: 1, key: ['ip'] }, { limit: '5' }],
    'schema-guard': [{}, { unknownTool: 'error' }, { unknownTool: 'ignore' }, { unknownTool: true }],
    'audit-observer': [{}, null, { level: 'info' }],
    'provenance-enricher': [{}, null, { text: false }],
    'claims-enricher': [{ evidence: EVIDENCE }, {}, null, { evidence: 'facts.json' }, { evidence: EVIDENCE, file: 'x' }],
    'cross-boundary-guard': [{}, { x: 1 }],
    'discovery-filter': [{}, { x: 1 }],
    'cedar-policy': [{}, { x: 1 }],
  };
  it('each built-in config schema accepts exactly what its parser accepts (on samples of each)', () => {
    const deps = { policySet: examplePolicySet(), state: createMemoryStateStores() };
    for (const [use, samples] of Object.entries(SAMPLES)) {
      for (const config of samples) {
        let parserOk = true;
        try {
          builtinFactories[use]({ name: 'n', config, declaration: {}, deps });
        } catch (e) {
          expect(e, `${use} ${JSON.stringify(config)}`).toMatchObject({ code: 'ERR_CONFIG' });
          parserOk = false;
        }
        const schemaOk = builtinConfigIssues(use, config, '/config').length === 0;
        expect(schemaOk, `${use} ${JSON.stringify(config)}`).toBe(parserOk);
      }
    }
    expect(Object.keys(SAMPLES).sort()).toEqual(Object.keys(BUILTIN_CONFIG_SCHEMAS).filter((u) => u !== 'secretless-redactor').sort());
  });
});
