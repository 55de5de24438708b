// The target name of a call: tool, prompt, resource URI, completion ref; never an argument.
import { describe, expect, it } from 'vitest';
import { decisionTarget, targetOf } from '../../src/interceptors/target-of.js';

describe('targetOf', () => {
  it('names tools, prompts, resources and completion refs, params or whole messages', () => {
    expect(targetOf('tools/call', { name: 'echo', arguments: { name: 'not-this' } })).toBe('echo');
    expect(targetOf('tools/call', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } })).toBe('echo');
    expect(targetOf('prompts/get', { name: 'simple_prompt' })).toBe('simple_prompt');
    expect(targetOf('resources/read', { uri: 'file:///tmp/a' })).toBe('file:///tmp/a');
    expect(targetOf('completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'x', value: 'secret' } })).toBe('p');
    // Events that name nothing, and arguments that look like names, give nothing.
    expect(targetOf('sampling/createMessage', { name: 'x', messages: [] })).toBeUndefined();
    expect(targetOf('tools/call', { arguments: { name: 'x' } })).toBeUndefined();
    expect(targetOf('tools/call', { name: 42 })).toBeUndefined();
  });

  it('a deny keeps the input name only when every hooked mutator ran and kept it', () => {
    const base = { event: 'tools/call', phase: 'request' as const, effect: 'deny' as const, input: { name: 'a' }, finalPayload: { name: 'a' } };
    expect(decisionTarget({ ...base, chain: { results: [] }, mutators: [] })).toBe('a');
    expect(decisionTarget({ ...base, chain: { results: [{ interceptor: 'm', type: 'mutation', payload: { name: 'a' } }] }, mutators: ['m'] })).toBe('a');
    expect(decisionTarget({ ...base, chain: { results: [{ interceptor: 'm', type: 'mutation', payload: { name: 'b' } }] }, mutators: ['m'] })).toBeUndefined();
    expect(decisionTarget({ ...base, chain: { results: [] }, mutators: ['m'] })).toBeUndefined();
    expect(decisionTarget({ ...base, effect: 'allow', finalPayload: { name: 'z' }, chain: { results: [] }, mutators: ['m'] })).toBe('z');
  });
});
