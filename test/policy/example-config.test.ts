// The example config end to end: loaded from files, every declaration built by its factory.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtinFactories } from '../../src/interceptors/builtin/index.js';
import { createMemoryStateStores } from '../../src/interceptors/builtin/state-memory.js';
import { descriptorOverridesOf, isRemoteDeclaration } from '../../src/policy/index.js';
import { loadConfigFile } from '../../src/policy/load-config.js';
import { MCP_EVENTS } from '../../src/protocol/index.js';
import { coverageOf } from '../../src/interceptors/list.js';
import { activateGatewayPolicies } from '../../src/mcp/gateway-policy.js';
import { FORWARDED, SERVER_REQUESTS } from '../../src/mcp/gateway-methods.js';

const example = fileURLToPath(new URL('../../fixtures/config/vouch.example.yaml', import.meta.url));

describe('fixtures/config/vouch.example.yaml', () => {
  it('names every built-in of DESIGN.md section 3, and each builds from its declaration', async () => {
    const { config, policySet } = await loadConfigFile(example);
    const used = config.interceptors.flatMap((d) => (isRemoteDeclaration(d) ? [] : [d.use]));
    expect([...used].sort()).toEqual([
      'audit-observer', 'cedar-policy', 'cross-boundary-guard', 'discovery-filter', 'llm-guard', 'pii-redactor',
      'provenance-enricher', 'rate-limit', 'roots-guard', 'sampling-guard', 'schema-guard', 'secret-redactor', 'sensitive-field-guard',
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

describe('the example config keeps a gateway working under default deny', () => {
  // Every request the gateway relays must be authorized (covered), not passed through; its answer,
  // the upstream's initialize answer and the notifications either way must be covered or a
  // configured, recorded `uncovered` pass-through. Anything else (ping, tasks/*) stays denied.
  it('covers every relayed request, and lets answers and notifications through as recorded pass-throughs', async () => {
    const resolved = await loadConfigFile(example);
    const { clientToServer, serverToClient, close } = await activateGatewayPolicies(resolved, { state: createMemoryStateStores(), remote: 'offline' });
    try {
      const clientRequests = [...FORWARDED.flatMap(([, ms]) => ms), 'resources/subscribe', 'resources/unsubscribe'];
      const serverRequests = SERVER_REQUESTS.map(([m]) => m);
      // (notifications/subscriptions/acknowledged is each SDK's own answer to a listen stream: never relayed, none allowed by default.)
      const notifications = MCP_EVENTS.filter((e) => e.startsWith('notifications/') && !['notifications/initialized', 'notifications/elicitation/complete', 'notifications/tasks/status', 'notifications/subscriptions/acknowledged'].includes(e));
      const cov = (p: typeof clientToServer, event: string, phase: 'request' | 'response') => coverageOf(p.interceptors, event, phase, p.uncovered);
      for (const m of clientRequests) {
        expect(cov(clientToServer, m, 'request'), m).toEqual({ covered: true });
        expect(cov(clientToServer, m, 'response'), m).toMatchObject({ covered: false, allow: true });
      }
      for (const m of serverRequests) {
        expect(cov(serverToClient, m, 'request'), m).toEqual({ covered: true });
        const answer = cov(serverToClient, m, 'response');
        expect(answer.covered || answer.allow, m).toBe(true);
      }
      expect(cov(serverToClient, 'roots/list', 'response')).toEqual({ covered: true }); // roots-guard judges what is exposed
      expect(cov(clientToServer, 'llm/completion', 'request')).toEqual({ covered: true });
      expect(cov(clientToServer, 'llm/completion', 'response')).toEqual({ covered: true });
      expect(cov(clientToServer, 'initialize', 'response')).toMatchObject({ allow: true });
      for (const n of notifications) {
        for (const p of [clientToServer, serverToClient]) expect(cov(p, n, 'request'), n).toMatchObject({ allow: true });
      }
      for (const denied of ['ping', 'tasks/cancel', 'notifications/tasks/status', 'initialize', 'server/discover', 'subscriptions/listen', 'tasks/update', 'notifications/subscriptions/acknowledged']) expect(cov(clientToServer, denied, 'request'), denied).toMatchObject({ covered: false, allow: false });
    } finally {
      await close();
    }
  });
});
