// Issue 15 item 3, nothing changes the rules without an entry. The attacker has write access to the
// database file (better-sqlite3 directly, dropping triggers where they can) but no signing key.
// Before the fix, a permit-all chain in `documents` plus a meta pointer made dangerous_tool allowed
// on the next start with no `policy` entry, and `log verify` and replay saw nothing.
import Database from 'better-sqlite3';
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { activatePolicy, decide } from '../../src/decide/index.js';
import { canonicalBytes, canonicalText, fromBase64, utf8 } from '../../src/canonical/index.js';
import { startServer } from '../../src/http/node-server.js';
import { createMemoryStateStores } from '../../src/interceptors/builtin/index.js';
import { loadConfigFile } from '../../src/policy/load-config.js';
import { logPortOf } from '../../src/store/log-port.js';
import { logPath, openDataDir, openSqliteStore } from '../../src/store/node.js';
import { signNextWithKeys } from './_forge.js';
import { runVouch } from '../helpers/cli.js';
import { post } from '../http/_server.js';

const TENANT = 'default';
let original: string;
let permitAll: Awaited<ReturnType<typeof loadConfigFile>>;

const authorize = (url: string, name: string) => post(`${url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name, arguments: {} } });
const entryOf = (r: { json: any }) => JSON.parse(utf8.decode(fromBase64(r.json.receipt.entry)));

const vouch = runVouch;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-rules-'));
  writeFileSync(join(dir, 'permit.cedar'), 'permit(principal, action, resource);\n');
  writeFileSync(join(dir, 'permit.yaml'), 'version: 1\npolicies: { files: [permit.cedar] }\ninterceptors:\n  - { name: authz, use: cedar-policy }\n');
  permitAll = await loadConfigFile(join(dir, 'permit.yaml'));
  original = join(dir, 'data');
  const s = await startServer({ data: original, port: 0 });
  try {
    expect((await authorize(s.url, 'echo')).status).toBe(200);
    expect((await authorize(s.url, 'dangerous_tool')).json.effect).toBe('deny');
  } finally {
    await s.close();
  }
}, 60_000);

function copy(): { data: string; db: string } {
  const data = join(mkdtempSync(join(tmpdir(), 'vouch-rules-copy-')), 'data');
  cpSync(original, data, { recursive: true });
  return { data, db: logPath(data, TENANT) };
}

/** The attacker's edit: the permit-all chain and policy documents, stored under their true digests. */
function plantPermitAll(db: Database.Database): void {
  const put = db.prepare('INSERT OR IGNORE INTO documents (digest, kind, bytes) VALUES (?, ?, ?)');
  put.run(permitAll.chainDigest, 'chain', canonicalBytes(permitAll.resolved));
  put.run(permitAll.policyDigest, 'policy', canonicalBytes(permitAll.policySource));
}

function pointMetaAt(db: Database.Database, value: string): void {
  db.exec('DROP TRIGGER IF EXISTS meta_no_update; DROP TRIGGER IF EXISTS meta_no_delete');
  const set = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  set.run('policy.pinned', value);
  set.run('policy.active', value);
}

describe('nothing changes the rules without an entry (issue 15 item 3)', () => {
  it('a permit-all chain in documents with meta pointing at it changes nothing at the next start', async () => {
    const { data, db: path } = copy();
    const db = new Database(path);
    plantPermitAll(db);
    pointMetaAt(db, `${permitAll.chainDigest} ${permitAll.policyDigest}`);
    db.close();
    const s = await startServer({ data, port: 0 });
    try {
      const r = await authorize(s.url, 'dangerous_tool');
      expect(r.json.effect).not.toBe('allow');
      if (r.status === 200) expect(entryOf(r).policy.chain).not.toBe(permitAll.chainDigest);
    } finally {
      await s.close();
    }
    const status = await vouch('policy', 'status', '--data', data, '--json');
    expect(status.json.active.chain).not.toBe(permitAll.chainDigest);
    expect(status.json.pinned).toBeNull();
  }, 60_000);

  it('meta refuses updates while its triggers stand', () => {
    const { db: path } = copy();
    const db = new Database(path);
    try {
      expect(() => db.prepare("UPDATE meta SET value = 'x' WHERE key = 'origin'").run()).toThrow(/append-only: meta/);
      expect(() => db.prepare("DELETE FROM meta WHERE key = 'origin'").run()).toThrow(/append-only: meta/);
    } finally {
      db.close();
    }
  });

  it('a log from before pins were entries: a meta pin that disagrees with the newest policy entry is refused', async () => {
    const data = join(mkdtempSync(join(tmpdir(), 'vouch-rules-legacy-')), 'data');
    const s0 = await startServer({ data, port: 0 });
    await s0.close();
    // The old code's policy entry (no `pinned` field), as a legitimately activated policy.
    const example = await loadConfigFile(join(original, '..', 'permit.yaml'));
    const dd = await openDataDir(data, { thread: false });
    try {
      const t = dd.log(TENANT);
      await logPortOf(t.origin, t.store, t.appender).append({ type: 'policy', time: new Date().toISOString(), chain: example.chainDigest, policySet: example.policyDigest, engines: {}, action: 'activate' });
    } finally {
      await dd.close();
    }
    const db = new Database(logPath(data, TENANT));
    plantPermitAll(db);
    db.exec('DROP TRIGGER IF EXISTS meta_no_update');
    // The attacker points the old-style meta pin somewhere the newest policy entry does not name.
    pointMetaAt(db, `sha256:${'ab'.repeat(32)} ${permitAll.policyDigest}`);
    db.close();
    const s = await startServer({ data, port: 0 });
    try {
      const r = await authorize(s.url, 'dangerous_tool');
      expect(r.status).toBe(503);
      expect(r.json.error.code).toBe('ERR_STORE_INCONSISTENT');
      expect(r.json.error.message).toContain('disagrees with the newest policy entry');
    } finally {
      await s.close();
    }
  }, 60_000);

  it('a pinned chain document rewritten under its own digest is refused at start', async () => {
    const { data, db: path } = copy();
    const dir = join(original, '..');
    writeFileSync(join(dir, 'strict.yaml'), 'version: 1\npolicies: { files: [strict.cedar] }\ninterceptors:\n  - { name: authz, use: cedar-policy }\n');
    writeFileSync(join(dir, 'strict.cedar'), 'permit(principal, action, resource) when { false };\n');
    const act = await vouch('policy', 'activate', join(dir, 'strict.yaml'), '--data', data, '--json');
    expect(act.code).toBe(0);
    const db = new Database(path);
    db.exec('DROP TRIGGER IF EXISTS documents_no_update');
    db.prepare('UPDATE documents SET bytes = ? WHERE digest = ?').run(canonicalBytes(permitAll.resolved), act.json.chain);
    db.close();
    const s = await startServer({ data, port: 0 });
    try {
      const r = await authorize(s.url, 'dangerous_tool');
      expect(r.status).toBe(503);
      expect(r.json.error.message).toMatch(/hashes to .*rewritten/);
    } finally {
      await s.close();
    }
  }, 60_000);

  it('the newest policy entry rewritten in place (leaf and tree left alone) is refused at start', async () => {
    const { data, db: path } = copy();
    const db = new Database(path);
    plantPermitAll(db);
    db.exec('DROP TRIGGER IF EXISTS entries_no_update');
    const row = db.prepare("SELECT seq, bytes FROM entries WHERE CAST(bytes AS TEXT) LIKE '%\"type\":\"policy\"%' ORDER BY seq DESC LIMIT 1").get() as { seq: number; bytes: Buffer };
    const e = JSON.parse(utf8.decode(row.bytes));
    Object.assign(e, { chain: permitAll.chainDigest, policySet: permitAll.policyDigest, pinned: true });
    db.prepare('UPDATE entries SET bytes = ? WHERE seq = ?').run(Buffer.from(canonicalText(e)), row.seq);
    db.close();
    const s = await startServer({ data, port: 0 });
    try {
      const r = await authorize(s.url, 'dangerous_tool');
      expect(r.json.effect).not.toBe('allow');
      expect(r.status).toBe(503);
    } finally {
      await s.close();
    }
  }, 60_000);

  it('decisions under rules no policy entry activated are refused by the appender, and findings for log verify and replay', async () => {
    const { data } = copy();
    // What the old service did after the meta edit: decide under the planted chain, no entry.
    const policy = await activatePolicy(permitAll, { state: createMemoryStateStores(), remote: 'offline' });
    const request = { event: 'tools/call', phase: 'request', payload: { name: 'dangerous_tool', arguments: {} }, context: { time: new Date().toISOString(), principal: 'local', tenant: TENANT } } as const;
    const dd = await openDataDir(data, { thread: false });
    try {
      const t = dd.log(TENANT);
      const port = logPortOf(t.origin, t.store, t.appender);
      await port.putDocument('chain', permitAll.chainDigest, canonicalBytes(permitAll.resolved));
      await port.putDocument('policy', permitAll.policyDigest, canonicalBytes(permitAll.policySource));
      // Today's appender writes no decision under rules the newest policy entry did not put in force (issue 35).
      await expect(decide(request, { policy, log: port })).rejects.toMatchObject({ code: 'ERR_POLICY_CHANGED' });
    } finally {
      await dd.close();
    }
    // A writer holding the keys without that check (an older version) signs one into the log.
    const store = openSqliteStore(logPath(data, TENANT));
    let seq: number;
    try {
      const out = await decide(request, { policy, log: { append: (body, attachments) => signNextWithKeys(data, store, body, attachments) } });
      expect(out.effect).toBe('allow');
      seq = (entryOf({ json: { receipt: out.receipt } }) as { seq: number }).seq;
    } finally {
      store.close();
      await policy.close();
    }
    const verify = await vouch('log', 'verify', '--data', data, '--json');
    expect(verify.code).toBe(1);
    expect(verify.json.logs[0].findings).toEqual([expect.objectContaining({ kind: 'activation', seq })]);
    const replay = await vouch('replay', '--data', data, '--json');
    expect(replay.code).toBe(1);
    expect(replay.json.findings).toEqual([expect.objectContaining({ kind: 'activation', seq })]);
    // The same from the middle of the log: policy entries before --from still count.
    const tail = await vouch('replay', '--data', data, '--json', '--from', String(seq));
    expect(tail.json.findings).toEqual([expect.objectContaining({ kind: 'activation', seq })]);
    const clean = await vouch('replay', '--data', data, '--json', '--to', String(seq));
    expect(clean.json.findings).toEqual([]);
    // And an audit bundle of the log says the same.
    const out = join(data, '..', 'bundle');
    expect((await vouch('export', '--data', data, '-o', out)).code).toBe(0);
    const bundle = await vouch('verify', out, '--trust-bundle-keys', '--json');
    expect(bundle.code).toBe(1);
    expect(bundle.json.findings).toEqual([expect.objectContaining({ check: 'activation', seq })]);
  }, 60_000);

  it('a payload rewritten under its own digest is a finding', async () => {
    const { data, db: path } = copy();
    const db = new Database(path);
    const rows = db.prepare('SELECT seq, bytes FROM entries ORDER BY seq').all() as { seq: number; bytes: Buffer }[];
    const decision = rows.map((r) => JSON.parse(utf8.decode(r.bytes))).find((e) => e.type === 'decision' && e.input?.digest);
    db.prepare('UPDATE payloads SET bytes = ? WHERE digest = ?').run(Buffer.from('{"name":"echo","arguments":{}}'), decision.input.digest);
    db.close();
    const verify = await vouch('log', 'verify', '--data', data, '--json');
    expect(verify.code).toBe(1);
    expect(verify.json.logs[0].findings).toEqual([expect.objectContaining({ kind: 'payload', seq: decision.seq, message: expect.stringContaining('rewritten') })]);
  }, 60_000);

  it('a payload deleted without an erasure entry is a finding, not benign', async () => {
    const { data, db: path } = copy();
    const db = new Database(path);
    const rows = db.prepare('SELECT seq, bytes FROM entries ORDER BY seq').all() as { seq: number; bytes: Buffer }[];
    const decision = rows.map((r) => JSON.parse(utf8.decode(r.bytes))).find((e) => e.type === 'decision' && e.input?.digest);
    db.prepare('DELETE FROM payloads WHERE digest = ?').run(decision.input.digest);
    db.close();
    const verify = await vouch('log', 'verify', '--data', data, '--json');
    expect(verify.code).toBe(1);
    expect(verify.json.logs[0].findings).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'payload', seq: decision.seq })]));
    const replay = await vouch('replay', '--data', data, '--json');
    expect(replay.code).toBe(1);
    expect(replay.json.findings).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'payload', seq: decision.seq })]));
    const out = join(data, '..', 'bundle');
    expect((await vouch('export', '--data', data, '--payloads', '-o', out)).code).toBe(0);
    const bundle = await vouch('verify', out, '--trust-bundle-keys', '--json');
    expect(bundle.code).toBe(1);
    expect(bundle.json.findings).toEqual(expect.arrayContaining([expect.objectContaining({ check: 'replay', seq: decision.seq, message: expect.stringContaining('payload missing') })]));
  }, 60_000);
});
