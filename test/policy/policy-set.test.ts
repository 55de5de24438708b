import { readFileSync } from 'node:fs';
import { expandSettings } from '../../src/policy/config-settings.js';
import { describe, expect, it } from 'vitest';
import { digestJson } from '../../src/canonical/index.js';
import { cedarVersion, loadPolicySet, type AuthzRequest, type PolicySet } from '../../src/policy/index.js';
import type { Json } from '../../src/interceptors/types.js';

// The file's settings (`${VOUCH_FILES_ROOT:-/tmp/allowed}`) at their defaults, as loadConfigFile reads them.
const policies = expandSettings(readFileSync(new URL('../../fixtures/config/policy.cedar', import.meta.url), 'utf8'), {});
const schema = JSON.parse(readFileSync(new URL('../../fixtures/config/schema.cedarschema.json', import.meta.url), 'utf8')) as Json;

function call(tool: string, args: Json = {}, roles: string[] = ['tool-user']): AuthzRequest {
  return {
    principal: { type: 'User', id: 'alice' },
    action: { type: 'Action', id: 'tools/call' },
    resource: { type: 'Tool', id: tool },
    resourceAttrs: { name: tool },
    principalParents: roles.map((id) => ({ type: 'Role', id })),
    context: { arguments: args, time: '2026-01-01T00:00:00Z', roles },
  };
}

