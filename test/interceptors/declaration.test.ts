import { describe, expect, it } from 'vitest';
import { canonicalText } from '../../src/canonical/index.js';
import type { InputError } from '../../src/errors.js';
import { parseDeclaration } from '../../src/interceptors/declaration.js';

function issuesOf(input: unknown, path?: string): string[] {
  try {
    parseDeclaration(input, path);
  } catch (e) {
    expect(e).toMatchObject({ code: 'ERR_INPUT' });
    return (e as InputError).issues.map((i) => i.path);
  }
  throw new Error('expected an InputError');
}

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
