// A fresh engine instance after start-up (policy/engine-refresh.ts, cedar-engine.ts replaceEngine):
// every policy set loaded before answers exactly as before, sets loaded after work too, and an
// instance of another engine version is refused with nothing changed.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as bundled from '@cedar-policy/cedar-wasm/nodejs';
import { cedarVersion, replaceEngine } from '../../src/policy/cedar-engine.js';
import { refreshPolicyEngine, scheduleEngineRefresh, START_UP_BUDGET_KEY } from '../../src/policy/engine-refresh.js';
import { clearDecisionMemo, rememberedDecisions } from '../../src/policy/decision-memo.js';
import { loadPolicySet } from '../../src/policy/policy-set.js';
import type { AuthzRequest } from '../../src/policy/types.js';

const example = readFileSync(new URL('../../fixtures/config/policy.cedar', import.meta.url), 'utf8').replaceAll('${VOUCH_FILES_ROOT:-/tmp/allowed}', '/tmp/allowed');
const req = (tool: string, args: Record<string, unknown> = {}): AuthzRequest => ({
  principal: { type: 'User', id: 'u' },
  action: { type: 'Action', id: 'tools/call' },
  resource: { type: 'Tool', id: tool },
  resourceAttrs: { name: tool },
  // The example's tools are for Role::"tool-user" (issue 37).
  principalParents: [{ type: 'Role', id: 'tool-user' }],
  context: { arguments: args, ...('path' in args ? { path: args.path } : {}) } as AuthzRequest['context'],
});
const cases = [req('echo', { text: 'hi' }), req('dangerous_tool'), req('delete_everything'), req('read_file', { path: '/tmp/allowed/a' }), req('read_file', { path: '/etc/passwd' }), req('read_file', { path: '/tmp/allowed/../x' })];

describe('engine refresh', () => {
  it('answers every earlier and later policy set exactly as the first instance did', () => {
    const before = loadPolicySet({ policies: example });
    const tiny = loadPolicySet({ policies: '@id("all") permit(principal, action, resource);' });
    const want = cases.map((r) => before.authorize(r));
    expect(want.map((w) => w.decision)).toEqual(['allow', 'deny', 'deny', 'allow', 'deny', 'deny']);
    expect(refreshPolicyEngine()).toBe(true);
    expect(cases.map((r) => before.authorize(r))).toEqual(want);
    expect(tiny.authorize(req('anything')).decision).toBe('allow');
    const after = loadPolicySet({ policies: '@id("none") forbid(principal, action, resource);' });
    expect(after.authorize(req('echo'))).toMatchObject({ decision: 'deny', reasons: ['none'] });
    expect(refreshPolicyEngine()).toBe(true); // again: the sets loaded in between come along too
    expect(after.authorize(req('echo'))).toMatchObject({ decision: 'deny', reasons: ['none'] });
    expect(cases.map((r) => before.authorize(r))).toEqual(want);
  });

  it('refuses an instance of another engine version and keeps the one in use', () => {
    const ps = loadPolicySet({ policies: example });
    const other = { ...bundled, getCedarVersion: () => `${cedarVersion}-other` } as typeof bundled;
    expect(replaceEngine(other)).toBe(false);
    const refusing = { ...bundled, preparsePolicySet: () => ({ type: 'failure', errors: [] }) } as unknown as typeof bundled;
    expect(replaceEngine(refusing)).toBe(false);
    expect(ps.authorize(req('echo', { text: 'x' })).decision).toBe('allow');
  });

  it('is scheduled only in a process that raised the budget for its start-up, once', async () => {
    const g = globalThis as Record<symbol, unknown>;
    expect(g[START_UP_BUDGET_KEY]).toBeUndefined();
    expect(scheduleEngineRefresh(0)).toBeUndefined();
    const ps = loadPolicySet({ policies: example });
    g[START_UP_BUDGET_KEY] = 2_000_000_000;
    try {
      scheduleEngineRefresh(60_000)!(); // cancelled: the mark stays
      expect(g[START_UP_BUDGET_KEY]).toBe(2_000_000_000);
      expect(scheduleEngineRefresh(0)).toBeTypeOf('function');
      await new Promise((r) => setTimeout(r, 50));
      expect(g[START_UP_BUDGET_KEY]).toBeUndefined(); // ran: a later server in this process does not refresh again
      expect(scheduleEngineRefresh(0)).toBeUndefined();
      expect(ps.authorize(req('dangerous_tool')).decision).toBe('deny');
    } finally {
      g[START_UP_BUDGET_KEY] = undefined;
    }
  });

  it('leaves the context analysis of a set loaded during start-up for the refresh; the set answers the same before and after', async () => {
    const g = globalThis as Record<symbol, unknown>;
    const reference = loadPolicySet({ policies: example }, { memo: false });
    const want = cases.map((r) => reference.authorize(r));
    g[START_UP_BUDGET_KEY] = 2_000_000_000;
    try {
      const ps = loadPolicySet({ policies: example + '\n@id("start-up") forbid(principal, action, resource) when { context has never };' });
      clearDecisionMemo();
      expect(cases.map((r) => ps.authorize(r))).toEqual(want);
      expect(rememberedDecisions()).toBe(0); // no analysis yet: the engine is asked, nothing kept
      scheduleEngineRefresh(0);
      await new Promise((r) => setTimeout(r, 50));
      expect(cases.map((r) => ps.authorize(r))).toEqual(want);
      expect(rememberedDecisions()).toBeGreaterThan(0);
    } finally {
      g[START_UP_BUDGET_KEY] = undefined;
    }
  });
});
