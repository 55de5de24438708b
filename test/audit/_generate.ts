// Test helper: a real data directory with N varied decisions made through decide() under the
// fixture chain (every stateful or mutating builtin, one in audit mode, a low rate limit).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { activatePolicy, type Activated, decide, type DecisionRequest, recordActivation } from '../../src/decide/index.js';
import { createMemoryStateStores } from '../../src/interceptors/builtin/index.js';
import { loadConfigFile } from '../../src/policy/load-config.js';
import { logPortOf } from '../../src/store/log-port.js';
import { initDataDir, openDataDir, type DataDir } from '../../src/store/node.js';

export const FIXTURE_CONFIG = fileURLToPath(new URL('./fixtures/replay-config.yaml', import.meta.url));
export const BASE_TIME = Date.parse('2026-03-01T09:00:00Z');

const AWS = 'AKIAIOSFODNN7EXAMPLE';
const LIST = {
  tools: [
    { name: 'echo', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } },
    { name: 'send_mail', inputSchema: { type: 'object', properties: { to: { type: 'string' }, body: { type: 'string' } }, required: ['to'] } },
    { name: 'dangerous_tool', inputSchema: { type: 'object' } },
    { name: 'read_file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } },
  ],
};

/** The i-th request of a varied, deterministic mix; times advance 0.5 s per request. */
export function requestOf(i: number, tenant = 'default'): DecisionRequest {
  const time = new Date(BASE_TIME + i * 500).toISOString();
  const whoAt = (j: number) => ['alice', 'bob', 'carol', 'dave'][j % 4];
  const who = whoAt(i);
  const ctx = { time, tenant, principal: who, roles: i % 5 === 0 ? ['operator'] : ['user'], sessionId: `s${Math.floor(i / 12) % 10}` }; // a round of 12 per session, reused 120 requests later
  const call = (name: string, args: Record<string, unknown>, server?: string): DecisionRequest => ({ event: 'tools/call', phase: 'request', payload: { name, arguments: args }, context: { ...ctx, ...(server && { server }) } });
  switch (i % 12) {
    case 0: return call('echo', { message: `hi ${i}, call +1 415 555 0${100 + (i % 800)} or a${i}@example.com` }); // allow, mutated
    case 1: return call('dangerous_tool', { x: i }); // deny (forbid)
    case 2: return call('send_mail', { to: 'x@example.com', body: `note ${i % 3}` }); // allow until the rate limit bites
    case 3: return call('read_file', { path: i % 2 ? '/etc/passwd' : `/tmp/allowed/f${i}` }); // deny or allow
    case 4: return call('write_file', { path: `/tmp/allowed/w${i}`, content: 'x' }); // operators only
    // The discovery filter mutates; listed to the principal of the next echo (case 6): a listing is its caller's own.
    case 5: return { event: 'tools/list', phase: 'response', payload: LIST, context: { ...ctx, principal: whoAt(i + 1), server: 'everything' } };
    case 6: return call('echo', { message: i % 2 ? `key ${AWS}` : 42 }); // secrets (audit mode); schema error when listed
    case 7: return { event: 'sampling/createMessage', phase: 'request', payload: { messages: [], maxTokens: i % 2 ? 3000 : 500, modelPreferences: { hints: [{ name: 'gpt-4' }] } }, context: { ...ctx, server: 'everything' } };
    case 8: return { event: 'tools/call', phase: 'response', payload: { content: [{ type: 'text', text: `secret ${AWS}` }] }, context: { ...ctx, server: 'files' } };
    // Cross-boundary when tainted: by the principal whose response (case 8, same session) carried
    // the secret. Taint is the principal's own; another principal in the same session has none.
    case 9: return { ...call('send_mail', { to: 'y@example.com', body: `fwd ${AWS}` }), context: { ...ctx, principal: whoAt(i - 1) } };
    case 10: return { event: 'prompts/get', phase: 'request', payload: { name: 'admin_prompt' }, context: ctx }; // default deny
    default: return call('get-sum', { a: i, b: 2 }, 'everything');
  }
}

export interface GeneratedLog {
  dir: string;
  dataDir: DataDir;
  policy: Activated;
  size: number;
  close(): Promise<void>;
}

/** Make `n` decisions in a fresh data dir, `concurrency` at a time (group commit: few signatures). */
export async function generateLog(n: number, opts: { concurrency?: number; dir?: string; tenant?: string } = {}): Promise<GeneratedLog> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'vouch-audit-'));
  const tenant = opts.tenant ?? 'default';
  initDataDir(dir);
  const dataDir = await openDataDir(dir, { thread: false, maxBatch: 256 });
  const policy = await activatePolicy(await loadConfigFile(FIXTURE_CONFIG), { state: createMemoryStateStores(), remote: 'offline' });
  const t = dataDir.log(tenant);
  const port = logPortOf(t.origin, t.store, t.appender);
  await recordActivation(port, t.store, policy, new Date(BASE_TIME - 1000).toISOString());
  const k = opts.concurrency ?? 64;
  for (let i = 0; i < n; i += k) {
    await Promise.all(Array.from({ length: Math.min(k, n - i) }, (_, j) => decide(requestOf(i + j, tenant), { policy, log: port })));
  }
  return {
    dir,
    dataDir,
    policy,
    size: t.appender.size,
    close: async () => {
      await dataDir.close();
      await policy.close();
    },
  };
}

/** Append to a closed data dir's log a copy of the first deny decision, forged to say allow (validly signed). */
export async function appendForgedAllow(dir: string, tenant = 'default'): Promise<number> {
  const dataDir = await openDataDir(dir, { thread: false });
  try {
    const t = dataDir.log(tenant);
    const all = [...t.store.entries(0, t.store.size())].map((e) => JSON.parse(new TextDecoder().decode(e.bytes)));
    const deny = all.find((e) => e.type === 'decision' && e.decision.effect === 'deny' && e.decision.abortedAt?.interceptor === 'authz');
    const { v: _v, log: _l, seq: _s, prev: _p, heads: _h, ...body } = deny;
    const { abortedAt: _a, ...decision } = body.decision;
    const appended = await t.appender.append({ ...body, decision: { ...decision, effect: 'allow', status: 'success' } });
    return appended.seq;
  } finally {
    await dataDir.close();
  }
}

/** An Io that keeps what a command printed. */
export function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => void out.push(l), err: (l: string) => void err.push(l) }, out, err, text: () => out.join('\n'), errText: () => err.join('\n') };
}