describe('loadPolicySet with the example policy and schema', () => {
  const ps: PolicySet = loadPolicySet({ policies, schema });

  it('allows a permitted tool and names the permitting policy', () => {
    expect(ps.authorize(call('echo', { message: 'hi' }))).toEqual({ decision: 'allow', reasons: ['tools-allow-basic'], errors: [] });
  });

  it('denies forbidden tools, naming the forbid, even for a role that has a permit', () => {
    expect(ps.authorize(call('dangerous_tool'))).toEqual({ decision: 'deny', reasons: ['tools-forbid-dangerous'], errors: [] });
    expect(ps.authorize(call('delete_file', {}, ['tool-user', 'operator']))).toEqual({ decision: 'deny', reasons: ['tools-forbid-delete'], errors: [] });
  });

  it('denies by default what no policy permits', () => {
    expect(ps.authorize(call('get-env'))).toEqual({ decision: 'deny', reasons: [], errors: [] });
  });

  it('grants through Role parents', () => {
    expect(ps.authorize(call('write_file', { path: '/tmp/allowed/x' }, ['tool-user', 'operator'])).decision).toBe('allow');
  });

  // Issue 37: a deny that a role would lift names the forbid, and the forbid's id names the role.
  it('denies tools without tool-user, and writes without operator, naming the forbid', () => {
    expect(ps.authorize(call('echo', { message: 'hi' }, []))).toEqual({ decision: 'deny', reasons: ['tools-forbid-without-role-tool-user'], errors: [] });
    expect(ps.authorize(call('echo', { message: 'hi' }, ['operator']))).toEqual({ decision: 'deny', reasons: ['tools-forbid-without-role-tool-user'], errors: [] });
    expect(ps.authorize(call('write_file', { path: '/tmp/allowed/x' }))).toEqual({ decision: 'deny', reasons: ['tools-forbid-writes-without-role-operator'], errors: [] });
  });

  it('checks paths (context.path, one request per path-like argument): outside /tmp/allowed and traversal are refused', () => {
    const onPath = (path: string): AuthzRequest => {
      const r = call('read_file', { path });
      return { ...r, context: { ...(r.context as Record<string, Json>), path } };
    };
    expect(ps.authorize(onPath('/tmp/allowed/a.txt')).decision).toBe('allow');
    expect(ps.authorize(onPath('/etc/passwd')).reasons).toEqual(['tools-forbid-path-outside']);
    expect(ps.authorize(onPath('/tmp/allowed/../../etc/passwd')).reasons).toEqual(['tools-forbid-path-traversal']);
  });

  it('uses action groups from the schema (resources/read in resource-access)', () => {
    const read = (uri: string, action = 'resources/read'): AuthzRequest => ({
      principal: { type: 'User', id: 'bob' },
      action: { type: 'Action', id: action },
      resource: { type: 'Resource', id: uri },
      resourceAttrs: { uri },
      context: { arguments: { uri }, time: 't', roles: [] },
    });
    expect(ps.authorize(read('file:///tmp/allowed/notes.md')).decision).toBe('allow');
    expect(ps.authorize(read('file:///tmp/allowed/notes.md', 'resources/subscribe')).decision).toBe('allow');
    expect(ps.authorize(read('file:///etc/shadow')).decision).toBe('deny');
  });

  it('denies when a policy errors at evaluation, listing the error', () => {
    // Schema-valid text cannot error on a well-formed request; a sampling context missing `arguments` does.
    const r = ps.authorize({ ...call('echo'), action: { type: 'Action', id: 'sampling/createMessage' }, resource: { type: 'Sampling', id: 's' }, resourceAttrs: { name: 's' }, context: { time: 't', roles: [] } });
    expect(r.decision).toBe('deny');
    expect(r.errors.length).toBeGreaterThan(0);
    expect(r.errors.join('\n')).toMatch(/arguments/);
  });

  it('denies a context that is not an object', () => {
    expect(ps.authorize({ ...call('echo'), context: [1, 2] })).toEqual({ decision: 'deny', reasons: [], errors: ['context must be a JSON object'] });
  });

  it('has a stable digest over {policies, schema}', () => {
    expect(ps.digest).toBe(digestJson({ policies, schema }));
    expect(loadPolicySet({ policies, schema }).digest).toBe(ps.digest);
    expect(loadPolicySet({ policies }).digest).toBe(digestJson({ policies }));
    expect(loadPolicySet({ policies: policies + '\n' }).digest).not.toBe(loadPolicySet({ policies }).digest);
  });

  it('lists policy ids in file order', () => {
    expect(ps.policyIds[0]).toBe('lists-allow');
    expect(ps.policyIds).toContain('tools-forbid-delete');
    expect(loadPolicySet({ policies: 'forbid(principal, action, resource);\npermit(principal, action, resource);' }).policyIds).toEqual(['policy0', 'policy1']);
  });

  it('takes any @id, even one named like an Object property', () => {
    const set = loadPolicySet({ policies: '@id("__proto__")\npermit(principal, action, resource);\n@id("10")\nforbid(principal, action, resource == Tool::"x");' });
    expect(set.policyIds).toEqual(['__proto__', '10']);
    const req = { ...call('echo'), context: {} };
    expect(set.authorize(req)).toEqual({ decision: 'allow', reasons: ['__proto__'], errors: [] });
  });

  it('exports the engine version', () => {
    expect(cedarVersion).toMatch(/^4\.\d+\.\d+$/);
  });

  it('authorizes fast enough with the preparsed set', () => {
    const req = call('read_file', { path: '/tmp/allowed/a.txt', nested: { list: [1, 2.5, null, 'x'] } });
    const n = 2000;
    for (let i = 0; i < 300; i++) ps.authorize(req); // warm up the JIT and the wasm tiers
    const t0 = performance.now();
    for (let i = 0; i < n; i++) ps.authorize(req);
    const perSec = Math.round(n / ((performance.now() - t0) / 1000));
    console.log(`cedar authorize: ${perSec} authorizations/s (${ps.policyIds.length} policies, preparsed)`);
    expect(perSec).toBeGreaterThan(500);
  });
});

