// Deterministic replay over a real data directory: decisions made through decide() under the
// fixture chain replay to `match`; a forged decision, a swapped document and another engine
// version never do; remote answers stand in for their server.
import Database from 'better-sqlite3';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activatePolicy, decide, type ActivePolicy, recordActivation } from '../../src/decide/index.js';
import { replayLog, RUNNING_ENGINES, type ReplaySource } from '../../src/audit/index.js';
import { storeReplaySource } from '../../src/audit/node-bundle.js';
import { utf8 } from '../../src/canonical/index.js';
import { createMemoryStateStores } from '../../src/interceptors/builtin/index.js';
import type { Interceptor, Json } from '../../src/interceptors/types.js';
import { decodeEntry, type Entry } from '../../src/log/index.js';
import { resolveConfigDocument } from '../../src/policy/index.js';
import { logPortOf } from '../../src/store/log-port.js';
import type { LogStore } from '../../src/store/index.js';
import { initDataDir, logPath, openDataDir, openSqliteStore } from '../../src/store/node.js';
import { generateLog, requestOf } from './_generate.js';

let dir: string;
let store: LogStore;
let source: ReplaySource;
let entries: Entry[];

beforeAll(async () => {
  const g = await generateLog(240, { concurrency: 80 });
  dir = g.dir;
  await g.close();
  store = openSqliteStore(logPath(dir, 'default'), { readonly: true });
  source = storeReplaySource(store);
  entries = [...store.entries(0, store.size())].map((e) => decodeEntry(e.bytes));
}, 120_000);

afterAll(() => store?.close());

const decisions = () => entries.filter((e) => e.type === 'decision') as (Entry & { decision: Record<string, any> })[];

describe('replay of decide() output', () => {
  it('has every kind of decision the bar names: allow, deny, mutated, audit-mode, rate-limited', () => {
    const d = decisions();
    expect(d.length).toBe(240);
    expect(d.some((e) => e.decision.effect === 'allow')).toBe(true);
    expect(d.some((e) => e.decision.effect === 'deny' && e.decision.abortedAt?.interceptor === 'authz')).toBe(true);
    expect(d.some((e) => e.decision.abortedAt?.interceptor === 'rate')).toBe(true);
    expect(d.some((e) => e.decision.abortedAt?.interceptor === 'exfiltration')).toBe(true);
    expect(d.some((e) => e.decision.results.some((r: any) => r.type === 'mutation' && r.modified && r.interceptor === 'pii'))).toBe(true);
    expect(d.some((e) => e.decision.results.some((r: any) => r.interceptor === 'discovery' && r.modified))).toBe(true);
    // audit mode: the sampling guard objects and the decision is still allow
    expect(d.some((e) => e.decision.effect === 'allow' && e.decision.results.some((r: any) => r.interceptor === 'sampling' && r.valid === false))).toBe(true);
    expect(d.some((e) => e.decision.results.some((r: any) => r.interceptor === 'schemas' && r.info?.schema !== 'unknown'))).toBe(true);
  });

  it('replays every decision to match, byte for byte, intent included', async () => {
    const r = await replayLog(source, { includeMatches: true });
    expect(r.mismatch).toBe(0);
    expect(r.unreplayable).toBe(0);
    expect(r.match).toBe(240);
    expect(r.other).toEqual({ policy: 1 });
    expect(r.results.every((x) => x.status === 'match')).toBe(true);
  });

  it('replays a sub-range, and only it', async () => {
    const r = await replayLog(source, { from: 100, to: 150 });
    expect([r.from, r.to, r.decisions, r.match]).toEqual([100, 150, 50, 50]);
  });

  it('reports another engine version as unreplayable, never match', async () => {
    const r = await replayLog(source, { from: 1, to: 40, engines: { ...RUNNING_ENGINES, cedar: '3.0.0' } });
    expect(r.match).toBe(0);
    expect(r.byReason).toEqual({ 'engine version absent': 39 });
    expect(r.results[0]).toMatchObject({ status: 'unreplayable', reason: 'engine version absent', detail: expect.stringContaining('cedar 4') });
  });

  it('reports a chain document swapped in the store (same digest, other bytes) as unreplayable', async () => {
    const copy = join(mkdtempSync(join(tmpdir(), 'vouch-swap-')), 'log.db');
    copyFileSync(logPath(dir, 'default'), copy);
    const db = new Database(copy);
    db.exec('DROP TRIGGER documents_no_update');
    const chain = (entries[1] as any).policy.chain;
    const doc = JSON.parse(utf8.decode(db.prepare('SELECT bytes FROM documents WHERE digest = ?').pluck().get(chain) as Buffer));
    doc.interceptors = doc.interceptors.filter((i: any) => i.name !== 'authz'); // "the policy was different"
    db.prepare('UPDATE documents SET bytes = ? WHERE digest = ?').run(Buffer.from(JSON.stringify(doc)), chain);
    db.close();
    const s = openSqliteStore(copy, { readonly: true });
    try {
      const r = await replayLog(storeReplaySource(s), { to: 30 });
      expect(r.match).toBe(0);
      expect(r.byReason).toEqual({ 'chain document invalid': 29 });
    } finally {
      s.close();
    }
  });
});

