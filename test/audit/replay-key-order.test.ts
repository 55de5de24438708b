// Issue 35 item 3: replay must not report a false mismatch on a clean log. The log keeps each
// payload as canonical JSON (keys sorted), so replay sees keys in sorted order while the live chain
// saw them in the order the peer sent them. Every built-in of the example config gets payloads
// whose keys arrive in reverse order (and states whose keys were listed in reverse order), and
// every decision must replay to `match`.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { replayLog } from '../../src/audit/index.js';
import { storeReplaySource } from '../../src/audit/node-bundle.js';
import { canonicalText } from '../../src/canonical/index.js';
import { activatePolicy, decide, recordActivation, type DecisionRequest } from '../../src/decide/index.js';
import { executeChain, stripVolatile } from '../../src/interceptors/chain.js';
import { CTX, validator } from '../interceptors/chain-kit.js';
import { createMemoryStateStores, principalScopeOf } from '../../src/interceptors/builtin/index.js';
import { decodeEntry } from '../../src/log/index.js';
import { loadConfigFile } from '../../src/policy/load-config.js';
import { logPortOf } from '../../src/store/log-port.js';
import { initDataDir, logPath, openDataDir, openSqliteStore } from '../../src/store/node.js';

const EXAMPLE = fileURLToPath(new URL('../../fixtures/config/vouch.example.yaml', import.meta.url));

/** The same JSON with every object's keys inserted in reverse sorted order (what a peer may send). */
function reversed<T>(v: T): T {
  if (Array.isArray(v)) return v.map(reversed) as T;
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort().reverse()) out[k] = reversed((v as Record<string, unknown>)[k]);
  return out as T;
}

