// The file-level attacker against compact entry rows (issue 40, docs/storage.md): writes to the
// log file (rows, the dictionary table, triggers dropped as they would), holds no key. Whatever
// they edit (a dictionary's bytes, with or without its digest, a compressed row, the dictionary a
// row names, a policy entry hidden from its index by compressing it), every read of the row is
// refused with ERR_STORE_INCONSISTENT, `vouch log verify` exits non-zero naming that code, and a
// log whose newest entry is touched is refused at open: other bytes are never served as signed.
import Database from 'better-sqlite3';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../src/canonical/index.js';
import { main } from '../../src/cli/main.js';
import type { StoreError } from '../../src/errors.js';
import { auditLeaves, type EntryBody } from '../../src/log/index.js';
import { initDataDir, logPath, openDataDir, openSqliteStore } from '../../src/store/node.js';
import { body, inputDigest } from '../store/_archive-log.js';

const POLICY = { type: 'policy', time: '2026-12-05T00:00:00Z', chain: `sha256:${'c'.repeat(64)}`, policySet: `sha256:${'d'.repeat(64)}`, engines: {}, action: 'activate' } as EntryBody;
const N = 21;
let clean: string;

beforeAll(async () => {
  clean = join(mkdtempSync(join(tmpdir(), 'vouch-codec-tamper-')), 'data');
  initDataDir(clean);
  const dd = await openDataDir(clean, { thread: false });
  const log = dd.log('default'); // compact by default: no meta key set
  await log.appender.append(POLICY);
  for (let i = 1; i < N; i++) await log.appender.append(body(i, 'tamper'), [{ digest: inputDigest(i), bytes: Uint8Array.of(i & 0xff, i >> 8) }]);
  await dd.close();
}, 60_000);

/** A copy of the clean log with `edit` applied by the attacker. */
function tampered(edit: (db: Database.Database) => void): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'vouch-codec-tamper-copy-')), 'data');
  cpSync(clean, dir, { recursive: true });
  const db = new Database(logPath(dir, 'default'));
  for (const t of ['entries_no_update', 'entry_dictionaries_no_update']) db.exec(`DROP TRIGGER ${t}`);
  edit(db);
  db.close();
  return dir;
}

const row = (db: Database.Database, seq: number) => db.prepare('SELECT bytes, codec FROM entries WHERE seq = ?').get(seq) as { bytes: Buffer; codec: number };
const dictionary = (db: Database.Database) => (db.prepare('SELECT bytes FROM entry_dictionaries WHERE id = 1').get() as { bytes: Buffer }).bytes;

type Finding = { kind: string; seq?: number; code: string; message: string };

/** `vouch log verify --json`: its exit code and the findings of the one log. */
async function logVerify(dir: string): Promise<{ code: number; findings: Finding[] }> {
  const out: string[] = [];
  const code = await main(['log', 'verify', '--data', dir, '--json'], { out: (l) => out.push(l), err: (l) => out.push(l) });
  return { code, findings: (JSON.parse(out.join('\n')) as { logs: { findings: Finding[] }[] }).logs[0].findings };
}

/** A row the store refuses is a finding naming its seq and the code (read-rows.ts), not the end of the verify. */
const refusedAt = (seq: number) => expect.arrayContaining([expect.objectContaining({ kind: 'entry', seq, code: 'ERR_STORE_INCONSISTENT' })]);

async function openRefused(dir: string): Promise<unknown> {
  const dd = await openDataDir(dir, { thread: false });
  try {
    dd.log('default');
    return undefined;
  } catch (e) {
    return e;
  } finally {
    await dd.close();
  }
}

function readRefused(dir: string, seq: number): unknown {
  const store = openSqliteStore(logPath(dir, 'default'), { readonly: true });
  try {
    store.entry(seq);
    return undefined;
  } catch (e) {
    return e;
  } finally {
    store.close();
  }
}

const NEWEST = N - 1;
const EDITS: [string, (db: Database.Database) => void][] = [
  ['a dictionary byte flipped (its digest left)', (db) => {
    const d = Buffer.from(dictionary(db));
    d[d.length >> 1] ^= 0x01;
    db.prepare('UPDATE entry_dictionaries SET bytes = ? WHERE id = 1').run(d);
  }],
  ['the dictionary rewritten with its digest recomputed', (db) => {
    const d = Buffer.from(dictionary(db).toString('latin1').replaceAll('a', 'b'), 'latin1');
    db.prepare('UPDATE entry_dictionaries SET bytes = ?, digest = ? WHERE id = 1').run(d, sha256(d));
  }],
  ['the newest row recompressed from other bytes (leaf left)', (db) => {
    const signed = openSqliteStore(db.name, { readonly: true });
    const bytes = Buffer.from(signed.entry(NEWEST)!.bytes).toString('utf8');
    signed.close();
    const forged = Buffer.from(bytes.replace(/"effect":"(allow|deny)"/, (_m, e) => `"effect":"${e === 'allow' ? 'deny' : 'allow'}"`));
    db.prepare('UPDATE entries SET bytes = ? WHERE seq = ?').run(deflateRawSync(forged, { dictionary: dictionary(db) }), NEWEST);
  }],
  ['the newest row pointed at a dictionary that is not stored', (db) => void db.prepare('UPDATE entries SET codec = 99 WHERE seq = ?').run(NEWEST)],
];

