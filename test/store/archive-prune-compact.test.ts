// Pruning a log whose rows are compact (docs/storage.md: meta entry_codec=deflate, migration 0008):
// the rows dropped were stored compressed, the archive holds the signed bytes, and after pruning
// every read, `vouch log verify` and an export give what the unpruned copy gives. An erasure entry
// (stored compressed: it has no index, so compact may compress it) is pruned like a decision; the
// policy entry, never compressed, stays.
import Database from 'better-sqlite3';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseStoredPayload } from '../../src/audit/erase.js';
import type { EntryBody } from '../../src/log/index.js';
import { consistencyProof, inclusionProof, rootAt } from '../../src/log/index.js';
import { ENTRY_CODEC_META, initDataDir, logPath, openDataDir, openSqliteStore } from '../../src/store/node.js';
import { runVouch } from '../helpers/cli.js';
import { body, inputDigest } from './_archive-log.js';

const TIME = '2026-12-05T00:00:00Z';
const POLICY: EntryBody = { type: 'policy', time: TIME, chain: `sha256:${'c'.repeat(64)}`, policySet: `sha256:${'d'.repeat(64)}`, engines: {}, action: 'activate' };
/** Entries whose input payload an erasure entry (appended right after the first of them) removes: all below the watermark. */
const ERASED = [7, 300];

const temps: string[] = [];
const tempDir = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
};
const query = <T>(dir: string, sql: string, all = false): T => {
  const db = new Database(logPath(dir, 'default'), { readonly: true });
  try {
    const st = db.prepare(sql);
    return (all ? st.all() : st.pluck().get()) as T;
  } finally {
    db.close();
  }
};

/** 600 entries written compact: a policy entry, decisions with payloads, and an erasure after entries 7 and 300. */
async function makeCompactLog(dir: string): Promise<string> {
  initDataDir(dir);
  openSqliteStore(logPath(dir, 'default')).close(); // migrations applied, so the meta key can be set before the first entry
  const db = new Database(logPath(dir, 'default'));
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(ENTRY_CODEC_META, 'deflate');
  db.close();
  const dd = await openDataDir(dir, { thread: false });
  try {
    const log = dd.log('default');
    const target = { payload: async (d: string) => log.store.payload(d as never), erasePayload: async (d: string) => log.store.erasePayload(d as never), append: (b: EntryBody) => log.appender.append(b) };
    await log.appender.append(POLICY);
    for (let i = 1; log.store.size() < 600; i++) {
      await log.appender.append(body(i, 'agent'), [{ digest: inputDigest(i), bytes: Uint8Array.of(i & 0xff, i >> 8) }]);
      if (ERASED.includes(i)) await eraseStoredPayload(target as never, inputDigest(i) as never, { time: TIME, reason: 'asked', by: 'operator:test' });
    }
  } finally {
    await dd.close();
  }
  return dir;
}

let whole: string; // compact, archived, not pruned
let pruned: string; // the same, pruned below 512
let erasures: number[];

beforeAll(async () => {
  whole = await makeCompactLog(tempDir('vouch-prune-compact-'));
  expect((await runVouch('log', 'archive', '--data', whole)).code).toBe(0);
  pruned = tempDir('vouch-prune-compact-copy-');
  cpSync(whole, pruned, { recursive: true });
  const r = await runVouch('log', 'prune', '--data', pruned, '--tenant', 'default', '--json');
  expect(r.code, r.out).toBe(0);
  // Only the policy entry (seq 0) stays below 512: the erasure entries there are pruned too.
  expect(r.json).toMatchObject({ ok: true, from: 0, below: 512, archived: 600, entries: 511 });
}, 180_000);

afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

