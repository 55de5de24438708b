// The example config end to end: loaded from files, every declaration built by its factory.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtinFactories } from '../../src/interceptors/builtin/index.js';
import { createMemoryStateStores } from '../../src/interceptors/builtin/state-memory.js';
import { descriptorOverridesOf, isRemoteDeclaration } from '../../src/policy/index.js';
import { loadConfigFile } from '../../src/policy/load-config.js';

const example = fileURLToPath(new URL('../../fixtures/config/vouch.example.yaml', import.meta.url));

describe('fixtures/config/vouch.example.yaml', () => {
  it('names every built-in of DESIGN.md section 3, and each builds from its declaration', async () => {
    const { config, policySet } = await loadConfigFile(example);
    const used = config.interceptors.flatMap((d) => (isRemoteDeclaration(d) ? [] : [d.use]));
    expect([...used].sort()).toEqual([
      'audit-observer', 'cedar-policy', 'cross-boundary-guard', 'discovery-filter', 'pii-redactor',
      'rate-limit', 'sampling-guard', 'schema-guard', 'secret-redactor', 'sensitive-field-guard',
    ]);
    const deps = { policySet, state: createMemoryStateStores() };
    for (const d of config.interceptors) {
      if (isRemoteDeclaration(d)) continue;
      const factory = builtinFactories[d.use];
      expect(factory, d.use).toBeDefined();
      const ic = factory({ name: d.name, config: d.config, declaration: descriptorOverridesOf(d), deps });
      expect(ic.descriptor.name).toBe(d.name);
    }
    const pii = config.interceptors.find((d) => d.name === 'pii')!;
    expect(descriptorOverridesOf(pii)).toEqual({ priorityHint: { request: -50000, response: 50000 } });
    expect(descriptorOverridesOf({ name: 'r', remote: { url: 'http://x' }, mode: 'active', failOpen: false, events: undefined } as never)).toEqual({});
  });
});
