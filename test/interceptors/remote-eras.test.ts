// Remote interceptors in both MCP eras (issue 36): a real interceptor server speaking 2026-07-28
// only (SDK v2 Server) and one speaking 2025 only (SDK v1 Server), each on 127.0.0.1, reached with
// the config's `era` (auto, legacy, a pin). A decision through each is signed into a real log and
// replays to match with the server stopped. A hostile 2026 server's answer whose resultType is not
// `complete` (input_required, a task, none) is a recorded deny with a coded reason, never an allow.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { replayLog } from '../../src/audit/index.js';
import { storeReplaySource } from '../../src/audit/node-bundle.js';
import { canonicalText } from '../../src/canonical/index.js';
import { activatePolicy, decide, recordActivation, type Activated } from '../../src/decide/index.js';
import { createMemoryStateStores } from '../../src/interceptors/builtin/index.js';
import { executeChain, stripVolatile, decisionOf } from '../../src/interceptors/chain.js';
import { createBehavior } from '../../src/interceptors/conformance-behaviors.js';
import { connectRemoteInterceptors } from '../../src/interceptors/remote.js';
import { decodeEntry } from '../../src/log/index.js';
import { parseDeclaration } from '../../src/protocol/index.js';
import { resolveConfigDocument, type RemoteEra } from '../../src/policy/index.js';
import { logPortOf } from '../../src/store/log-port.js';
import { initDataDir, logPath, openDataDir, openSqliteStore } from '../../src/store/node.js';
import { CTX } from './chain-kit.js';
import { HOSTILE_ANSWERS, startLegacyRemote, startModernRemote, type RunningRemote } from './_remote-servers.js';

const hosted = [
  ['guard/require-upper', 'validation', 'require-uppercase-note'],
  ['guard/upper', 'mutation', 'uppercase-note'],
  ...Object.keys(HOSTILE_ANSWERS).map((name) => [name, 'validation', 'allow-all']),
].map(([name, type, behavior]) => createBehavior(behavior, parseDeclaration({ name, type, events: ['tools/call'], phase: 'request' })));

const servers: RunningRemote[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  for (const s of servers.splice(0)) await s.stop();
});
const modern = async (opts?: { delayMs?: number }) => servers[servers.push(await startModernRemote(hosted, opts)) - 1];
const legacy = async () => servers[servers.push(await startLegacyRemote(hosted)) - 1];

const MODERN = '2026-07-28';
const call = (note: string) => ({ event: 'tools/call', phase: 'request' as const, payload: { name: 'echo', arguments: { note } } });

async function connect(url: string, era: RemoteEra | undefined, names: string[], timeoutMs?: number) {
  const r = await connectRemoteInterceptors({ url, era, names, timeoutMs });
  closers.push(r.close);
  return r.interceptors;
}

/**
 * Two decisions through decide() under a config with the remote declaration (activation connects
 * with the config's era), signed into a fresh data directory; then the server stops and the log is
 * replayed from the recorded answers.
 */
async function decideAndReplay(server: RunningRemote, era: RemoteEra | undefined) {
  const d = mkdtempSync(join(tmpdir(), 'vouch-remote-eras-'));
  initDataDir(d);
  const dd = await openDataDir(d, { thread: false });
  const t = dd.log('default');
  const config = {
    version: 1,
    policies: { inline: { policies: 'permit(principal, action, resource);' } },
    interceptors: [
      { name: 'authz', use: 'cedar-policy' },
      { name: 'guard', remote: { url: server.url, names: ['guard/require-upper'], ...(era && { era }) } },
    ],
  };
  let policy: Activated | undefined;
  try {
    policy = await activatePolicy(resolveConfigDocument(config as never), { state: createMemoryStateStores(), remote: 'connect' });
    const port = logPortOf(t.origin, t.store, t.appender);
    await recordActivation(port, t.store, policy, '2026-08-01T08:00:00Z');
    const context = { time: '2026-08-01T09:00:00Z', principal: 'alice', tenant: 'default' };
    const effects: string[] = [];
    for (const note of ['SHIP IT', 'ship it']) effects.push((await decide({ ...call(note), context }, { policy, log: port })).effect);
    return { effects, d };
  } finally {
    await policy?.close();
    await dd.close();
  }
}

async function replayed(d: string) {
  const s = openSqliteStore(logPath(d, 'default'), { readonly: true });
  try {
    const entries = [...s.entries(0, s.size())].map((e) => decodeEntry(e.bytes)).filter((e) => e.type === 'decision') as unknown as { state: Record<string, any> }[];
    const report = await replayLog(storeReplaySource(s), { includeMatches: true });
    return { report, states: entries.map((e) => e.state['guard/require-upper']) };
  } finally {
    s.close();
  }
}