describe('replay finds decisions that do not follow from their inputs', () => {
  it('a forged decision, signed into a valid log, replays to mismatch with its paths', async () => {
    const d = mkdtempSync(join(tmpdir(), 'vouch-forge-'));
    initDataDir(d);
    const dd = await openDataDir(d, { thread: false });
    const t = dd.log('default');
    const policy = await activatePolicy(resolveConfigDocument(JSON.parse(utf8.decode(store.document((entries[1] as any).policy.chain)!.bytes))), { state: createMemoryStateStores(), remote: 'offline' });
    const port = logPortOf(t.origin, t.store, t.appender);
    await recordActivation(port, t.store, policy, '2026-03-01T08:00:00Z');
    const honest = await decide(requestOf(1), { policy, log: port }); // dangerous_tool: deny
    expect(honest.effect).toBe('deny');
    const forged = { ...decodeEntry(honest.appended.bytes) } as Record<string, any>;
    for (const k of ['v', 'log', 'seq', 'prev', 'heads']) delete forged[k];
    const { abortedAt: _a, ...decision } = forged.decision;
    forged.decision = { ...decision, effect: 'allow', status: 'success' };
    await t.appender.append(forged as never);
    await dd.close();
    await policy.close();
    const s = openSqliteStore(logPath(d, 'default'), { readonly: true });
    try {
      const r = await replayLog(storeReplaySource(s));
      expect(r.match).toBe(1);
      expect(r.mismatch).toBe(1);
      expect(r.results).toEqual([expect.objectContaining({ seq: 2, status: 'mismatch', paths: ['/decision/abortedAt', '/decision/effect', '/decision/status'] })]);
    } finally {
      s.close();
    }
  });
});

describe('remote interceptors', () => {
  const CONFIG = {
    version: 1,
    policies: { inline: { policies: 'permit(principal, action, resource);' } },
    interceptors: [
      { name: 'authz', use: 'cedar-policy' },
      { name: 'corp', remote: { url: 'http://127.0.0.1:9/mcp' } },
    ],
  };
  /** What remote.ts records: the server's answer is prepare()'s result, run() checks and returns it. */
  const fakeRemote = (name: string, answer: (payload: any) => Json): Interceptor => ({
    descriptor: { name, type: 'validation', hooks: [{ events: ['tools/call'], phase: 'request' }] },
    prepare: async (payload, ctx) => ({ interceptor: name, type: 'validation', phase: ctx.phase, ...(answer(payload) as object) }),
    run: (_p, ctx) => {
      const { interceptor: _i, type: _t, phase: _ph, ...outcome } = ctx.state as Record<string, Json>;
      return outcome as never;
    },
  });

  it('replays from the recorded answer without calling the server, and says so', async () => {
    const d = mkdtempSync(join(tmpdir(), 'vouch-remote-'));
    initDataDir(d);
    const dd = await openDataDir(d, { thread: false });
    const t = dd.log('default');
    const resolved = resolveConfigDocument(CONFIG as never);
    const offline = await activatePolicy(resolved, { state: createMemoryStateStores(), remote: 'offline' });
    const port = logPortOf(t.origin, t.store, t.appender);
    await recordActivation(port, t.store, offline, '2026-03-01T08:00:00Z');
    const live: ActivePolicy = { ...offline, interceptors: [...offline.interceptors, fakeRemote('corp/dlp', (p) => (p.name === 'leak' ? { valid: false, severity: 'error', messages: [{ message: 'dlp: blocked', severity: 'error' }] } : { valid: true }) as Json)] };
    const ctx = { time: '2026-03-01T09:00:00Z', principal: 'alice', tenant: 'default' };
    expect((await decide({ event: 'tools/call', phase: 'request', payload: { name: 'ok', arguments: {} }, context: ctx }, { policy: live, log: port })).effect).toBe('allow');
    expect((await decide({ event: 'tools/call', phase: 'request', payload: { name: 'leak', arguments: {} }, context: ctx }, { policy: live, log: port })).effect).toBe('deny');
    await dd.close();
    const s = openSqliteStore(logPath(d, 'default'), { readonly: true });
    try {
      const r = await replayLog(storeReplaySource(s), { includeMatches: true });
      expect(r.match).toBe(2);
      expect(r.remoteAnswers).toBe(2);
      expect(r.results.map((x) => x.remote)).toEqual([['corp/dlp'], ['corp/dlp']]);
    } finally {
      s.close();
    }
  });
});

