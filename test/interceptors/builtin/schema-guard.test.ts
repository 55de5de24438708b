import { describe, expect, it } from 'vitest';
import { compileSchema } from '../../../src/interceptors/builtin/_json-schema.js';
import { createSchemaGuard } from '../../../src/interceptors/builtin/schema-guard.js';
import { createMemoryStateStores } from '../../../src/interceptors/builtin/state-memory.js';
import { principalScopeOf } from '../../../src/interceptors/builtin/state-scope.js';
import type { Interceptor, Json, ValidationOutcome } from '../../../src/interceptors/types.js';
import { makeCtx } from './_policy-helpers.js';

const draft07 = 'http://json-schema.org/draft-07/schema#';
// server-filesystem's schemas as it lists them (zod output, draft-07).
const readFile = {
  type: 'object',
  properties: {
    path: { type: 'string' },
    tail: { description: 'If provided, returns only the last N lines of the file', type: 'number' },
    head: { description: 'If provided, returns only the first N lines of the file', type: 'number' },
  },
  required: ['path'],
  $schema: draft07,
};
const readMultiple = {
  type: 'object',
  properties: { paths: { minItems: 1, type: 'array', items: { type: 'string' } } },
  required: ['paths'],
  additionalProperties: false,
  $schema: draft07,
};
const annotated = {
  type: 'object',
  properties: { messageType: { type: 'string', enum: ['error', 'success', 'debug'] }, includeImage: { default: false, type: 'boolean' } },
  required: ['messageType'],
  $schema: draft07,
};

/** The scope makeCtx's caller (alice) lists and calls in. */
const ALICE = principalScopeOf({ principal: 'alice' });

function setup(config?: Json) {
  const state = createMemoryStateStores();
  state.toolSchemas.set(ALICE, 'filesystem', [
    { name: 'read_file', inputSchema: readFile },
    { name: 'read_multiple_files', inputSchema: readMultiple },
  ]);
  state.toolSchemas.set(ALICE, 'everything', [{ name: 'get-annotated-message', inputSchema: annotated }]);
  const guard = createSchemaGuard({ name: 'schemas', config, declaration: {}, deps: { state } });
  return { state, guard };
}

async function check(guard: Interceptor, payload: unknown, server = 'filesystem'): Promise<{ out: ValidationOutcome; state: Json }> {
  const ctx = makeCtx('tools/call', 'request', { server });
  const state = await guard.prepare!(payload, ctx);
  return { out: guard.run(payload, { ...ctx, state }) as ValidationOutcome, state };
}

