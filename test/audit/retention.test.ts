// Payload retention (issue 40): payloads no entry has named for N days are erased in batches, each
// listed first in a signed erasure entry; entries, proofs and replay stay sound; a payload a newer
// entry names is kept; a log written before migration 0007 keeps its payloads until the cut-off
// passes the log's size at the migration; and someone who edits the retention index (but holds no
// key) to make it erase early is caught by `vouch log verify`. Real SQLite, real signed logs.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { firstSeqAfter, parseRetentionPolicy, retentionDaysOf, retentionTargetOf, runRetention } from '../../src/audit/index.js';
import { main } from '../../src/cli/main.js';
import { payloadDigestsOf } from '../../src/log/activation-check.js';
import { decodeEntry, type Entry } from '../../src/log/index.js';
import { logPortOf } from '../../src/store/log-port.js';
import { logPath, openDataDir, openSqliteStore } from '../../src/store/node.js';
import { decide } from '../../src/decide/index.js';
import { BASE_TIME, captureIo, generateLog, requestOf } from './_generate.js';

const N = 96; // decisions at BASE_TIME + i * 0.5 s, one at a time (entry times rise with seq)
let data: string;

beforeAll(async () => {
  const g = await generateLog(N, { concurrency: 1 });
  await g.close();
  data = g.dir;
}, 120_000);

async function vouch(...argv: string[]) {
  const c = captureIo();
  const code = await main(argv, c.io);
  return { code, out: c.text(), err: c.errText() };
}

const copyOf = (dir: string) => {
  const to = mkdtempSync(join(tmpdir(), 'vouch-retention-'));
  cpSync(dir, to, { recursive: true });
  return to;
};

/** The first seq whose entry's time is after `ms` (what the binary search must find). */
const firstAfter = (entries: Entry[], ms: number) => entries.findIndex((e) => Date.parse(String(e.time)) > ms);

function readAll(dir: string): { entries: Entry[]; stored: (d: string) => boolean } {
  const store = openSqliteStore(logPath(dir, 'default'), { readonly: true });
  const entries = [...store.entries(0, store.size())].map((e) => decodeEntry(e.bytes));
  const present = new Set<string>(entries.flatMap((e) => payloadDigestsOf(e)).filter((d) => store.payload(d) !== undefined));
  store.close();
  return { entries, stored: (d) => present.has(d) };
}

/** A time `days` after the i-th decision's time. */
const after = (i: number, days: number) => new Date(BASE_TIME + i * 500 + days * 86_400_000).toISOString();

