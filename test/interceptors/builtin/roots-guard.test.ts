// roots-guard: the roots a client exposes to a server must be configured folders (or inside one),
// never the whole disk, whatever spelling (`file:///`, `file://localhost/`, `..`, `%2e%2e`).
import { describe, expect, it } from 'vitest';
import { checkRoots, createRootsGuard, parseRootsGuardConfig } from '../../../src/interceptors/builtin/roots-guard.js';
import { ctxOf, denied, make } from './_content-ctx.js';

const config = parseRootsGuardConfig('roots', { allow: ['file:///home/alice/project', 'file:///tmp/allowed/'] });
const roots = (...uris: string[]) => ({ roots: uris.map((uri) => ({ uri, name: 'r' })) });

describe('roots-guard', () => {
  it('allows configured roots and folders inside them, and an empty list', () => {
    expect(checkRoots(roots('file:///home/alice/project', 'file:///home/alice/project/src', 'file:///tmp/allowed'), config)).toEqual({ valid: true });
    expect(checkRoots({ roots: [] }, config)).toEqual({ valid: true });
    expect(checkRoots({}, config)).toEqual({ valid: true }); // a roots/list request carries no roots
  });

  it.each([
    ['the whole disk', 'file:///'],
    ['the whole disk via localhost', 'file://localhost/'],
    ['a Windows drive', 'file:///C:/'],
    ['a sibling with the same prefix', 'file:///home/alice/project-secrets'],
    ['a parent', 'file:///home/alice'],
    ['traversal', 'file:///home/alice/project/../.ssh'],
    ['encoded traversal', 'file:///home/alice/project/%2e%2e/.ssh'],
    ['another scheme', 'https://example.com/'],
    ['not a URI', '/home/alice/project'],
    ['a query', 'file:///home/alice/project?x=1'],
  ])('denies %s', (_what, uri) => {
    const r = checkRoots(roots('file:///tmp/allowed', uri), config);
    expect(r.valid).toBe(false);
    expect(r.messages?.map((m) => m.path)).toEqual(['roots.1.uri']);
  });

  it('says why the whole disk is refused', () => {
    expect(checkRoots(roots('file:///'), config).messages?.[0].message).toBe("root 'file:///' exposes the whole disk");
    expect(checkRoots({ roots: 'file:///' }, config).valid).toBe(false);
    expect(checkRoots({ roots: [{ name: 'no uri' }] }, config).valid).toBe(false);
  });

  it('is an authorizing validation on roots/list (both phases), and refuses a whole-disk or bad config', async () => {
    const i = make(createRootsGuard, { allow: ['file:///tmp/allowed'] });
    expect(i.authorizes).toBe(true);
    expect(i.descriptor.hooks.map((h) => [h.events, h.phase])).toEqual([[['roots/list'], 'request'], [['roots/list'], 'response']]);
    expect(denied(await i.run(roots('file:///'), ctxOf('roots/list', 'response')))).toBe(true);
    expect(denied(await i.run(roots('file:///etc'), ctxOf('roots/list', 'request')))).toBe(true);
    expect(() => make(createRootsGuard, { allow: ['file:///'] })).toThrow(expect.objectContaining({ code: 'ERR_CONFIG' }));
    expect(() => make(createRootsGuard, { allow: ['relative/path'] })).toThrow(expect.objectContaining({ code: 'ERR_CONFIG' }));
    // No allow list: nothing may be exposed.
    expect(checkRoots(roots('file:///tmp/allowed'), parseRootsGuardConfig('r', undefined)).valid).toBe(false);
  });
});
