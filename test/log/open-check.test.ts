// The open check (src/log/open-check.ts) and the background leaf audit (src/log/leaf-audit.ts) on
// real SQLite logs: the check reads O(log n) nodes and never walks the entries; the audit walks
// them page by page, yields between pages, and names the first mismatch.
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Appender, auditLeaves, checkSignedTree, type EntryBody, type LogStorage } from '../../src/log/index.js';
import { openSqliteStore } from '../../src/store/node.js';
import { testKeys } from '../helpers/keys.js';
import { rowBytes, writeRow } from '../security/_file-attacker.js';

const ORIGIN = 'test.vouch/default';
const keys = testKeys();
const body = (i: number): EntryBody => ({ type: 'decision', time: '2026-11-30T12:00:00Z', n: i });

async function makeLog(n: number): Promise<string> {
  const path = join(mkdtempSync(join(tmpdir(), 'vouch-open-')), 'log.db');
  const store = openSqliteStore(path);
  const appender = Appender.open({ origin: ORIGIN, storage: store, signers: keys.signers, verifiers: keys.verifiers, maxBatch: 1000 });
  await Promise.all(Array.from({ length: n }, (_, i) => appender.append(body(i))));
  await appender.close();
  store.close();
  return path;
}

/** Counts what the check reads. */
function counting(storage: LogStorage) {
  const c = { nodes: 0, entries: 0, entryReads: 0 };
  const wrapped: LogStorage = {
    size: () => storage.size(),
    entry: (s) => (c.entryReads++, storage.entry(s)),
    entries: (a, b) => (c.entries++, storage.entries(a, b)),
    node: (l, i) => (c.nodes++, storage.node(l, i)),
    latestCheckpoint: () => storage.latestCheckpoint(),
    checkpointAt: (s) => storage.checkpointAt(s),
    checkpoints: () => storage.checkpoints(),
    appendBatch: (b) => storage.appendBatch(b),
  };
  return { c, wrapped };
}

const attacker = (path: string) => {
  const db = new Database(path);
  for (const t of ['entries_no_update', 'entries_no_delete', 'nodes_no_update', 'checkpoints_no_update']) db.exec(`DROP TRIGGER IF EXISTS ${t}`);
  return db;
};

describe('open check', () => {
  it('reads O(log n) nodes and one entry, never the whole log', async () => {
    for (const n of [1, 37, 1000]) {
      const path = await makeLog(n);
      const store = openSqliteStore(path, { readonly: true });
      const { c, wrapped } = counting(store);
      const opened = checkSignedTree(wrapped, ORIGIN, keys.verifiers);
      expect(opened.range.size).toBe(n);
      expect(c.entries).toBe(0);
      expect(c.entryReads).toBe(1);
      expect(c.nodes).toBeLessThanOrEqual(3 * Math.ceil(Math.log2(n + 1)) + 2);
      store.close();
    }
  });

  it('refuses entries beyond the newest signed checkpoint, a newest entry that is not its leaf, and a missing key', async () => {
    const path = await makeLog(9);
    const db = attacker(path);
    // The attacker copies entry 8's signed bytes (inflated: rows are compact by default) into a raw row 9.
    const last = { bytes: Buffer.from(rowBytes(db, 8)), leaf: db.prepare('SELECT leaf FROM entries WHERE seq = 8').pluck().get() as Buffer };
    db.prepare('INSERT INTO entries (seq, bytes, leaf) VALUES (9, ?, ?)').run(last.bytes, last.leaf);
    db.close();
    let store = openSqliteStore(path, { readonly: true });
    // An unsigned tail must chain onto the signed tree (durable before signed): a copied entry does not.
    expect(() => checkSignedTree(store, ORIGIN, keys.verifiers)).toThrow(/unsigned entry 9 .* does not chain onto the log|unsigned entry 9 .*node/);
    store.close();

    const path2 = await makeLog(9);
    const db2 = attacker(path2);
    writeRow(db2, 8, Buffer.concat([last.bytes.subarray(0, -1), Buffer.from(' }')])); // recompressed if the row was compact
    const compact = (db2.prepare('SELECT codec FROM entries WHERE seq = 8').pluck().get() as number) !== 0;
    db2.close();
    store = openSqliteStore(path2, { readonly: true });
    // A raw row fails the open check's leaf test; a compact one is refused by the codec on read (its inflated bytes must hash to its leaf), coded, naming the fix.
    expect(() => checkSignedTree(store, ORIGIN, keys.verifiers)).toThrow(compact ? /entry 8: its bytes, inflated with dictionary \d+, do not hash to its leaf.*restore it from a backup/ : /stored leaf hash of newest entry 8 does not match its bytes/);
    expect(() => checkSignedTree(store, ORIGIN, keys.verifiers)).toThrow(expect.objectContaining({ code: 'ERR_STORE_INCONSISTENT' }));
    expect(() => checkSignedTree(store, ORIGIN, undefined)).toThrow(/no verification keys given/);
    expect(() => checkSignedTree(store, 'other.vouch/x', keys.verifiers)).toThrow(/signed for origin "test.vouch\/default"/);
    store.close();
  });
});

