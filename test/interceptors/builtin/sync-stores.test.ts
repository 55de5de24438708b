// The built-ins that read live state (rate-limit, cross-boundary-guard, schema-guard) answer
// synchronously when their store does (memory, one process) and with a promise when it does not
// (a Durable Object on Workers), with the same recorded state and outcome either way; and a chain
// of them over synchronous stores arms no per-interceptor deadline timer (_attempt.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { executeChain } from '../../../src/interceptors/chain.js';
import { createCrossBoundaryGuard } from '../../../src/interceptors/builtin/cross-boundary-guard.js';
import { createRateLimit } from '../../../src/interceptors/builtin/rate-limit.js';
import { createSchemaGuard } from '../../../src/interceptors/builtin/schema-guard.js';
import { createMemoryStateStores } from '../../../src/interceptors/builtin/state-memory.js';
import { conversationScopeOf, principalScopeOf } from '../../../src/interceptors/builtin/state-scope.js';
import type { BuiltinDeps, BuiltinFactory, StateStores } from '../../../src/interceptors/builtin/types.js';
import type { Interceptor, InterceptorContext, Json } from '../../../src/interceptors/types.js';
import { ctxOf } from './_content-ctx.js';
import * as S from './_secrets.js';

/** The same stores, answering every call with a promise (as a Durable Object-backed store does). */
function asynchronous(s: StateStores): StateStores {
  return {
    counters: { hit: async (...a) => s.counters.hit(...a) },
    taint: { add: async (...a) => s.taint.add(...a), find: async (...a) => s.taint.find(...a) },
    toolSchemas: { set: async (...a) => s.toolSchemas.set(...a), get: async (...a) => s.toolSchemas.get(...a) },
  };
}

const isThenable = (v: unknown): boolean => typeof (v as { then?: unknown } | null)?.then === 'function';

// A schema with the `if`/`then` keywords: a JSON value whose `then` is an object, not a promise.
const SCHEMA: Json = { type: 'object', properties: { mode: { type: 'string' } }, if: { properties: { mode: { const: 'strict' } } }, then: { required: ['path'] } };

interface Setup {
  stores: StateStores;
  chain: Interceptor[];
}

function setup(wrap: (s: StateStores) => StateStores): Setup {
  const base = createMemoryStateStores();
  base.toolSchemas.set(principalScopeOf(ctx()), 'files', [{ name: 'read', inputSchema: SCHEMA }]);
  base.taint.add(conversationScopeOf(ctx()), 'vault', [S.GITHUB_PAT]);
  const deps: BuiltinDeps = { state: wrap(base) };
  const make = (f: BuiltinFactory, name: string, config?: Json) => f({ name, config, declaration: {}, deps });
  return {
    stores: deps.state,
    chain: [make(createRateLimit, 'rate', { limit: 2 }), make(createCrossBoundaryGuard, 'exfil'), make(createSchemaGuard, 'schemas')],
  };
}

const CALLS: unknown[] = [
  { name: 'read', arguments: { mode: 'strict', path: '/a' } },
  { name: 'read', arguments: { mode: 'strict' } },
  { name: 'read', arguments: { mode: 'loose', note: `token ${S.GITHUB_PAT}` } },
  { name: 'write', arguments: {} },
];
const ctx = (): InterceptorContext => ctxOf('tools/call', 'request', { principal: 'alice', sessionId: 's1', server: 'files' });

afterEach(() => vi.restoreAllMocks());

describe('built-ins on synchronous and asynchronous stores', () => {
  it('prepare() answers synchronously on a synchronous store, with a promise otherwise, and records the same state', async () => {
    const sync = setup((s) => s);
    const async_ = setup(asynchronous);
    for (const payload of CALLS) {
      for (let i = 0; i < sync.chain.length; i++) {
        const { state: _s, ...live } = ctx();
        const a = sync.chain[i].prepare!(payload, live);
        const b = async_.chain[i].prepare!(payload, live);
        expect(isThenable(a), sync.chain[i].descriptor.name).toBe(false);
        expect(isThenable(b), async_.chain[i].descriptor.name).toBe(true);
        expect(a).toEqual(await b);
      }
    }
  });

  it('a chain of them decides the same either way; over synchronous stores it arms only the chain deadline', async () => {
    const sync = setup((s) => s);
    const async_ = setup(asynchronous);
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const runs = async (s: Setup) => {
      const out = [];
      for (const payload of CALLS) {
        const before = timers.mock.calls.length;
        const run = await executeChain(s.chain, { event: 'tools/call', phase: 'request', payload }, ctx());
        out.push({ status: run.result.status, results: run.result.results.map((r) => ({ ...r, durationMs: undefined })), state: run.state, timers: timers.mock.calls.length - before });
      }
      return out;
    };
    const a = await runs(sync);
    const b = await runs(async_);
    expect(a.map(({ timers: _t, ...r }) => r)).toEqual(b.map(({ timers: _t, ...r }) => r));
    // The second call misses `path` (the schema's if/then); the third is over the limit of 2 and
    // carries vault's token to files; `write` is counted apart and its schema is unknown (a warning).
    expect(a.map((r) => r.status)).toEqual(['success', 'validation_failed', 'validation_failed', 'success']);
    const failed = (r: (typeof a)[number]) => r.results.filter((x) => x.type === 'validation' && !x.valid && x.severity === 'error').map((x) => x.interceptor);
    expect(a.map(failed)).toEqual([[], ['schemas'], ['exfil', 'rate'], []]);
    expect(a.map((r) => r.timers)).toEqual([1, 1, 1, 1]);
    // Each asynchronous prepare races its own deadline (the schema guard's too, for `write`).
    expect(b.map((r) => r.timers)).toEqual([4, 4, 4, 4]);
  });
});
