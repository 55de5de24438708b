// Migration 0008 (compact entry rows, docs/storage.md) on a log today's main wrote
// (fixtures/store-pre-0008): its raw rows stay readable byte for byte and `vouch log verify`
// passes before and after; entries appended after the migration are stored compressed by default
// (nothing to turn on), and the log still verifies, through the writer's log thread as the service
// runs it too. `meta entry_codec=raw` keeps new rows raw; any other value is refused, coded.
import Database from 'better-sqlite3';
import { chmodSync, cpSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { bytesEqual } from '../../src/canonical/index.js';
import { ENTRY_CODEC_META, openDataDir, openSqliteStore } from '../../src/store/node.js';
import { body, inputDigest } from './_archive-log.js';

const FIXTURE = fileURLToPath(new URL('../../fixtures/store-pre-0008/data', import.meta.url));

/** A private copy of the fixture (git keeps no file modes: keys and directories made private again). */
function copyFixture(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'vouch-codec-mig-')), 'data');
  cpSync(FIXTURE, dir, { recursive: true });
  for (const d of [dir, join(dir, 'keys'), join(dir, 'logs')]) chmodSync(d, 0o700);
  for (const f of readdirSync(join(dir, 'keys'))) chmodSync(join(dir, 'keys', f), 0o600);
  chmodSync(join(dir, 'logs', 'default.db'), 0o600);
  return dir;
}

async function logVerify(dir: string): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const code = await main(['log', 'verify', '--data', dir], { out: (l) => out.push(l), err: (l) => out.push(l) });
  return { code, out: out.join('\n') };
}

const rawRows = (db: string) => {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare('SELECT seq, bytes FROM entries ORDER BY seq').all() as { seq: number; bytes: Buffer }[];
  } finally {
    d.close();
  }
};

describe('migration 0008 on a log written before it', () => {
  it('old rows read back as written and verify; new entries are written compact and verify', async () => {
    const dir = copyFixture();
    const db = join(dir, 'logs', 'default.db');
    const before = rawRows(db);
    expect(before).toHaveLength(40);
    // Read-only (as `vouch log verify` opens it): no migration runs, and the old file verifies.
    expect(await logVerify(dir)).toMatchObject({ code: 0 });
    const old = new Database(db, { readonly: true });
    expect(old.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get()).toBe(7);
    old.close();

    // Compact rows are the default (docs/storage.md): the operator sets nothing.
    const dd = await openDataDir(dir, { thread: true, logThread: true });
    try {
      const log = dd.log('default');
      await log.ready;
      for (const e of before) expect(bytesEqual(log.store.entry(e.seq)!.bytes, new Uint8Array(e.bytes)), `entry ${e.seq}`).toBe(true);
      for (let i = 40; i < 80; i++) await log.appender.append(body(i, 'after'), [{ digest: inputDigest(i), bytes: Uint8Array.of(i & 0xff, i >> 8) }]);
    } finally {
      await dd.close();
    }

    const after = new Database(db, { readonly: true });
    try {
      // 0008 and every later migration (0009 pruned_entries) ran at the writer's open.
      expect(after.prepare("SELECT version FROM schema_migrations WHERE name = 'entry_codec'").pluck().get()).toBe(8);
      const rows = after.prepare('SELECT seq, codec, length(bytes) AS n FROM entries ORDER BY seq').all() as { seq: number; codec: number; n: number }[];
      // The old rows stay as they were (codec 0, same bytes); most new ones are compressed.
      expect(rows.slice(0, 40).every((r) => r.codec === 0 && r.n === before[r.seq].bytes.byteLength)).toBe(true);
      const compressed = rows.slice(40).filter((r) => r.codec > 0);
      expect(compressed.length).toBeGreaterThanOrEqual(35);
      expect(after.prepare('SELECT COUNT(*) FROM entry_dictionaries').pluck().get()).toBe(1);
    } finally {
      after.close();
    }
    // Every read gives back the signed bytes: the old rows unchanged, the whole log verifies.
    const store = openSqliteStore(db, { readonly: true });
    try {
      for (const e of before) expect(bytesEqual(store.entry(e.seq)!.bytes, new Uint8Array(e.bytes))).toBe(true);
      expect([...store.entries(0, 80)].map((e) => JSON.parse(new TextDecoder().decode(e.bytes)).seq)).toEqual(Array.from({ length: 80 }, (_, i) => i));
    } finally {
      store.close();
    }
    const v = await logVerify(dir);
    expect(v.out).toContain('80 entries');
    expect(v, v.out).toMatchObject({ code: 0 });
  }, 60_000);
});

/** The fixture with meta entry_codec set to `value`, then 10 entries appended by the service's writer. */
async function appendWithCodec(value: string): Promise<{ db: string; dir: string; error?: unknown }> {
  const dir = copyFixture();
  const db = join(dir, 'logs', 'default.db');
  const dd = await openDataDir(dir, { thread: false });
  let error: unknown;
  try {
    const log = dd.log('default');
    log.store.setMeta(ENTRY_CODEC_META, value);
    for (let i = 40; i < 50; i++) await log.appender.append(body(i, 'after'), [{ digest: inputDigest(i), bytes: Uint8Array.of(i & 0xff, i >> 8) }]);
  } catch (e) {
    error = e;
  } finally {
    await dd.close();
  }
  return { db, dir, error };
}

describe('turning compact rows off for a log file', () => {
  it('meta entry_codec=raw: new rows are stored raw, and the log verifies', async () => {
    const { db, dir, error } = await appendWithCodec('raw');
    expect(error).toBeUndefined();
    const d = new Database(db, { readonly: true });
    try {
      expect(d.prepare('SELECT COUNT(*) FROM entries WHERE codec = 0').pluck().get()).toBe(50);
      expect(d.prepare('SELECT COUNT(*) FROM entry_dictionaries').pluck().get()).toBe(0);
    } finally {
      d.close();
    }
    const v = await logVerify(dir);
    expect(v, v.out).toMatchObject({ code: 0 });
  }, 60_000);

  it('any other value is refused, coded, naming the two it may be: nothing is appended', async () => {
    const { db, error } = await appendWithCodec('zstd');
    expect(error).toMatchObject({ code: 'ERR_STORE', message: expect.stringMatching(/entry_codec is "zstd".*'deflate'.*'raw'/) });
    expect(rawRows(db)).toHaveLength(40);
  }, 60_000);
});