describe('loadPolicySet errors', () => {
  it('lists every schema validation problem with line and policy', () => {
    const bad = `${policies}
permit(principal, action == Action::"tools/call", resource) when { context.nope == 1 };
@id("typo-action")
permit(principal, action == Action::"tools/cal", resource);`;
    try {
      loadPolicySet({ policies: bad, schema });
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({ code: 'ERR_POLICY', name: 'PolicyLoadError' });
      const issues = (e as { issues: { path: string; message: string }[] }).issues;
      expect(issues).toHaveLength(2);
      const first = policies.split('\n').length + 1; // the appended lines
      expect(issues[0].message).toMatch(new RegExp(`^line ${first}:\\d+: policy "policy20": attribute \`nope\` in context`));
      expect(issues[1].message).toMatch(new RegExp(`^line ${first + 2}:\\d+: policy "typo-action": unrecognized action \`Action::"tools/cal"\``));
      expect((e as Error).message).toContain('2 problems');
    }
  });

  it('skips validation only for a digest the caller says this engine validated; parsing, ids and denial of errors stay', () => {
    // Fails validation (context.nope is not in the schema): refused unless its digest is named.
    const bad = `${policies}\n@id("nope")\npermit(principal, action == Action::"tools/call", resource) when { context.nope == 1 };`;
    const digest = digestJson({ policies: bad, schema });
    expect(() => loadPolicySet({ policies: bad, schema }, { validated: (d) => d !== digest })).toThrow(expect.objectContaining({ code: 'ERR_POLICY' }));
    const seen: string[] = [];
    const ps = loadPolicySet({ policies: bad, schema }, { validated: (d) => (seen.push(d), d === digest) });
    expect(seen).toEqual([digest]);
    expect(ps.digest).toBe(digest);
    expect(ps.policyIds).toContain('nope');
    // Evaluating the policy that would have failed validation errors, and an error denies.
    const r = ps.authorize({ principal: { type: 'User', id: 'alice' }, action: { type: 'Action', id: 'tools/call' }, resource: { type: 'Tool', id: 'echo' }, context: {} });
    expect(r.decision).toBe('deny');
    expect(r.errors.join('\n')).toMatch(/nope/);
    // Syntax is never taken on trust: a digest named as validated still has to parse.
    const broken = 'permit(principal, action, resource)\nforbid(principal action);';
    expect(() => loadPolicySet({ policies: broken, schema }, { validated: () => true })).toThrow(expect.objectContaining({ code: 'ERR_POLICY' }));
  });

  it('reports a syntax error with its line', () => {
    expect(() => loadPolicySet({ policies: 'permit(principal, action, resource)\nforbid(principal action);' })).toThrow(
      expect.objectContaining({ code: 'ERR_POLICY', issues: [expect.objectContaining({ path: '/policies', message: expect.stringMatching(/^line 2:7: /) })] }),
    );
  });

  it('refuses duplicate ids, templates and a non-object schema together', () => {
    const text = '@id("a")\npermit(principal, action, resource);\n@id("a")\nforbid(principal, action, resource);\npermit(principal == ?principal, action, resource);';
    try {
      loadPolicySet({ policies: text, schema: 'entity User;' });
      expect.unreachable();
    } catch (e) {
      const messages = (e as { issues: { path: string; message: string }[] }).issues.map((i) => `${i.path} ${i.message}`);
      expect(messages).toEqual([
        '/schema must be a Cedar JSON schema (an object keyed by namespace)',
        expect.stringMatching(/^\/policies 1 template\(s\) found/),
        '/policies line 3:1: duplicate policy id "a"',
      ]);
    }
  });

  it('reports a broken schema under /schema', () => {
    expect(() => loadPolicySet({ policies: 'permit(principal, action, resource);', schema: { '': { entityTypes: { User: { memberOfTypes: ['Nope'] } }, actions: {} } } })).toThrow(
      expect.objectContaining({ code: 'ERR_POLICY', issues: [expect.objectContaining({ path: '/schema' })] }),
    );
  });

  it('refuses policies that are not text', () => {
    expect(() => loadPolicySet({ policies: 42 as unknown as string })).toThrow(expect.objectContaining({ code: 'ERR_POLICY' }));
  });
});