describe('payload retention', () => {
  it('erases what no entry has named since the cut-off, in signed batches, and keeps everything newer', async () => {
    const d = copyOf(data);
    const before = readAll(d).entries;
    const cut = firstAfter(before, BASE_TIME + 47 * 500);
    expect(cut).toBeGreaterThan(40);
    const dataDir = await openDataDir(d, { thread: false });
    let run;
    try {
      const t = dataDir.log('default');
      const target = retentionTargetOf(logPortOf(t.origin, t.store, t.appender));
      // Cut-off at decision 47's time, 30 days ago: decisions 0..47 are older.
      expect(await firstSeqAfter(target, BASE_TIME + 47 * 500)).toBe(cut);
      run = await runRetention(target, { days: 30, now: after(47, 30), batch: 7 });
    } finally {
      await dataDir.close();
    }
    expect(run.beforeSeq).toBe(cut);
    expect(run.cutoff).toBe(new Date(BASE_TIME + 47 * 500).toISOString());
    const { entries, stored } = readAll(d);
    const erasures = entries.slice(before.length);
    expect(erasures.length).toBe(run.seqs.length);
    expect(erasures.length).toBeGreaterThan(1); // batches of 7
    const listed = erasures.flatMap((e) => {
      expect(e).toMatchObject({ type: 'erasure', by: 'operator:retention', before: cut, time: after(47, 30) });
      expect(e.digest).toBeUndefined();
      return e.digests as string[];
    });
    expect(new Set(listed).size).toBe(listed.length);
    expect(run.erased).toBe(listed.length);
    // Exactly the payloads whose newest naming entry is older than seq 49 are gone.
    const newest = new Map<string, number>();
    for (const e of before) for (const p of payloadDigestsOf(e)) newest.set(p, e.seq);
    const expired = [...newest].filter(([, s]) => s < cut).map(([p]) => p);
    const kept = [...newest].filter(([, s]) => s >= cut).map(([p]) => p);
    expect(expired.length).toBeGreaterThan(0);
    expect(kept.some((p) => before.some((e) => e.seq < cut && (payloadDigestsOf(e) as string[]).includes(p)))).toBe(true); // shared with an old decision, named again since
    expect(listed.sort()).toEqual(expired.sort());
    for (const p of expired) expect(stored(p)).toBe(false);
    for (const p of kept) expect(stored(p)).toBe(true);
    // The log stays clean; replay says erased (never missing) for the old decisions.
    const log = await vouch('log', 'verify', '--data', d);
    expect(log.out).toContain('log verify: clean');
    expect(log.code).toBe(0);
    const rep = JSON.parse((await vouch('replay', '--data', d, '--json')).out);
    expect(rep.byReason['payload erased']).toBeGreaterThan(0);
    expect(rep.byReason['payload missing']).toBeUndefined();
    expect(rep.mismatch ?? 0).toBe(0);
    // A second pass finds nothing more.
    const dataDir2 = await openDataDir(d, { thread: false });
    try {
      const t = dataDir2.log('default');
      expect(await runRetention(retentionTargetOf(logPortOf(t.origin, t.store, t.appender)), { days: 30, now: after(47, 30) })).toMatchObject({ erased: 0, seqs: [] });
    } finally {
      await dataDir2.close();
    }
  });

  it('vouch payload expire: everything older than DAYS, and a clear error without a number', async () => {
    const d = copyOf(data);
    const r = await vouch('payload', 'expire', '--older-than', '0', '--data', d);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^erased \d+ payloads no entry has named since .* \(erasure entries #\d+/);
    const { entries, stored } = readAll(d);
    for (const e of entries) for (const p of payloadDigestsOf(e)) expect(stored(p)).toBe(false);
    expect((await vouch('log', 'verify', '--data', d)).code).toBe(0);
    const bad = await vouch('payload', 'expire', '--data', d);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--older-than DAYS');
    expect((await vouch('payload', 'expire', '--older-than', 'soon', '--data', d)).code).toBe(2);
    // A number of days no date can be cut at (a cut-off before year -271821) is a usage error, not ERR_INTERNAL.
    for (const days of ['1e12', '36501']) {
      const huge = await vouch('payload', 'expire', '--older-than', days, '--data', d);
      expect(huge.code).toBe(2);
      expect(huge.err).toContain('0..36500');
    }
    const dataDir = await openDataDir(d, { thread: false });
    try {
      const t = dataDir.log('default');
      for (const days of [1e12, -1, Number.NaN]) {
        await expect(runRetention(retentionTargetOf(logPortOf(t.origin, t.store, t.appender)), { days, now: after(47, 30) })).rejects.toMatchObject({ code: 'ERR_CONFIG' });
      }
    } finally {
      await dataDir.close();
    }
    expect((await vouch('payload', 'expier', '--data', d)).err).toContain('did you mean expire');
  });

  it('a payload named again after it was listed is not deleted (the erase re-checks the index)', async () => {
    const d = copyOf(data);
    const dataDir = await openDataDir(d, { thread: false });
    try {
      const t = dataDir.log('default');
      const [victim] = t.store.expiredPayloads!(49, 1);
      const bytes = t.store.payload(victim)!;
      t.store.putPayload(victim, bytes); // stored again now: as a new decision naming it would
      expect(t.store.eraseExpiredPayload!(victim, 49)).toBe(false);
      expect(t.store.payload(victim)).toBeDefined();
      expect(t.store.expiredPayloads!(49, 10_000)).not.toContain(victim);
      const [other] = t.store.expiredPayloads!(49, 1);
      expect(t.store.eraseExpiredPayload!(other, 49)).toBe(true);
    } finally {
      await dataDir.close();
    }
  });

  it('attacker edits the retention index (no key) so a payload a newer entry names is erased: log verify names it', async () => {
    const d = copyOf(data);
    const { entries } = readAll(d);
    // A payload that only the newest decisions name: the index says seq >= 49.
    const newest = new Map<string, number>();
    const oldest = new Map<string, number>();
    for (const e of entries) for (const p of payloadDigestsOf(e)) (newest.set(p, e.seq), oldest.has(p) || oldest.set(p, e.seq));
    const victim = [...newest].find(([p, s]) => s > 80 && oldest.get(p)! > 80)![0];
    const db = new Database(logPath(d, 'default'));
    expect(db.prepare('UPDATE payloads SET last_seq = 3 WHERE digest = ?').run(victim).changes).toBe(1);
    db.close();
    const dataDir = await openDataDir(d, { thread: false });
    try {
      // The operator's ordinary pass, cut-off at decision 47: the victim (named at seq > 80) goes.
      const t = dataDir.log('default');
      const r = await runRetention(retentionTargetOf(logPortOf(t.origin, t.store, t.appender)), { days: 30, now: after(47, 30) });
      expect(r.erased).toBeGreaterThan(0);
      expect(t.store.payload(victim as never)).toBeUndefined();
    } finally {
      await dataDir.close();
    }
    const log = await vouch('log', 'verify', '--data', d, '--json');
    expect(log.code).not.toBe(0);
    expect(log.out).toContain(`payload ${victim} is gone under retention erasure`);
  });

  it('attacker deletes a payload a decision named again after retention erased its earlier copy: log verify names it', async () => {
    const g = await generateLog(24, { concurrency: 1 });
    let victim: string;
    try {
      const t = g.dataDir.log('default');
      const port = logPortOf(t.origin, t.store, t.appender);
      // Retention takes every payload (a day after the last decision)...
      const r = await runRetention(retentionTargetOf(port), { days: 1, now: new Date(BASE_TIME + 2 * 86_400_000).toISOString() });
      expect(r.erased).toBeGreaterThan(0);
      // ...then a caller sends the very same call again: its payload is stored again, as it must be.
      const again = await decide(requestOf(1), { policy: g.policy, log: port });
      const entry = decodeEntry(again.appended.bytes) as any;
      victim = entry.input.digest;
      expect(r.seqs.some((seq) => (decodeEntry([...t.store.entries(seq, seq + 1)][0].bytes) as any).digests.includes(victim))).toBe(true);
      expect(t.store.payload(victim as never)).toBeDefined();
    } finally {
      await g.close();
    }
    expect((await vouch('log', 'verify', '--data', g.dir)).code).toBe(0);
    // The file-level attacker (no key) deletes it: the older retention erasure must not excuse that.
    const db = new Database(logPath(g.dir, 'default'));
    expect(db.prepare('DELETE FROM payloads WHERE digest = ?').run(victim).changes).toBe(1);
    db.close();
    const log = await vouch('log', 'verify', '--data', g.dir, '--json');
    expect(log.code).not.toBe(0);
    expect(log.out).toContain(`payload ${victim} named by entry`);
  }, 120_000);

  it('a log written before migration 0007 keeps its payloads until the cut-off passes the size it had then', async () => {
    const d = copyOf(data);
    // The schema today's released version writes: no last_seq, no index, no floor.
    const db = new Database(logPath(d, 'default'));
    const trigger = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'meta_no_delete'").pluck().get() as string;
    db.exec(`DROP INDEX payloads_last_seq; ALTER TABLE payloads DROP COLUMN last_seq; DROP TRIGGER meta_no_delete; DELETE FROM meta WHERE key = 'payload_seq_floor'; ${trigger}; DELETE FROM schema_migrations WHERE version = 7;`);
    db.close();
    const dataDir = await openDataDir(d, { thread: false }); // migrates
    try {
      const t = dataDir.log('default');
      const size = t.store.size();
      expect(t.store.meta('payload_seq_floor')).toBe(String(size));
      const target = retentionTargetOf(logPortOf(t.origin, t.store, t.appender));
      // Cut-off inside the old log: its payloads' newest names are unknown, so all are kept.
      expect(await runRetention(target, { days: 30, now: after(47, 30) })).toMatchObject({ beforeSeq: 49, erased: 0, seqs: [] });
      // Cut-off after every old entry: they go.
      const r = await runRetention(target, { days: 1, now: after(N + 10, 1) });
      expect(r.beforeSeq).toBe(size);
      expect(r.erased).toBeGreaterThan(0);
      expect(t.store.expiredPayloads!(size, 10)).toEqual([]);
    } finally {
      await dataDir.close();
    }
    expect((await vouch('log', 'verify', '--data', d)).code).toBe(0);
  });

  it('the retention file: strict, per-tenant overrides, null keeps a tenant', () => {
    const p = parseRetentionPolicy({ payloadDays: 180, tenants: { acme: 365, hold: null } });
    expect([retentionDaysOf(p, 'default'), retentionDaysOf(p, 'acme'), retentionDaysOf(p, 'hold'), p.everyMinutes]).toEqual([180, 365, undefined, 60]);
    expect(retentionDaysOf(parseRetentionPolicy({ tenants: { acme: 7 } }), 'other')).toBeUndefined();
    expect(retentionDaysOf(parseRetentionPolicy({ payloadDays: 1 }), '__proto__')).toBe(1);
    for (const bad of [[], { payloadDays: -1 }, { payloadDays: '180' }, { payloadDays: 180, keep: 1 }, { tenants: { a: 'x' } }, { everyMinutes: 0 }]) {
      expect(() => parseRetentionPolicy(bad)).toThrow(expect.objectContaining({ code: 'ERR_CONFIG' }));
    }
  });
});

describe('vouch serve --retention', () => {
  it('/metrics has the retention counters from start, at 0, on a fresh data directory (no pass has found a log yet)', async () => {
    // Found walking docs/keeping-logs.md: an alert on vouch_retention_failures_total found no series
    // until the first pass that met a log, an hour after a first start.
    const d = mkdtempSync(join(tmpdir(), 'vouch-retention-fresh-'));
    writeFileSync(join(d, 'retention.json'), JSON.stringify({ payloadDays: 400 }));
    const { startServer } = await import('../../src/http/node-server.js');
    const s = await startServer({ data: d, port: 0, logLine: () => undefined });
    try {
      const metrics = await (await fetch(`${s.url}/metrics`)).text();
      expect(metrics).toMatch(/^vouch_retention_runs_total \d+$/m);
      expect(metrics).toMatch(/^vouch_retention_payloads_erased_total 0$/m);
      expect(metrics).toMatch(/^vouch_retention_failures_total 0$/m);
    } finally {
      await s.close();
    }
    // Without a retention policy there is nothing to count: no series.
    const e = mkdtempSync(join(tmpdir(), 'vouch-retention-none-'));
    const t = await startServer({ data: e, port: 0, logLine: () => undefined });
    try {
      expect(await (await fetch(`${t.url}/metrics`)).text()).not.toMatch(/vouch_retention_/);
    } finally {
      await t.close();
    }
  });

  it('erases at start, counts it in /metrics, and a bad file is a start-up error', async () => {
    const d = copyOf(data);
    const file = join(d, 'retention.json');
    writeFileSync(file, JSON.stringify({ payloadDays: 0 }));
    const { startServer } = await import('../../src/http/node-server.js');
    const lines: Record<string, unknown>[] = [];
    const s = await startServer({ data: d, port: 0, logLine: (l) => void lines.push(l) });
    try {
      for (let i = 0; i < 200 && !lines.some((l) => l.msg === 'payload retention'); i++) await new Promise((r) => setTimeout(r, 50));
      const metrics = await (await fetch(`${s.url}/metrics`)).text();
      expect(metrics).toMatch(/^vouch_retention_payloads_erased_total [1-9]\d*$/m);
      expect(metrics).toMatch(/^vouch_retention_failures_total 0$/m);
    } finally {
      await s.close();
    }
    expect(lines.find((l) => l.msg === 'payload retention')).toMatchObject({ tenant: 'default', more: false });
    const { entries, stored } = readAll(d);
    for (const e of entries) for (const p of payloadDigestsOf(e)) expect(stored(p)).toBe(false);
    expect((await vouch('log', 'verify', '--data', d)).code).toBe(0);
    writeFileSync(file, '{"payloadDays": "forever"}');
    await expect(startServer({ data: d, port: 0 })).rejects.toThrow(/retention config: \/payloadDays/);
    expect(readFileSync(file, 'utf8')).toContain('forever'); // nothing rewritten
  });
});
