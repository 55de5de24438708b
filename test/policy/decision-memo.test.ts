// The decision memo and the context cut (src/policy/decision-memo.ts, context-needs.ts) against
// the engine asked every time with the whole context (loadPolicySet's `memo: false`): the same
// answer, byte for byte, on policies that read the context every way Cedar can, for requests a
// hostile caller shapes (nested records, sets, values of the wrong type, escape keys, missing
// attributes that make policies fail). Then the memo's bounds and its copies.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { policyJson } from '../../src/policy/cedar-engine.js';
import { addPolicyNeeds, emptyNeeds, projectContext, type ContextNeeds } from '../../src/policy/context-needs.js';
import { clearDecisionMemo, MEMO_ENTRIES, MEMO_ANSWER_CHARS, rememberedDecisions } from '../../src/policy/decision-memo.js';
import { expandSettings } from '../../src/policy/config-settings.js';
import { loadPolicySet, type AuthzRequest } from '../../src/policy/index.js';
import type { Json } from '../../src/interceptors/types.js';

const example = expandSettings(readFileSync(new URL('../../fixtures/config/policy.cedar', import.meta.url), 'utf8'), {});
const schema = JSON.parse(readFileSync(new URL('../../fixtures/config/schema.cedarschema.json', import.meta.url), 'utf8')) as Json;

/** Policy sets that read the context in each way there is; several fail on some contexts. */
const SETS: Record<string, string> = {
  example,
  whole: `permit(principal, action, resource) when { context == {a: 1} };`,
  wholeArgs: `permit(principal, action, resource) when { context.arguments == {x: 1} }; forbid(principal, action, resource) when { context has arguments && context.arguments.x == 2 };`,
  nested: `permit(principal, action, resource) when { context has arguments && context.arguments has x && context.arguments.x has y && context.arguments.x.y == "ok" };`,
  extendedHas: `permit(principal, action, resource) when { context has arguments.x.y };`,
  access: `permit(principal, action, resource) when { context.arguments.x > 1 };`,
  ifThenElse: `permit(principal, action, resource) when { (if context has b then context.arguments else {x: 0}).x == 1 };`,
  setOps: `permit(principal, action, resource) when { context has s && context.s.contains(1) }; forbid(principal, action, resource) when { context has s && context.s.isEmpty() };`,
  like: `permit(principal, action, resource) when { context has path && context.path like "/tmp/*" }; forbid(principal, action, resource) when { context has path && context.path like "*..*" };`,
  index: `permit(principal, action, resource) when { context has "odd key" && context["odd key"].v == true };`,
  ext: `permit(principal, action, resource) when { context has ip && ip(context.ip).isLoopback() };`,
  record: `permit(principal, action, resource) when { {c: context.arguments}.c has x };`,
  roles: `permit(principal in Role::"admin", action, resource) when { context.roles.contains("admin") && resource.name like "e*" };`,
  none: `permit(principal, action == Action::"tools/call", resource);`,
};

