// Issue 37: a default deny says which resource no permit matched, and, when a role the caller lacks
// would allow the call by itself, names the role; never a role that would not (Cedar answers the
// hint), and never one the caller holds. The words before the colon stay the record's of old.
import { describe, expect, it } from 'vitest';
import { createCedarPolicy } from '../../../src/interceptors/builtin/cedar-policy.js';
import { createMemoryStateStores } from '../../../src/interceptors/builtin/state-memory.js';
import type { ValidationOutcome } from '../../../src/interceptors/types.js';
import { loadPolicySet, MAX_HINT_ROLES } from '../../../src/policy/index.js';
import { examplePolicySet, makeCtx } from './_policy-helpers.js';

const authz = (policies: string) => createCedarPolicy({ name: 'authz', config: undefined, declaration: {}, deps: { policySet: loadPolicySet({ policies }), state: createMemoryStateStores() } });
const example = createCedarPolicy({ name: 'authz', config: undefined, declaration: {}, deps: { policySet: examplePolicySet(), state: createMemoryStateStores() } });
const call = (name: string, args: Record<string, unknown> = {}) => ({ name, arguments: args });
const message = (ic: ReturnType<typeof authz>, payload: unknown, roles: string[] = [], event = 'tools/call') => {
  const r = ic.run(payload, makeCtx(event, 'request', { roles })) as ValidationOutcome;
  return r.valid ? 'allowed' : r.messages![0].message;
};

describe('default deny: what no permit matched, and the role that would allow it', () => {
  it('the example policy: tool calls need tool-user; get-env names the tool (no role allows it); write_file names the operator role, with which it is allowed', () => {
    // The example's tool calls need the tool-user role first (issue 37): without it the forbid says so.
    expect(message(example, call('get-env'))).toBe('denied by policy tools-forbid-without-role-tool-user');
    expect(message(example, call('get-env'), ['tool-user'])).toBe('denied by policy (default deny): no permit matched Tool::"get-env"');
    expect(message(example, call('get-env'), ['tool-user', 'operator'])).toBe('denied by policy (default deny): no permit matched Tool::"get-env"');
    const write = call('write_file', { path: '/tmp/allowed/notes.txt', content: 'x' });
    // The operator role is named by the forbid that asks for it (the role hint of a default deny: below).
    expect(message(example, write, ['tool-user'])).toBe('denied by policy tools-forbid-writes-without-role-operator');
    expect(message(example, write, ['tool-user', 'operator'])).toBe('allowed');
  });

  it('no role would allow it: the resource only', () => {
    const ic = authz('@id("echo-only")\npermit(principal, action == Action::"tools/call", resource == Tool::"echo");');
    expect(message(ic, call('get-env'))).toBe('denied by policy (default deny): no permit matched Tool::"get-env"');
  });

  it('a role whose permit a forbid overrides is not named (the hint is Cedar\'s answer, not a guess)', () => {
    const ic = authz(['permit(principal in Role::"ops", action, resource);', 'forbid(principal in Role::"ops", action, resource == Tool::"rm");', 'permit(principal in Role::"admin", action, resource == Tool::"rm") when { context.confirmed == true };'].join('\n'));
    expect(message(ic, call('rm'))).toBe('denied by policy (default deny): no permit matched Tool::"rm"');
    expect(message(ic, call('ls'))).toBe('denied by policy (default deny): no permit matched Tool::"ls"; the role "ops" would allow it (the caller lacks it)');
  });

  it('several roles; a role the caller holds is not suggested', () => {
    const ic = authz(['permit(principal in Role::"a", action, resource);', 'permit(principal in Role::"b", action, resource == Tool::"x");', 'permit(principal in Role::"c", action, resource == Tool::"y");'].join('\n'));
    expect(message(ic, call('x'))).toBe('denied by policy (default deny): no permit matched Tool::"x"; any of the roles "a", "b" would allow it (the caller has none)');
    expect(message(ic, call('y'), ['c'])).toBe('allowed');
    expect(message(ic, call('z'), ['c'])).toBe('denied by policy (default deny): no permit matched Tool::"z"; the role "a" would allow it (the caller lacks it)');
  });

  it('prompts and resources by their entity; a path-checked call says "with this path"', () => {
    expect(message(example, { name: 'secret_prompt' }, [], 'prompts/get')).toMatch(/^denied by policy \(default deny\): no permit matched Prompt::"secret_prompt"/);
    const ic = authz('permit(principal, action == Action::"tools/call", resource == Tool::"read_file") when { !(context has path) || context.path like "/tmp/*" };');
    expect(message(ic, call('read_file', { path: '/etc/passwd' }))).toBe('denied by policy (default deny) on path \'/etc/passwd\': no permit matched Tool::"read_file" with this path');
  });

  it(`more than ${MAX_HINT_ROLES} roles named: no hint (its cost would grow with every role), the resource still named`, () => {
    const many = Array.from({ length: MAX_HINT_ROLES + 1 }, (_, i) => `permit(principal in Role::"r${i}", action, resource == Tool::"t${i}");`).join('\n');
    expect(message(authz(many), call('t3'))).toBe('denied by policy (default deny): no permit matched Tool::"t3"');
  });
});