describe('replay of payloads whose keys arrive out of canonical order', () => {
  it('every built-in of the example config replays to match', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-key-order-'));
    initDataDir(dir);
    const dd = await openDataDir(dir, { thread: false });
    const t = dd.log('default');
    const port = logPortOf(t.origin, t.store, t.appender);
    const state = createMemoryStateStores();
    // A schema cached as its server listed it (keys out of order), as a store may hand it back.
    state.toolSchemas.set(principalScopeOf({ tenant: 'default', principal: 'alice' }), 'everything', [{ name: 'echo', inputSchema: reversed({ type: 'object', properties: { z: { type: 'number' }, message: { type: 'string' }, a: { type: 'number' } }, required: ['message'] }) }]);
    const policy = await activatePolicy(await loadConfigFile(EXAMPLE), { state, remote: 'offline' });
    await recordActivation(port, t.store, policy, '2026-03-01T08:00:00Z');
    const ctx = (i: number) => ({ time: `2026-03-01T09:00:${String(i).padStart(2, '0')}Z`, tenant: 'default', principal: 'alice', roles: ['user'], sessionId: 's1', server: 'everything' });
    const requests: Omit<DecisionRequest, 'context'>[] = [
      // sensitive-field-guard: two sensitive fields, listed zebra-first (the false mismatch).
      {
        event: 'elicitation/create',
        phase: 'request',
        payload: { message: 'details', requestedSchema: { type: 'object', properties: { zip_pin: { type: 'string', title: 'PIN' }, pin: { type: 'string' }, account_number: { type: 'string' }, cvv: { type: 'string' } } } },
      },
      // schema-guard: a listed schema with properties out of order, then a call breaking several of them.
      { event: 'tools/list', phase: 'response', payload: { tools: [{ name: 'get-sum', inputSchema: { type: 'object', properties: { z: { type: 'number' }, b: { type: 'number' }, a: { type: 'number' } }, required: ['z', 'b', 'a'], additionalProperties: false } }] } },
      { event: 'tools/call', phase: 'request', payload: { name: 'get-sum', arguments: { zz: 1, z: 'x', b: 'y', a: 'w', aa: 2 } } },
      // schema-guard on a state recorded out of order: several properties of the wrong type.
      { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { z: 'x', message: 1, a: 'y' } } },
      // redactors: secrets and PII under several keys, keys redacted alike (numbered in key order).
      { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { zeta: 'mail bob@example.com', alpha: 'key AKIAIOSFODNN7EXAMPLE', 'AKIAIOSFODNN7EXAMPLF': 1, 'AKIAIOSFODNN7EXAMPLE': 2 } } },
      // sampling and llm guards: several objections each.
      { event: 'sampling/createMessage', phase: 'request', payload: { systemPrompt: 's', modelPreferences: { hints: [{ name: 'gpt-5' }] }, maxTokens: 99999, includeContext: 'allServers', messages: [] } },
      { event: 'llm/completion', phase: 'request', payload: { model: 'gpt-5', max_tokens: 99999, messages: [{ role: 'user', content: 'card 4111 1111 1111 1111 and key AKIAIOSFODNN7EXAMPLE' }] } },
      // roots-guard: several roots outside the allowed folder.
      { event: 'roots/list', phase: 'response', payload: { roots: [{ uri: 'file:///', name: 'all' }, { uri: 'file:///etc', name: 'etc' }] } },
      // discovery-filter and the Cedar policy: several permits, several forbids.
      { event: 'tools/list', phase: 'response', payload: { tools: [{ name: 'zz' }, { name: 'echo' }, { name: 'dangerous_tool' }, { name: 'read_file' }] } },
      { event: 'tools/call', phase: 'request', payload: { name: 'read_multiple_files', arguments: { paths: ['/tmp/allowed/b', '/tmp/allowed/a'] } } },
      // cross-boundary-guard: a secret from one server, sent to another.
      { event: 'tools/call', phase: 'response', payload: { content: [{ type: 'text', text: 'ghp_0123456789abcdefghijABCDEFGHIJ012345' }] } },
    ];
    let i = 0;
    for (const r of requests) {
      await decide({ ...r, payload: reversed(r.payload), context: ctx(i++) }, { policy, log: port });
    }
    await decide({ event: 'tools/call', phase: 'request', payload: reversed({ name: 'echo', arguments: { z: 'ghp_0123456789abcdefghijABCDEFGHIJ012345', a: 'x' } }), context: { ...ctx(i++), server: 'other' } }, { policy, log: port });
    await dd.close();
    await policy.close();
    const store = openSqliteStore(logPath(dir, 'default'), { readonly: true });
    try {
      const denied = [...store.entries(0, store.size())].map((e) => decodeEntry(e.bytes) as Record<string, any>).filter((e) => e.type === 'decision' && e.decision.effect === 'deny');
      expect(denied.length).toBeGreaterThan(3); // the scenarios above do object, several times each
      const r = await replayLog(storeReplaySource(store));
      expect(r.results).toEqual([]);
      expect(r.mismatch).toBe(0);
      expect(r.match).toBe(requests.length + 1);
    } finally {
      store.close();
    }
  });
});

describe('recorded state is handed to run() in canonical key order', () => {
  it('a run() that walks its state answers the same live and from the entry (a fresh process compiles the recorded schema)', async () => {
    // The state as a store returns it (keys as listed); replay reads it back from canonical bytes.
    const ic = validator('walker', (_p, ctx) => ({ valid: false, severity: 'error', messages: Object.keys(ctx.state as object).map((k) => ({ message: k, severity: 'error' as const })) }), {
      prepare: () => ({ zeta: 1, alpha: 2, mid: 3 }),
    });
    const req = { event: 'tools/call', phase: 'request' as const, payload: { name: 'x' } };
    const live = await executeChain([ic], req, CTX);
    const recorded = JSON.parse(canonicalText(live.state));
    const replay = await executeChain([ic], req, CTX, { replayState: recorded });
    expect(canonicalText(stripVolatile(replay.result))).toBe(canonicalText(stripVolatile(live.result)));
    expect((live.result.results[0] as { messages: { message: string }[] }).messages.map((m) => m.message)).toEqual(['alpha', 'mid', 'zeta']);
  });
});