describe('a 2026-07-28-only interceptor server (SDK v2)', () => {
  it('auto and the pin connect over 2026 (server/discover, the _meta envelope); legacy cannot', async () => {
    const s = await modern();
    for (const era of [undefined, 'auto', MODERN] as const) {
      const [upper] = await connect(s.url, era, ['guard/upper']);
      const live = await executeChain([upper], call('quiet'), CTX);
      expect(live.result.finalPayload).toEqual({ name: 'echo', arguments: { note: 'QUIET' } });
    }
    expect(s.methods.filter((m) => m.method === 'initialize')).toEqual([]);
    expect(s.methods.filter((m) => m.method === 'server/discover').length).toBeGreaterThanOrEqual(3);
    expect(s.methods.filter((m) => m.method === 'interceptor/invoke').every((m) => m.protocolVersion === MODERN)).toBe(true);
    await expect(connectRemoteInterceptors({ url: s.url, era: 'legacy' })).rejects.toMatchObject({ code: 'ERR_INTERCEPTOR_FAILED' });
  });

  it('a decision through it is signed with the answer as state, and replays to match with the server stopped', async () => {
    const s = await modern();
    const { effects, d } = await decideAndReplay(s, undefined);
    expect(effects).toEqual(['allow', 'deny']);
    expect(s.calls.map((c) => c.name)).toEqual(['guard/require-upper', 'guard/require-upper']);
    await s.stop();
    const { report, states } = await replayed(d);
    expect(states).toEqual([expect.objectContaining({ type: 'validation', valid: true }), expect.objectContaining({ type: 'validation', valid: false })]);
    expect(states.every((x) => !('resultType' in x))).toBe(true); // the era's wire field is not the answer
    expect(report).toMatchObject({ match: 2, mismatch: 0, unreplayable: 0, remoteAnswers: 2 });
  });

  it('a hostile answer (input_required, a task, no resultType) is a recorded deny with a coded reason: nothing fulfilled, replay matches', async () => {
    const s = await modern();
    for (const name of Object.keys(HOSTILE_ANSWERS)) {
      const [evil] = await connect(s.url, 'auto', [name]);
      const live = await executeChain([evil], call('SHIP IT'), CTX);
      expect(decisionOf(live.result), name).toBe('deny');
      expect(live.state[name]).toEqual({ error: expect.stringContaining('interceptor/invoke'), code: 'ERR_REMOTE_MALFORMED' });
      expect(live.result.abortedAt).toMatchObject({ interceptor: name, reason: expect.stringContaining('(ERR_REMOTE_MALFORMED)') });
      const replay = await executeChain([evil], call('SHIP IT'), CTX, { replayState: live.state });
      expect(canonicalText(stripVolatile(replay.result))).toBe(canonicalText(stripVolatile(live.result)));
    }
    // One invoke each: no round of input_required was fulfilled and retried, no task polled.
    expect(s.calls.map((c) => c.name)).toEqual(Object.keys(HOSTILE_ANSWERS));
    expect(s.methods.filter((m) => m.method.startsWith('tasks/'))).toEqual([]);
  });

  it('a slow server: the client timeout denies, recorded', async () => {
    const s = await modern({ delayMs: 2_000 });
    const [slow] = await connect(s.url, MODERN, ['guard/require-upper'], 300);
    const live = await executeChain([slow], call('SHIP IT'), CTX);
    expect(decisionOf(live.result)).toBe('deny');
    expect(live.state['guard/require-upper']).toEqual({ error: expect.stringMatching(/time/i) });
  });

  it('a server that is gone: the connect fails with a code; a live interceptor whose server went away denies', async () => {
    const s = await modern();
    const [ok] = await connect(s.url, 'auto', ['guard/require-upper']);
    await s.stop();
    await expect(connectRemoteInterceptors({ url: s.url, timeoutMs: 1_000 })).rejects.toMatchObject({ code: 'ERR_INTERCEPTOR_FAILED' });
    const gone = await executeChain([ok], call('SHIP IT'), CTX, { interceptorTimeoutMs: 2_000 });
    expect(decisionOf(gone.result)).toBe('deny');
    expect(gone.state['guard/require-upper']).toEqual({ error: expect.any(String) });
  });
});

describe('a 2025-only interceptor server (SDK v1)', () => {
  it('auto falls back to initialize and legacy speaks it; the 2026 pin cannot connect', async () => {
    const s = await legacy();
    for (const era of [undefined, 'auto', 'legacy'] as const) {
      const [upper] = await connect(s.url, era, ['guard/upper']);
      const live = await executeChain([upper], call('quiet'), CTX);
      expect(live.result.finalPayload).toEqual({ name: 'echo', arguments: { note: 'QUIET' } });
    }
    await expect(connectRemoteInterceptors({ url: s.url, era: MODERN })).rejects.toMatchObject({ code: 'ERR_INTERCEPTOR_FAILED' });
  });

  it('a decision through it is signed with the answer as state, and replays to match with the server stopped', async () => {
    const s = await legacy();
    const { effects, d } = await decideAndReplay(s, 'legacy');
    expect(effects).toEqual(['allow', 'deny']);
    await s.stop();
    const { report, states } = await replayed(d);
    expect(states).toEqual([expect.objectContaining({ type: 'validation', valid: true }), expect.objectContaining({ type: 'validation', valid: false })]);
    expect(report).toMatchObject({ match: 2, mismatch: 0, unreplayable: 0, remoteAnswers: 2 });
  });
});

describe('the era of a remote declaration', () => {
  it('is one of auto, legacy, 2026-07-28: anything else refuses the config with ERR_CONFIG naming them', () => {
    const doc = (era: unknown) => ({ version: 1, interceptors: [{ name: 'guard', remote: { url: 'http://127.0.0.1:9/mcp', era } }] });
    for (const era of ['2025-11-25', 'AUTO', '', 2026, null]) {
      let err: any;
      try {
        resolveConfigDocument(doc(era) as never);
      } catch (e) {
        err = e;
      }
      expect(err?.code, String(era)).toBe('ERR_CONFIG');
      expect(err.issues).toEqual([{ path: '/interceptors/0/remote/era', message: 'must be one of: auto, legacy, 2026-07-28' }]);
    }
    for (const era of ['auto', 'legacy', MODERN]) expect(resolveConfigDocument(doc(era) as never).config.interceptors[0]).toMatchObject({ remote: { era } });
  });

  it('pinned in the config, activation connects with it: a 2025-only server under the 2026 pin refuses activation', async () => {
    const s = await legacy();
    await expect(decideAndReplay(s, MODERN)).rejects.toMatchObject({ code: 'ERR_CONFIG', issues: [{ path: '/interceptors/1', message: expect.stringContaining(s.url) }] });
    expect(s.calls).toEqual([]);
  });
});