describe('compact rows against the file-level attacker', () => {
  it('the untouched log: newest row compressed, verifies, opens', async () => {
    const db = new Database(logPath(clean, 'default'), { readonly: true });
    expect(row(db, NEWEST).codec).toBe(1);
    db.close();
    expect((await logVerify(clean)).code).toBe(0);
    expect(await openRefused(clean)).toBeUndefined();
  });

  for (const [name, edit] of EDITS) {
    it(`${name}: the read, \`vouch log verify\` and the open are refused, coded`, async () => {
      const dir = tampered(edit);
      expect(readRefused(dir, NEWEST)).toMatchObject({ code: 'ERR_STORE_INCONSISTENT' });
      const v = await logVerify(dir);
      expect(v.code).toBe(1);
      expect(v.findings).toEqual(refusedAt(NEWEST));
      expect(await openRefused(dir)).toMatchObject({ code: 'ERR_STORE_INCONSISTENT' });
    }, 60_000);
  }

  it('a policy entry compressed out of sight of its index: its read and `vouch log verify` are refused', async () => {
    const dir = tampered((db) => {
      const policy = row(db, 0);
      expect(policy.codec).toBe(0);
      db.prepare('UPDATE entries SET bytes = ?, codec = 1 WHERE seq = 0').run(deflateRawSync(policy.bytes, { dictionary: dictionary(db) }));
    });
    expect(readRefused(dir, 0)).toMatchObject({ code: 'ERR_STORE_INCONSISTENT', message: expect.stringContaining('out of sight of its index') });
    const v = await logVerify(dir);
    expect(v.code).toBe(1);
    expect(v.findings).toEqual(refusedAt(0));
  }, 60_000);
});

// A refused row is a finding for its seq, not the end of the check: `vouch log verify` names each
// one and checks every other row; a receipt or an export of it is refused, coded, naming the fix;
// the service's background audit halts signing naming it.
describe('garbled compact rows in the middle of the log', () => {
  const GARBLED = [7, 13];
  let dir: string;
  beforeAll(() => {
    dir = tampered((db) => {
      for (const seq of GARBLED) {
        const r = row(db, seq);
        expect(r.codec).toBe(1);
        const b = Buffer.from(r.bytes);
        b[b.length >> 1] ^= 0x01;
        db.prepare('UPDATE entries SET bytes = ? WHERE seq = ?').run(b, seq);
      }
    });
  });

  it('`vouch log verify` names each garbled row and only those, having checked all the others', async () => {
    const v = await logVerify(dir);
    expect(v.code).toBe(1);
    expect(v.findings.map((f) => [f.kind, f.seq, f.code])).toEqual(GARBLED.map((seq) => ['entry', seq, 'ERR_STORE_INCONSISTENT']));
    expect(v.findings[0].message).toMatch(/^entry 7: .*restore it from a backup/);
  }, 60_000);

  it('a receipt for a garbled row is refused, coded, naming the fix; its neighbour still has one', async () => {
    const out: string[] = [];
    const io = { out: (l: string) => out.push(l), err: (l: string) => out.push(l) };
    expect(await main(['receipt', '7', '--data', dir], io)).not.toBe(0);
    expect(out.join('\n')).toMatch(/ERR_STORE_INCONSISTENT.*entry 7: .*restore it from a backup/s);
    out.length = 0;
    expect(await main(['receipt', '8', '--data', dir], io)).toBe(0);
  }, 60_000);

  it('a bundle export over a garbled row is refused, coded, and leaves no half-written bundle', async () => {
    const to = join(mkdtempSync(join(tmpdir(), 'vouch-codec-export-')), 'bundle');
    const out: string[] = [];
    expect(await main(['export', '--data', dir, '-o', to, '--json'], { out: (l) => out.push(l), err: (l) => out.push(l) })).not.toBe(0);
    expect(out.join('\n')).toMatch(/ERR_STORE_INCONSISTENT.*entry 7: /s);
    expect(existsSync(to)).toBe(false);
  }, 60_000);

  it('the background audit halts signing, naming the first garbled row', async () => {
    const store = openSqliteStore(logPath(dir, 'default'), { readonly: true });
    try {
      const cp = store.latestCheckpoint()!;
      let halted: StoreError | undefined;
      const p = await auditLeaves(store, { size: cp.size, root: cp.root }, { onMismatch: (e) => (halted = e), pause: async () => undefined });
      expect(p.complete).toBe(false);
      expect(halted).toMatchObject({ code: 'ERR_STORE_INCONSISTENT', message: expect.stringContaining('entry 7: ') });
    } finally {
      store.close();
    }
  }, 60_000);
});