/** A seeded generator: the same cases each run, so a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

function value(r: () => number, depth: number): Json {
  const k = Math.floor(r() * 10);
  if (depth > 2 || k < 3) return [1, 2, 'ok', true, false, null, 1.5, 'x'][Math.floor(r() * 8)];
  if (k < 5) return Array.from({ length: Math.floor(r() * 3) }, () => value(r, depth + 1));
  const o: Record<string, Json> = {};
  for (let i = 0; i < 1 + Math.floor(r() * 3); i++) o[['x', 'y', 'v', 'a', '__entity', 'odd key'][Math.floor(r() * 6)]] = value(r, depth + 1);
  return o;
}

function request(r: () => number): AuthzRequest {
  const ctx: Record<string, Json> = {};
  for (const name of ['arguments', 'a', 'b', 's', 'path', 'ip', 'odd key', 'roles', 'time']) if (r() < 0.5) ctx[name] = value(r, 0);
  if (r() < 0.3) ctx.path = ['/tmp/a', '/tmp/../etc', '/etc/x'][Math.floor(r() * 3)];
  if (r() < 0.3) ctx.ip = ['127.0.0.1', '10.0.0.1', 'not an ip'][Math.floor(r() * 3)];
  if (r() < 0.3) ctx.s = [[], [1], [2, 'x']][Math.floor(r() * 3)];
  if (r() < 0.2) ctx.arguments = { x: [0, 1, 2, 'one', { y: 'ok' }, { y: 'no', z: 1 }][Math.floor(r() * 6)] };
  if (r() < 0.3) ctx['odd key'] = { v: r() < 0.7 };
  const tool = ['echo', 'read_file', 'delete_x', 'dangerous_tool'][Math.floor(r() * 4)];
  // The example's tools are for Role::"tool-user" (issue 37): some callers hold it, so it both allows and denies.
  const roles = [r() < 0.5 ? ['admin'] : [], r() < 0.5 ? ['admin', 'tool-user'] : ['tool-user']][r() < 0.5 ? 0 : 1];
  if (r() < 0.5) ctx.roles = roles;
  const context = r() < 0.1 ? { a: 1 } : ctx; // what the "whole" set permits, and nothing more
  return {
    principal: { type: 'User', id: r() < 0.5 ? 'alice' : 'bob' },
    action: { type: 'Action', id: r() < 0.8 ? 'tools/call' : 'resources/read' },
    resource: { type: 'Tool', id: tool },
    resourceAttrs: { name: tool },
    principalParents: roles.map((id) => ({ type: 'Role', id })),
    context,
  };
}

describe('the decision memo gives the answer the engine gives with the whole context', () => {
  for (const [name, policies] of Object.entries(SETS)) {
    it(`policy set "${name}": 600 shaped requests, each asked twice`, () => {
      const source = name === 'example' ? { policies, schema } : { policies };
      const memo = loadPolicySet(source);
      const reference = loadPolicySet(source, { memo: false });
      const r = rng(name.length * 7919);
      const seen = { allow: 0, deny: 0, errors: 0 };
      for (let i = 0; i < 600; i++) {
        const req = request(r);
        const want = reference.authorize(req);
        expect(memo.authorize(req), JSON.stringify(req)).toEqual(want);
        expect(memo.authorize(req), `repeat: ${JSON.stringify(req)}`).toEqual(want);
        seen[want.decision]++;
        if (want.errors.length > 0) seen.errors++;
      }
      // The cases are not all one answer: each set both allows and denies here.
      expect(seen.allow * seen.deny, JSON.stringify(seen)).toBeGreaterThan(0);
    });
  }

  it('a lone surrogate in a part no policy reads: the engine refuses the whole request, and so does the memo', () => {
    const policies = `permit(principal, action, resource) when { context.arguments.x == 1 };`;
    const reference = loadPolicySet({ policies }, { memo: false });
    const memo = loadPolicySet({ policies });
    const base = { principal: { type: 'User', id: 'u' }, action: { type: 'Action', id: 'tools/call' }, resource: { type: 'Tool', id: 't' } };
    for (const context of [{ arguments: { x: 1, y: '\ud800' } }, { arguments: { x: 1, ['\udc00']: 1 } }, { arguments: { x: 1 }, other: ['a\udfffb'] }] as Json[]) {
      const req: AuthzRequest = { ...base, context };
      const want = reference.authorize(req);
      expect(want.decision, JSON.stringify(context)).toBe('deny');
      expect(want.errors.length).toBeGreaterThan(0);
      expect(memo.authorize(req)).toEqual(want);
      expect(memo.authorize(req)).toEqual(want);
    }
    // A well-formed pair is no lone surrogate: cut and answered as usual.
    const fine: AuthzRequest = { ...base, context: { arguments: { x: 1, y: '\ud83d\ude00' } } };
    expect(memo.authorize(fine)).toEqual(reference.authorize(fine));
    expect(memo.authorize(fine).decision).toBe('allow');
  });

  it('a policy too deep for the analysis leaves the set uncut, answering as the engine does', () => {
    const deep = Array.from({ length: 3000 }, (_, i) => `resource.name == "t${i}"`).join(' || ');
    const policies = `permit(principal, action, resource) when { context.ok == true };\npermit(principal, action == Action::"rare", resource) when { ${deep} };`;
    const req: AuthzRequest = { principal: { type: 'User', id: 'u' }, action: { type: 'Action', id: 'tools/call' }, resource: { type: 'Tool', id: 't' }, context: { ok: true } };
    const want = loadPolicySet({ policies }, { memo: false }).authorize(req);
    expect(want.decision).toBe('allow');
    expect(loadPolicySet({ policies }).authorize(req)).toEqual(want);
  });

  it('a policy that fails on a missing attribute gives the error text of the whole context', () => {
    const policies = `permit(principal, action, resource) when { context.arguments.missing == 1 };`;
    const req: AuthzRequest = { principal: { type: 'User', id: 'u' }, action: { type: 'Action', id: 'tools/call' }, resource: { type: 'Tool', id: 't' }, context: { arguments: { present: 1, other: 2 } } };
    const want = loadPolicySet({ policies }, { memo: false }).authorize(req);
    expect(want.errors.length).toBeGreaterThan(0);
    expect(loadPolicySet({ policies }).authorize(req)).toEqual(want);
  });
});

function needsOf(policy: string): ContextNeeds {
  const needs = emptyNeeds();
  const est = policyJson(policy);
  if (!est.ok) throw new Error(JSON.stringify(est.problems));
  addPolicyNeeds(needs, est.value);
  return needs;
}

describe('the context cut keeps what the policies read', () => {
  const ctx = { arguments: { x: { y: 1, z: 2 }, w: 3 }, time: 't', roles: ['a'], path: '/p' };

  it('keeps accessed paths, the first name of a has, and whole values used as values', () => {
    expect(projectContext(ctx, needsOf(`permit(principal, action, resource) when { context.arguments.x.y == 1 };`))).toEqual({ arguments: { x: { y: 1 } } });
    expect(projectContext(ctx, needsOf(`permit(principal, action, resource) when { context has arguments.x.y };`))).toEqual({ arguments: ctx.arguments });
    expect(projectContext(ctx, needsOf(`permit(principal, action, resource) when { context.arguments.x == {y: 1} };`))).toEqual({ arguments: { x: { y: 1, z: 2 } } });
    expect(projectContext(ctx, needsOf(`permit(principal, action, resource) when { context has path };`))).toEqual({ path: '/p' });
    expect(projectContext(ctx, needsOf(`permit(principal, action, resource);`))).toEqual({});
  });

  it('keeps the whole context when the context itself is used as a value', () => {
    expect(projectContext(ctx, needsOf(`permit(principal, action, resource) when { context == {} };`))).toBe(ctx);
    expect(projectContext(ctx, needsOf(`permit(principal, action, resource) when { (if true then context else {}).time == "t" };`))).toBe(ctx);
  });

  it('keeps a value that is not a record where an attribute of it is read: Cedar fails on it as before', () => {
    const odd = { arguments: 'a string' };
    expect(projectContext(odd, needsOf(`permit(principal, action, resource) when { context.arguments.x == 1 };`))).toEqual(odd);
  });

  it('a string that spells `context` is not the variable', () => {
    expect(projectContext(ctx, needsOf(`permit(principal, action, resource) when { resource.name == "context" };`))).toEqual({});
  });
});

describe('the memo is bounded and hands out copies', () => {
  const set = loadPolicySet({ policies: SETS.access });
  const req = (x: Json): AuthzRequest => ({ principal: { type: 'User', id: 'u' }, action: { type: 'Action', id: 'tools/call' }, resource: { type: 'Tool', id: 't' }, context: { arguments: { x } } });

  it(`holds at most ${MEMO_ENTRIES} answers, however many distinct requests come`, () => {
    for (let i = 0; i < MEMO_ENTRIES + 500; i++) set.authorize(req(i));
    expect(rememberedDecisions()).toBe(MEMO_ENTRIES);
  });

  it(`does not keep a request whose key is over ${MEMO_ANSWER_CHARS} characters`, () => {
    clearDecisionMemo();
    const long = 'v'.repeat(MEMO_ANSWER_CHARS);
    const a = set.authorize(req(long));
    expect(a).toEqual(loadPolicySet({ policies: SETS.access }, { memo: false }).authorize(req(long)));
    expect(rememberedDecisions()).toBe(0);
    set.authorize(req(5));
    expect(rememberedDecisions()).toBe(1);
  });

  it('counts the reasons into an answer\'s size: long policy ids that all apply are not kept', () => {
    const many = Array.from({ length: 12 }, (_, i) => `@id("${'p'.repeat(200)}${i}") permit(principal, action, resource);`).join('\n');
    const wide = loadPolicySet({ policies: many });
    clearDecisionMemo();
    const r = wide.authorize(req('x'));
    expect(r.reasons).toHaveLength(12);
    expect(rememberedDecisions()).toBe(0);
    loadPolicySet({ policies: many.split('\n').slice(0, 2).join('\n') }).authorize(req('x'));
    expect(rememberedDecisions()).toBe(1);
  });

  it('a caller that changes an answer does not change the next one', () => {
    const first = set.authorize(req(5));
    expect(first.decision).toBe('allow');
    first.reasons.push('forged');
    (first as { decision: string }).decision = 'deny';
    expect(set.authorize(req(5))).toEqual({ decision: 'allow', reasons: ['policy0'], errors: [] });
  });
});
