import { describe, expect, it } from 'vitest';
import { canonicalText } from '../../../src/canonical/index.js';
import { createCedarPolicy } from '../../../src/interceptors/builtin/cedar-policy.js';
import { createMemoryStateStores } from '../../../src/interceptors/builtin/state-memory.js';
import type { InterceptorContext, ValidationOutcome } from '../../../src/interceptors/types.js';
import { examplePolicySet, makeCtx } from './_policy-helpers.js';

const authz = createCedarPolicy({ name: 'authz', config: undefined, declaration: {}, deps: { policySet: examplePolicySet(), state: createMemoryStateStores() } });

function check(payload: unknown, ctx: InterceptorContext): ValidationOutcome {
  return authz.run(payload, ctx) as ValidationOutcome;
}

const call = (name: string, args: Record<string, unknown> = {}) => ({ name, arguments: args, _meta: { progressToken: 7 } });

describe('cedar-policy', () => {
  it('declares a validation on the request phase of the six call events', () => {
    expect(authz.descriptor).toEqual({
      name: 'authz',
      type: 'validation',
      description: expect.any(String),
      hooks: [{ events: ['tools/call', 'prompts/get', 'resources/read', 'resources/subscribe', 'sampling/createMessage', 'elicitation/create'], phase: 'request' }],
    });
  });

  it('allows a permitted tool call, naming the policy', () => {
    expect(check(call('echo', { message: 'hello' }), makeCtx('tools/call', 'request'))).toEqual({ valid: true, info: { reasons: ['tools-allow-basic'] } });
  });

  it('denies a forbidden tool with the exact message shape', () => {
    expect(check(call('dangerous_tool'), makeCtx('tools/call', 'request'))).toEqual({
      valid: false,
      severity: 'error',
      messages: [{ message: 'denied by policy tools-forbid-dangerous', severity: 'error' }],
      info: { reasons: ['tools-forbid-dangerous'] },
    });
    expect(check(call('delete_file', { path: '/tmp/allowed/a' }), makeCtx('tools/call', 'request', { roles: ['tool-user', 'operator'] })).messages?.[0].message).toBe(
      'denied by policy tools-forbid-delete',
    );
  });

  it('denies by default what nothing permits', () => {
    expect(check(call('get-env'), makeCtx('tools/call', 'request')).messages).toEqual([{ message: 'denied by policy (default deny): no permit matched Tool::"get-env"', severity: 'error' }]);
  });

  it('denies without asking Cedar when there is no principal', () => {
    const { principal: _p, ...ctx } = makeCtx('tools/call', 'request');
    expect(check(call('echo'), ctx as InterceptorContext).messages?.[0].message).toBe('denied by policy (no principal)');
  });

  it('checks arguments: file tools only under /tmp/allowed', () => {
    expect(check(call('read_file', { path: '/tmp/allowed/report.md', head: 10 }), makeCtx('tools/call', 'request')).valid).toBe(true);
    expect(check(call('read_file', { path: '/home/alice/.ssh/id_ed25519' }), makeCtx('tools/call', 'request')).info).toEqual({ reasons: ['tools-forbid-path-outside'], path: '/home/alice/.ssh/id_ed25519' });
  });

  it('grants by role', () => {
    const payload = call('write_file', { path: '/tmp/allowed/out.txt', content: 'x' });
    expect(check(payload, makeCtx('tools/call', 'request')).valid).toBe(false);
    expect(check(payload, makeCtx('tools/call', 'request', { roles: ['tool-user', 'operator'] })).valid).toBe(true);
  });

  it('authorizes prompts, with a role exception', () => {
    expect(check({ name: 'simple_prompt' }, makeCtx('prompts/get', 'request')).valid).toBe(true);
    expect(check({ name: 'admin_reset', arguments: { confirm: 'yes' } }, makeCtx('prompts/get', 'request')).valid).toBe(false);
  });

  it('authorizes resources by URI, refusing traversal', () => {
    expect(check({ uri: 'file:///tmp/allowed/notes.md' }, makeCtx('resources/read', 'request')).valid).toBe(true);
    expect(check({ uri: 'file:///tmp/allowed/notes.md' }, makeCtx('resources/subscribe', 'request')).valid).toBe(true);
    expect(check({ uri: 'file:///tmp/allowed/../../etc/passwd' }, makeCtx('resources/read', 'request')).info).toEqual({ reasons: ['resources-forbid-traversal'] });
    expect(check({ uri: 'file:///etc/passwd' }, makeCtx('resources/read', 'request')).valid).toBe(false);
  });

  it('bounds sampling; a float budget is a string to Cedar, so the policy errors and denies', () => {
    const sampling = (maxTokens: number) => ({
      messages: [{ role: 'user', content: { type: 'text', text: 'Summarize the file' } }],
      modelPreferences: { hints: [{ name: 'claude-3-5-sonnet' }], intelligencePriority: 0.8 },
      systemPrompt: 'You are a helpful assistant.',
      maxTokens,
    });
    const ctx = makeCtx('sampling/createMessage', 'request', { server: 'everything' });
    expect(check(sampling(1000), ctx).valid).toBe(true);
    expect(check(sampling(100000), ctx).messages?.[0].message).toBe('denied by policy (default deny): no permit matched Sampling::"everything"');
    const r = check(sampling(1000.5), ctx);
    expect(r.valid).toBe(false);
    expect(r.messages?.[0].message).toBe('denied by policy (evaluation error)');
    expect((r.info as { errors: string[] }).errors[0]).toMatch(/^sampling-allow-bounded: /);
  });

  it('allows elicitation only from known servers', () => {
    const elicit = { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } };
    expect(check(elicit, makeCtx('elicitation/create', 'request', { server: 'everything' })).valid).toBe(true);
    expect(check(elicit, makeCtx('elicitation/create', 'request', { server: 'shady' })).valid).toBe(false);
    expect(check(elicit, makeCtx('elicitation/create', 'request')).valid).toBe(false);
  });

  it('reads a whole JSON-RPC request too, and denies a payload without a tool name', () => {
    const rpc = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: call('echo', { message: 'hi' }) };
    expect(check(rpc, makeCtx('tools/call', 'request')).valid).toBe(true);
    expect(check({ arguments: {} }, makeCtx('tools/call', 'request')).messages?.[0].message).toBe('denied by policy (payload has no name for tools/call)');
  });

  it('is deterministic: the same input gives the same canonical outcome', () => {
    const payload = call('read_file', { path: '/etc/shadow', opts: { n: null, f: 1.5 } });
    const a = canonicalText(check(payload, makeCtx('tools/call', 'request')));
    const b = canonicalText(check(structuredClone(payload), makeCtx('tools/call', 'request')));
    expect(a).toBe(b);
  });

  it('takes declaration overrides and refuses a missing policy set or stray config', () => {
    const audit = createCedarPolicy({ name: 'authz-audit', config: undefined, declaration: { mode: 'audit' }, deps: { policySet: examplePolicySet(), state: createMemoryStateStores() } });
    expect(audit.descriptor.mode).toBe('audit');
    expect(() => createCedarPolicy({ name: 'x', config: undefined, declaration: {}, deps: { state: createMemoryStateStores() } })).toThrow(
      expect.objectContaining({ code: 'ERR_CONFIG' }),
    );
    expect(() => createCedarPolicy({ name: 'x', config: { strict: true }, declaration: {}, deps: { policySet: examplePolicySet(), state: createMemoryStateStores() } })).toThrow(
      expect.objectContaining({ code: 'ERR_CONFIG', issues: [expect.objectContaining({ path: '/config/strict' })] }),
    );
  });
});
