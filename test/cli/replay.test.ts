// vouch replay (and what-if), vouch payload erase and vouch policy through the CLI entry, on a
// real data directory: exit codes, erasure keeping `log verify` clean, and the writer lock.
import { copyFileSync, cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { lockPath } from '../../src/store/lock.js';
import { logPath, openDataDir, openSqliteStore } from '../../src/store/node.js';
import { appendForgedAllow, captureIo, FIXTURE_CONFIG, generateLog } from '../audit/_generate.js';

let data: string;

beforeAll(async () => {
  const g = await generateLog(120, { concurrency: 40 });
  await g.close();
  data = g.dir;
}, 120_000);

async function vouch(...argv: string[]) {
  const c = captureIo();
  const code = await main(argv, c.io);
  return { code, out: c.text(), err: c.errText() };
}

const copyOf = (dir: string) => {
  const to = mkdtempSync(join(tmpdir(), 'vouch-cli-copy-'));
  cpSync(dir, to, { recursive: true });
  return to;
};

describe('vouch replay', () => {
  it('replays every decision to match and exits 0', async () => {
    const r = await vouch('replay', '--data', data);
    expect(r.code).toBe(0);
    expect(r.out).toContain('120 decisions: 120 match, 0 mismatch, 0 unreplayable');
    const j = await vouch('replay', '--data', data, '--from', '10', '--to', '20', '--json', '--all');
    expect(JSON.parse(j.out)).toMatchObject({ ok: true, from: 10, to: 20, match: 10, results: expect.arrayContaining([expect.objectContaining({ seq: 10, status: 'match' })]) });
  });

  it('replays a log file given with --db and a bundle given with --bundle', async () => {
    expect((await vouch('replay', '--db', logPath(data, 'default'))).out).toContain('120 match');
    const out = join(mkdtempSync(join(tmpdir(), 'vouch-cli-b-')), 'b');
    expect((await vouch('export', '--data', data, '--payloads', '-o', out)).code).toBe(0);
    const b = await vouch('replay', '--bundle', out, '--from', '50');
    expect(b.code).toBe(0);
    expect(b.out).toContain('replay [50, 121): 71 decisions: 71 match');
  });

  it('exits 1 on a forged decision and names the differing paths', async () => {
    const d = copyOf(data);
    const seq = await appendForgedAllow(d);
    const r = await vouch('replay', '--data', d, '--from', String(seq));
    expect(r.code).toBe(1);
    expect(r.out).toMatch(new RegExp(`seq\\s+${seq}\\s+mismatch\\s+\\S+\\s+differs at /decision/abortedAt, /decision/effect, /decision/status`));
    expect((await vouch('log', 'verify', '--data', d)).code).toBe(0); // the log itself is sound: only replay can tell
  });

  it('what-if: lists the flips a candidate config would cause', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-cli-cand-'));
    copyFileSync(join(FIXTURE_CONFIG, '..', 'replay-policy.cedar'), join(dir, 'replay-policy.cedar'));
    writeFileSync(join(dir, 'candidate.yaml'), readFileSync(FIXTURE_CONFIG, 'utf8').replace('limit: 5,', 'limit: 1,'));
    const r = await vouch('replay', '--data', data, '--policy', join(dir, 'candidate.yaml'));
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/allow -> deny {2}tools\/call Tool::"\w[\w-]*"/);
    expect(r.out).toMatch(/what-if \[0, 121\) against chain sha256:.*: 120 of 120 decisions evaluated: \d+ allow->deny, 0 deny->allow/);
    const j = JSON.parse((await vouch('replay', '--data', data, '--policy', join(dir, 'candidate.yaml'), '--json')).out);
    expect(j.allowToDeny).toBeGreaterThan(0);
    expect(j.flips.length).toBe(j.allowToDeny);
  });
});