describe('background leaf audit', () => {
  it('checks every entry page by page, yielding between pages, and completes on a clean log', async () => {
    const path = await makeLog(50);
    const store = openSqliteStore(path, { readonly: true });
    const opened = checkSignedTree(store, ORIGIN, keys.verifiers);
    const seen: number[] = [];
    let pauses = 0;
    const p = await auditLeaves(store, { size: 50, root: opened.root }, { page: 8, onMismatch: () => expect.fail('no mismatch expected'), onProgress: (x) => seen.push(x.checked), pause: async () => void pauses++ });
    expect(p).toMatchObject({ checked: 50, total: 50, complete: true });
    expect(pauses).toBe(7);
    expect(seen).toEqual([0, 8, 16, 24, 32, 40, 48, 50, 50]);
    store.close();
  });

  it('names a flipped byte, a gap and a wrong node, and reports the mismatch once', async () => {
    const cases: [string, (db: Database.Database) => void, RegExp][] = [
      // A byte of entry 3's signed JSON, written back recompressed when the row is compact (the codec then refuses it on read).
      ['byte', (db) => {
        const b = rowBytes(db, 3);
        b[5] ^= 1;
        writeRow(db, 3, b);
      }, /entry 3: (stored leaf hash does not match the entry bytes|its bytes, inflated with dictionary \d+, do not hash to its leaf)/],
      ['gap', (db) => void db.prepare('DELETE FROM entries WHERE seq = 12').run(), /gap/],
      ['node', (db) => void db.prepare('UPDATE nodes SET hash = ? WHERE level = 2 AND idx = 1').run(Buffer.alloc(32, 1)), /tree node 2\/1 \(completed by entry 7\) is wrong/],
    ];
    for (const [, tamper, why] of cases) {
      const path = await makeLog(20);
      const store0 = openSqliteStore(path, { readonly: true });
      const opened = checkSignedTree(store0, ORIGIN, keys.verifiers);
      store0.close();
      const db = attacker(path);
      tamper(db);
      db.close();
      const store = openSqliteStore(path, { readonly: true });
      const mismatches: Error[] = [];
      const p = await auditLeaves(store, { size: 20, root: opened.root }, { page: 4, onMismatch: (e) => mismatches.push(e) });
      expect(p.complete).toBe(false);
      expect(mismatches).toHaveLength(1);
      expect(mismatches[0]).toMatchObject({ code: 'ERR_STORE_INCONSISTENT', message: expect.stringMatching(why) });
      store.close();
    }
  });

  it('a halted appender fails every append closed and signs nothing more', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'vouch-halt-')), 'log.db');
    const store = openSqliteStore(path);
    const appender = Appender.open({ origin: ORIGIN, storage: store, signers: keys.signers, verifiers: keys.verifiers });
    await appender.append(body(0));
    const { StoreError } = await import('../../src/errors.js');
    appender.halt(new StoreError('ERR_STORE_INCONSISTENT', 'refusing to sign: test'));
    await expect(appender.append(body(1))).rejects.toMatchObject({ code: 'ERR_STORE_INCONSISTENT' });
    await expect(appender.checkpointNow()).rejects.toMatchObject({ code: 'ERR_STORE_INCONSISTENT' });
    expect(store.size()).toBe(1);
    expect([...store.checkpoints()]).toHaveLength(1);
    await appender.close();
    store.close();
  });
});