describe('schema-guard', () => {
  it('declares a validation on tools/call requests', () => {
    expect(setup().guard.descriptor).toMatchObject({ type: 'validation', hooks: [{ events: ['tools/call'], phase: 'request' }] });
  });

  it('passes arguments that match the listed schema', async () => {
    const { out } = await check(setup().guard, { name: 'read_file', arguments: { path: '/tmp/allowed/a.txt', head: 5 } });
    expect(out).toEqual({ valid: true, info: { tool: 'read_file' } });
  });

  it('catches a wrong type, with the JSON Pointer of the field', async () => {
    const { out } = await check(setup().guard, { name: 'read_file', arguments: { path: '/tmp/a', head: 'ten' } });
    expect(out).toEqual({
      valid: false,
      severity: 'error',
      messages: [{ message: '/arguments/head must be number', severity: 'error', path: '/arguments/head' }],
      info: { tool: 'read_file', errors: 1 },
    });
  });

  it('reports every problem: missing, extra, nested and enum', async () => {
    const { guard } = setup();
    const multi = await check(guard, { name: 'read_multiple_files', arguments: { paths: ['a', 3], recursive: true } });
    expect(multi.out.messages?.map((m) => m.path)).toEqual(['/arguments/paths/1', '/arguments/recursive']);
    const missing = await check(guard, { name: 'read_file', arguments: {} });
    expect(missing.out.messages).toEqual([{ message: "/arguments/path must have required property 'path'", severity: 'error', path: '/arguments/path' }]);
    const noArgs = await check(guard, { name: 'read_file' });
    expect(noArgs.out.valid).toBe(false);
    const en = await check(guard, { name: 'get-annotated-message', arguments: { messageType: 'fatal' } }, 'everything');
    expect(en.out.messages?.[0].message).toBe('/arguments/messageType must be equal to one of the allowed values: ["error","success","debug"]');
  });

  it('points into params for a whole JSON-RPC request', async () => {
    const { out } = await check(setup().guard, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'read_file', arguments: { path: 1 } } });
    expect(out.messages?.[0].path).toBe('/params/arguments/path');
  });

  it('records the schema as state so replay needs no cache', async () => {
    const { guard } = setup();
    const payload = { name: 'read_file', arguments: { path: 7 } };
    const live = await check(guard, payload);
    expect(live.state).toEqual({ tool: 'read_file', inputSchema: readFile });
    const fresh = createSchemaGuard({ name: 'schemas', config: undefined, declaration: {}, deps: { state: createMemoryStateStores() } });
    const replayed = fresh.run(payload, { ...makeCtx('tools/call', 'request', { server: 'filesystem' }), state: live.state }) as ValidationOutcome;
    expect(replayed).toEqual(live.out);
  });

  it('treats an unlisted tool as a warning by default, configurable', async () => {
    const unknown = { name: 'search_files', arguments: { pattern: '*.md' } };
    const warn = await check(setup().guard, unknown);
    expect(warn.state).toEqual({ tool: 'search_files', unknown: true });
    expect(warn.out).toEqual({
      valid: false,
      severity: 'warning',
      messages: [{ message: 'no inputSchema known for tool "search_files" (not listed yet)', severity: 'warning' }],
      info: { tool: 'search_files', schema: 'unknown' },
    });
    expect((await check(setup({ unknownTool: 'error' }).guard, unknown)).out.severity).toBe('error');
    expect((await check(setup({ unknownTool: 'allow' }).guard, unknown)).out.valid).toBe(true);
    // The same tool name on another server is another tool.
    expect((await check(setup().guard, { name: 'read_file', arguments: { path: 'x' } }, 'everything')).out.severity).toBe('warning');
  });

  it('does not trust state recorded for another tool', () => {
    const { guard } = setup({ unknownTool: 'error' });
    const out = guard.run({ name: 'read_file', arguments: { path: 1 } }, { ...makeCtx('tools/call', 'request'), state: { tool: 'echo', inputSchema: { type: 'object' } } }) as ValidationOutcome;
    expect(out.messages?.[0].message).toMatch(/^no inputSchema known/);
  });

  it('uses JSON Schema 2020-12 when no $schema is given (the MCP default)', async () => {
    const { state, guard } = setup();
    state.toolSchemas.set(ALICE, 'calc', [{ name: 'pair', inputSchema: { type: 'object', properties: { p: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'string' }] } } } }]);
    expect((await check(guard, { name: 'pair', arguments: { p: [1, 'a'] } }, 'calc')).out.valid).toBe(true);
    expect((await check(guard, { name: 'pair', arguments: { p: ['a', 1] } }, 'calc')).out.messages?.map((m) => m.path)).toEqual(['/arguments/p/0', '/arguments/p/1']);
  });

  it('warns on a schema that does not compile, instead of crashing', async () => {
    const { state, guard } = setup();
    state.toolSchemas.set(ALICE, 'bad', [{ name: 'broken', inputSchema: { type: 'object', properties: { a: { type: 'not-a-type' } } } }]);
    const { out } = await check(guard, { name: 'broken', arguments: { a: 1 } }, 'bad');
    expect(out.severity).toBe('warning');
    expect(out.messages?.[0].message).toMatch(/^inputSchema of tool "broken" does not compile/);
  });

  it('compiles each schema once, by digest', () => {
    const a = compileSchema(structuredClone(readFile) as Json);
    const b = compileSchema(structuredClone(readFile) as Json);
    expect('validate' in a && 'validate' in b && a.validate === b.validate).toBe(true);
  });

  it('keeps two servers apart even when their schemas share an $id', () => {
    const a = compileSchema({ $id: 'urn:tool:args', type: 'object', required: ['a'] });
    const b = compileSchema({ $id: 'urn:tool:args', type: 'object', required: ['b'] });
    const passes = (c: typeof a, v: unknown) => 'validate' in c && c.validate(v, '').length === 0;
    expect(passes(a, { a: 1 }) && !passes(a, { b: 1 })).toBe(true);
    expect(passes(b, { b: 1 }) && !passes(b, { a: 1 })).toBe(true);
  });

  it('does not change the payload (no defaults filled in)', async () => {
    const payload = { name: 'get-annotated-message', arguments: { messageType: 'debug' } };
    await check(setup().guard, payload, 'everything');
    expect(payload.arguments).toEqual({ messageType: 'debug' });
  });

  it('refuses a bad config, listing every field', () => {
    expect(() => setup({ unknownTool: 'ignore', strictness: 1 })).toThrow(
      expect.objectContaining({ code: 'ERR_CONFIG', issues: [expect.objectContaining({ path: '/config/strictness' }), expect.objectContaining({ path: '/config/unknownTool' })] }),
    );
  });
});