describe('vouch payload erase', () => {
  it('erases a payload, keeps log verify clean, and replay then says erased', async () => {
    const d = copyOf(data);
    const store = openSqliteStore(logPath(d, 'default'), { readonly: true });
    const entries = [...store.entries(0, store.size())].map((e) => JSON.parse(new TextDecoder().decode(e.bytes)));
    store.close();
    const victim = entries.find((e) => e.type === 'decision' && e.decision.effect === 'deny').input.digest;
    const users = entries.filter((e) => e.type === 'decision' && e.input.digest === victim).length;
    const r = await vouch('payload', 'erase', victim, '--data', d, '--reason', 'GDPR art. 17 request #42');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`erased ${victim} \\(erasure entry #121\\)`));
    const log = await vouch('log', 'verify', '--data', d);
    expect(log.code).toBe(0);
    expect(log.out).toContain('log verify: clean');
    const rep = await vouch('replay', '--data', d, '--json');
    expect(rep.code).toBe(0);
    const report = JSON.parse(rep.out);
    expect(report).toMatchObject({ match: 120 - users, unreplayable: users, byReason: { 'payload erased': users }, other: { policy: 1, erasure: 1 } });
    expect(report.results[0].detail).toContain('erased by entry 121');
    // Bundles carry the erasure too: verify stays clean and says why those were not replayed.
    const out = join(d, 'bundle');
    expect((await vouch('export', '--data', d, '--payloads', '--to', '121', '-o', out)).code).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).counts.erased).toBe(users);
    const v = await vouch('verify', out, '--trust-bundle-keys', '--json');
    expect(JSON.parse(v.out)).toMatchObject({ ok: true, replay: { byReason: { 'payload erased': users } }, notes: expect.arrayContaining([`${users} decision(s) not replayed: payload erased`]) });
    // A second erase of the same digest: nothing left to erase.
    expect((await vouch('payload', 'erase', victim, '--data', d)).code).toBe(3);
    expect((await vouch('payload', 'erase', 'sha256:zz', '--data', d)).code).toBe(3);
  });
});

describe('one writer per log', () => {
  it('CLI writers refuse a log a live process holds (exit 4), and take over a stale lock', async () => {
    const d = copyOf(data);
    const live = await openDataDir(d, { thread: false });
    live.log('default'); // what `vouch serve` does on its first request for the tenant
    try {
      const r = await vouch('payload', 'erase', `sha256:${'0'.repeat(64)}`, '--data', d);
      expect(r.code).toBe(4);
      expect(r.err).toContain('in use by this process');
      expect((await vouch('policy', 'activate', FIXTURE_CONFIG, '--data', d)).code).toBe(4);
      expect((await vouch('replay', '--data', d)).code).toBe(0); // readers are welcome
    } finally {
      await live.close();
    }
    writeFileSync(lockPath(d, 'default'), '2147483646\n'); // a writer that died without unlocking
    const again = await vouch('policy', 'status', '--data', d);
    expect(again.code).toBe(0);
    expect((await vouch('policy', 'activate', FIXTURE_CONFIG, '--data', d)).code).toBe(0);
  });
});

describe('vouch policy', () => {
  it('activates and pins a config by digest, idempotently, and unpins', async () => {
    const d = copyOf(data);
    const dir = mkdtempSync(join(tmpdir(), 'vouch-cli-pol-'));
    copyFileSync(join(FIXTURE_CONFIG, '..', 'replay-policy.cedar'), join(dir, 'replay-policy.cedar'));
    writeFileSync(join(dir, 'v2.yaml'), readFileSync(FIXTURE_CONFIG, 'utf8').replace('limit: 5,', 'limit: 50,'));
    const a = await vouch('policy', 'activate', join(dir, 'v2.yaml'), '--data', d, '--json');
    expect(a.code).toBe(0);
    const act = JSON.parse(a.out);
    expect(act).toMatchObject({ seq: 121, pinned: true, chain: expect.stringMatching(/^sha256:/) });
    const again = await vouch('policy', 'activate', join(dir, 'v2.yaml'), '--data', d);
    expect(again.out).toContain('already in force');
    const s = JSON.parse((await vouch('policy', 'status', '--data', d, '--json')).out);
    expect(s).toEqual({ tenant: 'default', active: { chain: act.chain, policySet: act.policySet }, pinned: { chain: act.chain, policySet: act.policySet } });
    // The old decisions still replay under their own (older) chain document.
    expect((await vouch('replay', '--data', d)).out).toContain('120 match');
    expect((await vouch('policy', 'unpin', '--data', d)).code).toBe(0);
    expect(JSON.parse((await vouch('policy', 'status', '--data', d, '--json')).out).pinned).toBeNull();
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'version: 1\ninterceptors: [{ name: x, use: no-such-builtin }]\n');
    expect((await vouch('policy', 'activate', bad, '--data', d)).code).toBe(3);
    expect((await vouch('policy')).code).toBe(2);
  });
});
