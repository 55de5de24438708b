// The determining policy ids in cedar-policy's result info are what what-if names before and after
// a flip, and the result is hashed into the entry: they must come out in one order every call,
// although the engine's own order (a Rust HashSet) changes from call to call.
import { describe, expect, it } from 'vitest';
import { createCedarPolicy } from '../../../src/interceptors/builtin/cedar-policy.js';
import { createMemoryStateStores } from '../../../src/interceptors/builtin/state-memory.js';
import type { ValidationOutcome } from '../../../src/interceptors/types.js';
import { authorizePreparsed, preparsePolicies } from '../../../src/policy/cedar-engine.js';
import { loadPolicySet } from '../../../src/policy/index.js';
import { makeCtx } from './_policy-helpers.js';

const IDS = ['zeta', 'alpha', 'mid-1', 'mid-0', 'beta', 'omega', 'k9', 'k10'];
const permits = IDS.map((id) => `@id("${id}")\npermit(principal, action, resource);`).join('\n');
const forbids = IDS.map((id) => `@id("${id}")\nforbid(principal, action, resource);`).join('\n');

const authz = (policies: string) => createCedarPolicy({ name: 'authz', config: undefined, declaration: {}, deps: { policySet: loadPolicySet({ policies }), state: createMemoryStateStores() } });

describe('cedar-policy: determining policy ids', () => {
  it('the engine itself answers in a varying order (why sorting is needed)', () => {
    const byId = Object.fromEntries(IDS.map((id) => [id, 'permit(principal, action, resource);']));
    expect(preparsePolicies('h2-order-probe', byId).ok).toBe(true);
    const req = { principal: { type: 'User', id: 'a' }, action: { type: 'Action', id: 'x' }, resource: { type: 'Tool', id: 't' }, context: {}, entities: [] };
    const orders = new Set(Array.from({ length: 20 }, () => {
      const a = authorizePreparsed('h2-order-probe', req);
      return a.ok ? a.value.reasons.join(',') : 'failed';
    }));
    expect(orders.has('failed')).toBe(false);
    expect(orders.size).toBeGreaterThan(1);
  });

  it('allow and deny carry every determining id, sorted, identically on every call', () => {
    const sorted = [...IDS].sort();
    const allow = authz(permits);
    const deny = authz(`${permits}\n${forbids.replace(/@id\("/g, '@id("f-')}`);
    for (let i = 0; i < 20; i++) {
      const a = allow.run({ name: 'echo', arguments: {} }, makeCtx('tools/call', 'request')) as ValidationOutcome;
      expect(a).toEqual({ valid: true, info: { reasons: sorted } });
      const d = deny.run({ name: 'echo', arguments: {} }, makeCtx('tools/call', 'request')) as ValidationOutcome;
      expect(d.valid).toBe(false);
      expect(d.info).toEqual({ reasons: sorted.map((id) => `f-${id}`).sort() });
      expect(d.messages![0].message).toBe(`denied by policy ${sorted.map((id) => `f-${id}`).sort().join(', ')}`);
    }
  });
});