// Issue 14: the selection (mandatory + the optional ones asked for), the coverage fact and
// onBehalfOf are inputs of the decision: replay reproduces them, and a rewritten one mismatches.
describe('mandatory chains, coverage and onBehalfOf under replay', () => {
  const CONFIG = {
    version: 1,
    policies: {
      inline: {
        policies: [
          'permit(principal, action == Action::"tools/call", resource == Tool::"echo");',
          'permit(principal, action == Action::"tools/call", resource == Tool::"deploy") when { context has onBehalfOf && context.onBehalfOf == "release-team" };',
        ].join('\n'),
      },
    },
    uncovered: [{ events: ['tools/call'], phase: 'response' }],
    interceptors: [
      { name: 'pii', use: 'pii-redactor', optional: true },
      { name: 'secrets', use: 'secret-redactor', events: ['tools/call'], phase: 'both' },
      { name: 'authz', use: 'cedar-policy' },
    ],
  };
  const ctx = { time: '2026-03-01T09:00:00Z', principal: 'alice', tenant: 'default' };
  const call = (name: string, args: Record<string, unknown> = {}) => ({ event: 'tools/call', phase: 'request' as const, payload: { name, arguments: args }, context: ctx });

  it('replays each to match; a rewritten selection, onBehalfOf or coverage fact mismatches', async () => {
    const d = mkdtempSync(join(tmpdir(), 'vouch-mandatory-'));
    initDataDir(d);
    const dd = await openDataDir(d, { thread: false });
    const t = dd.log('default');
    const policy = await activatePolicy(resolveConfigDocument(CONFIG as never), { state: createMemoryStateStores(), remote: 'offline' });
    const port = logPortOf(t.origin, t.store, t.appender);
    await recordActivation(port, t.store, policy, '2026-03-01T08:00:00Z');
    const outs = [
      await decide({ ...call('echo', { to: 'a@example.com' }), only: [] }, { policy, log: port }),
      await decide({ ...call('echo', { to: 'a@example.com' }), only: ['pii'] }, { policy, log: port }),
      await decide({ ...call('deploy'), context: { ...ctx, onBehalfOf: 'release-team' } }, { policy, log: port }),
      await decide(call('deploy'), { policy, log: port }),
      await decide({ ...call('echo'), phase: 'response', payload: { content: [] } }, { policy, log: port }),
      await decide({ event: 'ping', phase: 'request', payload: {}, context: ctx }, { policy, log: port }),
    ];
    expect(outs.map((o) => o.effect)).toEqual(['allow', 'allow', 'allow', 'deny', 'allow', 'deny']);
    const bodies = outs.map((o) => decodeEntry(o.appended.bytes) as Record<string, any>);
    // No list: the whole chain, optional interceptors included. A list: the mandatory ones plus those named.
    const all = ['pii', 'secrets', 'authz'];
    expect(bodies.map((b) => b.ran)).toEqual([['secrets', 'authz'], all, all, all, ['pii', 'secrets'], []]);
    expect(bodies[4].state['(vouch)']).toEqual({ uncovered: 'allow' });
    expect(bodies[5].decision.abortedAt.reason).toBe('no authorization interceptor covers ping request');
    // Forgeries, validly signed into the log: each changes one recorded input of a decision.
    const forge = async (b: Record<string, any>, change: (x: Record<string, any>) => void) => {
      const f = structuredClone(b);
      for (const k of ['v', 'log', 'seq', 'prev', 'heads']) delete f[k];
      change(f);
      return (await t.appender.append(f as never)).seq;
    };
    const moreOnly = await forge(bodies[0], (f) => (f.only = ['pii']));
    const noDelegate = await forge(bodies[2], (f) => delete f.onBehalfOf);
    const covered = await forge(bodies[4], (f) => (f.state = {}));
    await dd.close();
    await policy.close();
    const s = openSqliteStore(logPath(d, 'default'), { readonly: true });
    try {
      const r = await replayLog(storeReplaySource(s));
      expect(r.match).toBe(6);
      const paths = Object.fromEntries(r.results.map((x) => [x.seq, x.paths]));
      expect(paths[moreOnly]).toContain('/ran');
      expect(paths[noDelegate]).toContain('/decision/effect');
      expect(paths[covered]).toEqual(['/state/(vouch)/uncovered']);
    } finally {
      s.close();
    }
  });
});
