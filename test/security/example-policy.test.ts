// Issue 14 item 7, as an attacker calls the file tools: the example policy (fixtures/config) with
// the real Cedar engine must refuse a path outside /tmp/allowed wherever the argument sits (a
// `paths` array, nested objects, `source`/`destination`), and a path-like argument that is null.
import { describe, expect, it } from 'vitest';
import { authorizeMessage } from '../../src/interceptors/builtin/cedar-policy.js';
import { isPathKey, pathArgumentsOf } from '../../src/policy/index.js';
import { examplePolicySet, makeCtx } from '../interceptors/builtin/_policy-helpers.js';

const call = (name: string, args: unknown) => ({ name, arguments: args });
const decide = (name: string, args: unknown) => authorizeMessage(examplePolicySet(), call(name, args), makeCtx('tools/call', 'request'));

describe('example policy against hostile file-tool arguments', () => {
  it('read_multiple_files with {"paths":["/etc/shadow"]} is denied (was allowed: only `path` was checked)', () => {
    const r = decide('read_multiple_files', { paths: ['/etc/shadow'] });
    expect(r.valid).toBe(false);
    expect(r.messages?.[0].message).toContain("tools-forbid-path-outside on path '/etc/shadow'");
  });

  it('read_file with {"path":null} is denied (was allowed: null is dropped, so `has path` was false)', () => {
    const r = decide('read_file', { path: null });
    expect(r.valid).toBe(false);
    expect(r.messages?.[0].message).toContain('path-like argument /path is null');
  });

  it.each([
    ['one bad among good paths', 'read_multiple_files', { paths: ['/tmp/allowed/a.txt', '/etc/passwd'] }],
    ['a null among the paths', 'read_multiple_files', { paths: ['/tmp/allowed/a.txt', null] }],
    ['a path as an array', 'read_file', { path: ['/etc/shadow'] }],
    ['a path as a number', 'read_file', { path: 7 }],
    ['a path as an object', 'read_file', { path: { toString: '/etc/shadow' } }],
    ['traversal inside the allowed folder', 'read_file', { path: '/tmp/allowed/../../etc/shadow' }],
    ['nested under an unrelated key', 'read_text_file', { options: { filePath: '/root/.ssh/id_ed25519' } }],
    ['in an array of objects', 'read_multiple_files', { files: [{ path: '/tmp/allowed/x' }, { path: '/etc/shadow' }] }],
    ['a source outside (move_file by an operator)', 'move_file', { source: '/etc/passwd', destination: '/tmp/allowed/p' }],
    ['a camelCase directory key', 'directory_tree', { rootDir: '/' }],
    ['snake_case', 'list_directory', { target_dir: '/var' }],
  ])('%s is denied', (_what, name, args) => {
    const r = authorizeMessage(examplePolicySet(), call(name, args), makeCtx('tools/call', 'request', { roles: ['tool-user', 'operator'] }));
    expect(r.valid).toBe(false);
  });

  it('calls inside /tmp/allowed still pass, one Cedar request per path', () => {
    expect(decide('read_multiple_files', { paths: ['/tmp/allowed/a.txt', '/tmp/allowed/b/c.txt'] })).toEqual({
      valid: true,
      info: { reasons: ['tools-allow-basic'], paths: 2 },
    });
    expect(decide('read_file', { path: '/tmp/allowed/a.txt' }).valid).toBe(true);
    expect(decide('echo', { message: '/etc/shadow is just text here' }).valid).toBe(true);
    const op = authorizeMessage(examplePolicySet(), call('move_file', { source: '/tmp/allowed/a', destination: '/tmp/allowed/b' }), makeCtx('tools/call', 'request', { roles: ['tool-user', 'operator'] }));
    expect(op.valid).toBe(true);
  });

  it('prompts/get arguments are checked the same way', () => {
    const r = authorizeMessage(examplePolicySet(), { name: 'summarize', arguments: { file: '/etc/shadow' } }, makeCtx('prompts/get', 'request'));
    expect(r.valid).toBe(true); // the example policy only confines tools; the path is still judged as context.path
    const found = pathArgumentsOf({ file: '/etc/shadow' });
    expect(found).toEqual({ ok: true, paths: ['/etc/shadow'] });
  });

  it('completion/complete is authorized by what it completes (a prompt or a resource), not passed through', () => {
    const complete = (ref: unknown) => authorizeMessage(examplePolicySet(), { ref, argument: { name: 'a', value: 'b' } }, makeCtx('completion/complete', 'request'));
    expect(complete({ type: 'ref/prompt', name: 'summarize' }).valid).toBe(true);
    expect(complete({ type: 'ref/resource', uri: 'file:///tmp/allowed/{name}' }).valid).toBe(true);
    expect(complete({ type: 'ref/prompt', name: 'admin_reset' }).valid).toBe(false);
    expect(complete({ type: 'ref/resource', uri: 'file:///etc/{name}' }).valid).toBe(false);
    expect(complete({ type: 'ref/resource', uri: 'file:///tmp/allowed/../../etc/{x}' }).valid).toBe(false);
    expect(complete(undefined).messages?.[0].message).toContain('no ref/prompt name or ref/resource uri');
  });

  it('names path-like keys by their last word', () => {
    for (const k of ['path', 'paths', 'filePath', 'file_path', 'source', 'destination', 'rootDir', 'target-directory', 'inputFiles', 'cwd']) expect(isPathKey(k), k).toBe(true);
    for (const k of ['profile', 'message', 'pathology', 'content', 'mode', 'uri', 'target']) expect(isPathKey(k), k).toBe(false);
  });
});