describe('vouch log prune on compact rows', () => {
  it('the log was written compact: decisions and erasures compressed, the policy entry raw', () => {
    const rows = query<{ seq: number; codec: number; type: string | null }[]>(whole, "SELECT seq, codec, CASE WHEN codec = 0 THEN json_extract(CAST(bytes AS TEXT), '$.type') END AS type FROM entries ORDER BY seq", true);
    expect(rows).toHaveLength(600);
    expect(rows[0]).toMatchObject({ codec: 0, type: 'policy' });
    expect(rows.filter((r) => r.codec > 0).length).toBeGreaterThan(550);
    // The erasure entries, found by reading the signed bytes (a compressed row is not JSON to SQL).
    const s = openSqliteStore(logPath(whole, 'default'), { readonly: true });
    try {
      erasures = [...s.entries(0, 600)].filter((e) => JSON.parse(new TextDecoder().decode(e.bytes)).type === 'erasure').map((e) => e.seq);
    } finally {
      s.close();
    }
    expect(erasures).toHaveLength(2);
    for (const seq of erasures) expect(seq).toBeLessThan(512);
    for (const seq of erasures) expect(rows[seq].codec).toBeGreaterThan(0);
  });

  it('drops the compressed rows below the watermark, keeps the raw policy entry, the rows above and every dictionary', () => {
    expect(query(pruned, 'SELECT COUNT(*) FROM entries WHERE seq < 512')).toBe(1);
    expect(query(pruned, 'SELECT codec FROM entries WHERE seq = 0')).toBe(0);
    expect(query(pruned, 'SELECT COUNT(*) FROM entries WHERE seq >= 512 AND codec > 0')).toBe(query(whole, 'SELECT COUNT(*) FROM entries WHERE seq >= 512 AND codec > 0'));
    expect(query(pruned, 'SELECT COUNT(*) FROM entry_dictionaries')).toBe(query(whole, 'SELECT COUNT(*) FROM entry_dictionaries'));
    // The triggers still refuse the state entry and anything at or above the watermark.
    const db = new Database(logPath(copyOf(pruned), 'default'));
    try {
      expect(() => db.exec('DELETE FROM entries WHERE seq = 0')).toThrow(/append-only/);
      expect(() => db.exec('DELETE FROM entries WHERE seq = 513')).toThrow(/append-only/);
    } finally {
      db.close();
    }
  });

  it('every read gives the unpruned copy\'s signed bytes: entries, nodes, proofs', () => {
    const a = openSqliteStore(logPath(whole, 'default'), { readonly: true });
    const b = openSqliteStore(logPath(pruned, 'default'), { readonly: true });
    try {
      expect(b.size()).toBe(600);
      expect([...b.entries(0, 600)]).toEqual([...a.entries(0, 600)]);
      for (const seq of [0, 1, 255, 256, 511, 512, 599, ...erasures]) expect(b.entry(seq)).toEqual(a.entry(seq));
      for (const level of [0, 7, 8]) expect(b.nodeRange!(level, 0, 1000)).toEqual([...a.nodeRange!(level, 0, 1000)]);
      expect(inclusionProof(300, 600, b)).toEqual(inclusionProof(300, 600, a));
      expect(consistencyProof(300, 600, b)).toEqual(consistencyProof(300, 600, a));
      expect(rootAt(600, b)).toEqual(b.latestCheckpoint()!.root);
      expect(b.latestPolicyEntry!()).toEqual(a.latestPolicyEntry!());
    } finally {
      a.close();
      b.close();
    }
  });

  it('vouch log verify: the same clean report as the unpruned copy', async () => {
    const a = await runVouch('log', 'verify', '--data', whole, '--json');
    const b = await runVouch('log', 'verify', '--data', pruned, '--json');
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(b.json.ok).toBe(true);
    expect(b.json.logs[0].findings).toEqual([]);
    expect(b.out.replaceAll(pruned, 'DATA')).toBe(a.out.replaceAll(whole, 'DATA'));
  });

  it('vouch export: the same bundle, file for file', async () => {
    const out = (d: string) => join(d, 'bundle');
    const a = await runVouch('export', '-o', out(whole), '--data', whole, '--payloads');
    const b = await runVouch('export', '-o', out(pruned), '--data', pruned, '--payloads');
    expect([a.code, b.code]).toEqual([0, 0]);
    const files = filesOf(out(whole));
    expect(filesOf(out(pruned))).toEqual(files);
    expect(files.length).toBeGreaterThan(0);
    // manifest.json: the same but for its `created` time (the export's own clock).
    const manifest = (d: string) => ({ ...JSON.parse(readFileSync(join(out(d), 'manifest.json'), 'utf8')), created: 'T' });
    expect(manifest(pruned)).toEqual(manifest(whole));
    for (const f of files.filter((f) => f !== 'manifest.json')) expect(readFileSync(join(out(pruned), f)), f).toEqual(readFileSync(join(out(whole), f)));
  });
});

function copyOf(dir: string): string {
  const c = tempDir('vouch-prune-compact-edit-');
  cpSync(dir, c, { recursive: true });
  return c;
}

/** Every file under `dir`, relative, sorted. */
function filesOf(dir: string, rel = ''): string[] {
  return readdirSync(join(dir, rel))
    .flatMap((f) => (statSync(join(dir, rel, f)).isDirectory() ? filesOf(dir, join(rel, f)) : [join(rel, f)]))
    .sort();
}
