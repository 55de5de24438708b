import { describe, expect, it } from 'vitest';
import { createDiscoveryFilter } from '../../../src/interceptors/builtin/discovery-filter.js';
import { createSchemaGuard } from '../../../src/interceptors/builtin/schema-guard.js';
import { createMemoryStateStores } from '../../../src/interceptors/builtin/state-memory.js';
import { principalScopeOf } from '../../../src/interceptors/builtin/state-scope.js';
import type { InterceptorContext, MutationOutcome, ValidationOutcome } from '../../../src/interceptors/types.js';
import { examplePolicySet, makeCtx } from './_policy-helpers.js';

const str = (description: string) => ({ type: 'string', description });
const draft07 = 'http://json-schema.org/draft-07/schema#';
// As listed by @modelcontextprotocol/server-everything and server-filesystem (abridged), plus two traps.
const toolsList = {
  tools: [
    { name: 'echo', description: 'Echoes back the input', inputSchema: { type: 'object', properties: { message: str('Message to echo') }, required: ['message'], $schema: draft07 } },
    { name: 'get-env', description: 'Returns all environment variables', inputSchema: { type: 'object', properties: {}, $schema: draft07 } },
    { name: 'read_file', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' }, head: { type: 'number' } }, required: ['path'], $schema: draft07 } },
    { name: 'write_file', description: 'Write a file', inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'], $schema: draft07 } },
    { name: 'delete_file', description: 'Delete a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, $schema: draft07 } },
    { name: 'dangerous_tool', description: 'Runs anything', inputSchema: { type: 'object', properties: { cmd: { type: 'string' } } } },
  ],
  nextCursor: 'page-2',
};

/** The scope makeCtx's caller (alice) lists in. */
const ALICE = principalScopeOf({ principal: 'alice' });

function setup() {
  const state = createMemoryStateStores();
  const filter = createDiscoveryFilter({ name: 'discovery', config: undefined, declaration: {}, deps: { policySet: examplePolicySet(), state } });
  return { state, filter };
}

function names(out: MutationOutcome, key = 'tools', id = 'name'): string[] {
  return ((out.payload as Record<string, Record<string, string>[]>)[key] ?? []).map((t) => t[id]);
}

describe('discovery-filter', () => {
  it('declares a mutation on the response phase of the three lists', () => {
    expect(setup().filter.descriptor).toMatchObject({ type: 'mutation', hooks: [{ events: ['tools/list', 'prompts/list', 'resources/list'], phase: 'response' }] });
  });

  it('hides the tools the caller may not call, keeping everything else of the result', () => {
    const out = setup().filter.run(toolsList, makeCtx('tools/list', 'response', { server: 'everything' })) as MutationOutcome;
    expect(out.modified).toBe(true);
    expect(names(out)).toEqual(['echo', 'read_file']);
    expect((out.payload as { nextCursor: string }).nextCursor).toBe('page-2');
    expect(out.info).toEqual({ hidden: ['get-env', 'write_file', 'delete_file', 'dangerous_tool'] });
    expect(toolsList.tools).toHaveLength(6); // input untouched
  });

  it('shows more to a role that may use more, never the forbidden ones', () => {
    const out = setup().filter.run(toolsList, makeCtx('tools/list', 'response', { roles: ['tool-user', 'operator'] })) as MutationOutcome;
    expect(names(out)).toEqual(['echo', 'read_file', 'write_file']);
  });

  it('hides everything from a caller without a principal', () => {
    const { principal: _p, ...ctx } = makeCtx('tools/list', 'response');
    expect(names(setup().filter.run(toolsList, ctx as InterceptorContext) as MutationOutcome)).toEqual([]);
  });

  it('filters prompts and resources with their call actions', () => {
    const { filter } = setup();
    const prompts = { prompts: [{ name: 'simple_prompt', description: 'A prompt without arguments' }, { name: 'admin_reset' }, { name: 'unlisted' }] };
    expect(names(filter.run(prompts, makeCtx('prompts/list', 'response')) as MutationOutcome, 'prompts')).toEqual(['simple_prompt']);
    const resources = {
      resources: [
        { uri: 'file:///tmp/allowed/report.md', name: 'report.md', mimeType: 'text/markdown' },
        { uri: 'file:///etc/passwd', name: 'passwd' },
        { uri: 'test://static/resource/1', name: 'Resource 1', mimeType: 'text/plain' },
        { name: 'no uri' },
      ],
    };
    const out = filter.run(resources, makeCtx('resources/list', 'response')) as MutationOutcome;
    expect(names(out, 'resources', 'uri')).toEqual(['file:///tmp/allowed/report.md', 'test://static/resource/1']);
    expect(out.info).toEqual({ hidden: ['file:///etc/passwd', '(unnamed)'] });
  });

  it('leaves an all-allowed list, another event, or a non-list payload unmodified', () => {
    const { filter } = setup();
    const fine = { tools: [toolsList.tools[0]] };
    expect(filter.run(fine, makeCtx('tools/list', 'response'))).toEqual({ modified: false, payload: fine, info: { hidden: [] } });
    expect(filter.run(toolsList, makeCtx('tools/call', 'response'))).toEqual({ modified: false, payload: toolsList });
    expect(filter.run({ error: 'x' }, makeCtx('tools/list', 'response'))).toEqual({ modified: false, payload: { error: 'x' } });
  });

  it('filters inside a whole JSON-RPC response', () => {
    const rpc = { jsonrpc: '2.0', id: 1, result: toolsList };
    const out = setup().filter.run(rpc, makeCtx('tools/list', 'response')) as MutationOutcome;
    expect(out.payload).toMatchObject({ jsonrpc: '2.0', id: 1, result: { nextCursor: 'page-2' } });
    expect((out.payload as { result: { tools: unknown[] } }).result.tools).toHaveLength(2);
  });

  it('commit() records the listed schemas, which schema-guard then checks calls against', async () => {
    const { filter, state } = setup();
    const ctx = makeCtx('tools/list', 'response', { server: 'filesystem' });
    const out = filter.run(toolsList, ctx) as MutationOutcome;
    await filter.commit!(out.payload, ctx);
    expect(state.toolSchemas.get(ALICE, 'filesystem', 'read_file')).toEqual(toolsList.tools[2].inputSchema);
    expect(state.toolSchemas.get(ALICE, 'filesystem', 'get-env')).toBeUndefined(); // hidden: not listed to this caller
    expect(state.toolSchemas.get(ALICE, 'everything', 'read_file')).toBeUndefined();

    const guard = createSchemaGuard({ name: 'schemas', config: undefined, declaration: {}, deps: { state } });
    const callCtx = makeCtx('tools/call', 'request', { server: 'filesystem' });
    const payload = { name: 'read_file', arguments: { path: 42 } };
    const recorded = await guard.prepare!(payload, callCtx);
    const verdict = guard.run(payload, { ...callCtx, state: recorded }) as ValidationOutcome;
    expect(verdict.messages).toEqual([{ message: '/arguments/path must be string', severity: 'error', path: '/arguments/path' }]);
  });

  it('commit() ignores responses of other events', async () => {
    const { filter, state } = setup();
    await filter.commit!(toolsList, makeCtx('prompts/list', 'response', { server: 'x' }));
    expect(state.toolSchemas.get(ALICE, 'x', 'echo')).toBeUndefined();
  });

  it('refuses to build without a policy set', () => {
    expect(() => createDiscoveryFilter({ name: 'd', config: undefined, declaration: {}, deps: { state: createMemoryStateStores() } })).toThrow(
      expect.objectContaining({ code: 'ERR_CONFIG' }),
    );
  });
});
