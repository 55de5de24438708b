// Truncation and fork: a verifier that kept an older signed checkpoint must reject a log that
// was cut back or rewritten from some seq on, and accept an honest extension (checkExtends
// over real logs in SQLite, checkpoints opened from their signed notes).
import Database from 'better-sqlite3';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkExtends } from '../../src/log/consistency.js';
import { Appender, consistencyProof, EMPTY_ROOT, openCheckpoint, verifyLog, type Checkpoint, type EntryBody } from '../../src/log/index.js';
import type { LogStore } from '../../src/store/index.js';
import { openSqliteStore } from '../../src/store/node.js';
import { testKeys } from '../helpers/keys.js';

const ORIGIN = 'test.vouch/default';
const keys = testKeys();
const tmp = () => join(mkdtempSync(join(tmpdir(), 'vouch-fork-')), 'log.db');
const body = (tag: string, i: number): EntryBody => ({ type: 'decision', time: '2026-11-30T00:00:00Z', principal: `agent-${i}`, note: `${tag}-${i}` });

interface Log {
  path: string;
  store: LogStore;
  appender: Appender;
}

function openLog(path = tmp()): Log {
  const store = openSqliteStore(path);
  return { path, store, appender: Appender.open({ origin: ORIGIN, storage: store, signers: keys.signers, verifiers: keys.verifiers }) };
}

/** Append bodies one at a time, so every size along the way has its own signed checkpoint. */
async function grow(log: Log, tag: string, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) await log.appender.append(body(tag, i));
}

/** What a verifier keeps: the signed checkpoint for `size`, opened (signature checked) with the public keys. */
function signedAt(log: Log, size: number): Checkpoint {
  const c = log.store.checkpointAt(size);
  if (!c) throw new Error(`no checkpoint of size ${size}`);
  return openCheckpoint(c.note, keys.verifiers);
}

const latest = (log: Log): Checkpoint => openCheckpoint(log.store.latestCheckpoint()!.note, keys.verifiers);

async function close(...logs: Log[]): Promise<void> {
  for (const l of logs) {
    await l.appender.close();
    l.store.close();
  }
}

/** Cut a copy of the log back to `size` entries, as someone with the file could (triggers dropped). */
function cutBack(log: Log, size: number, opts: { checkpoints: boolean }): string {
  const to = tmp();
  copyFileSync(log.path, to);
  const db = new Database(to);
  db.exec('DROP TRIGGER entries_no_delete; DROP TRIGGER nodes_no_delete; DROP TRIGGER checkpoints_no_delete');
  db.prepare('DELETE FROM entries WHERE seq >= ?').run(size);
  // Node (level, idx) covers leaves [idx << level, (idx + 1) << level): drop those reaching past size.
  db.prepare('DELETE FROM nodes WHERE ((idx + 1) << level) > ?').run(size);
  if (opts.checkpoints) db.prepare('DELETE FROM checkpoints WHERE size > ?').run(size);
  db.close();
  return to;
}

describe('checkExtends on real logs', () => {
  it('accepts an honest extension, from every checkpoint the log ever signed', async () => {
    const log = openLog();
    await grow(log, 'a', 0, 13);
    const newest = latest(log);
    expect(newest.size).toBe(13);
    for (const c of log.store.checkpoints()) {
      const older = openCheckpoint(c.note, keys.verifiers);
      expect(checkExtends(older, newest, consistencyProof(older.size, newest.size, log.store))).toEqual({ ok: true });
    }
    // A verifier that is already up to date: same checkpoint, empty proof.
    expect(checkExtends(newest, newest, [])).toEqual({ ok: true });
    await close(log);
  });

  it('(a) detects a log cut back: the writer refuses to restart, and a newer smaller checkpoint is "truncated"', async () => {
    const log = openLog();
    await grow(log, 'a', 0, 10);
    const held = signedAt(log, 10); // the verifier saw size 10 once
    await close(log);

    // Entries cut, checkpoints left: the start-up check refuses to sign anything.
    const careless = openSqliteStore(cutBack(log, 6, { checkpoints: false }));
    expect(() => Appender.open({ origin: ORIGIN, storage: careless, signers: keys.signers, verifiers: keys.verifiers })).toThrow(expect.objectContaining({ code: 'ERR_STORE_INCONSISTENT' }));
    careless.close();

    // Entries and checkpoints cut together: the store is self-consistent again and goes on
    // signing with the same key, but it can never again show the verifier a size-10 tree it holds.
    const cut = openLog(cutBack(log, 6, { checkpoints: true }));
    expect(verifyLog(cut.store, { origin: ORIGIN, verifiers: keys.verifiers }).findings).toEqual([]);
    await grow(cut, 'b', 6, 8);
    const served = latest(cut);
    expect(served.size).toBe(8);
    const r = checkExtends(held, served, []);
    expect(r).toMatchObject({ ok: false, reason: 'truncated' });
    // Whatever proof comes along: a smaller tree is never an extension.
    expect(checkExtends(held, served, consistencyProof(6, 8, cut.store))).toMatchObject({ ok: false, reason: 'truncated' });
    await close(cut);
  });

  it('(b) detects a log rewritten from seq k on, whatever consistency proof it offers', async () => {
    const k = 4;
    const honest = openLog();
    await grow(honest, 'a', 0, 7);
    const held = signedAt(honest, 7);

    // Same origin, same key, the same first k entries byte for byte, then different ones.
    const rewritten = openLog();
    await grow(rewritten, 'a', 0, k);
    await grow(rewritten, 'forged', k, 12);
    for (let seq = 0; seq < k; seq++) expect(rewritten.store.entry(seq)!.bytes).toEqual(honest.store.entry(seq)!.bytes);
    expect(rewritten.store.entry(k)!.bytes).not.toEqual(honest.store.entry(k)!.bytes);
    // Its own fsck is clean: only a verifier with history can tell.
    expect(verifyLog(rewritten.store, { origin: ORIGIN, verifiers: keys.verifiers }).findings).toEqual([]);
    const served = latest(rewritten);
    expect(served.size).toBe(12);

    // The proof the rewritten log's own tree gives cannot link the old root.
    expect(checkExtends(held, served, consistencyProof(7, 12, rewritten.store))).toMatchObject({ ok: false, reason: 'proof' });
    // Nor the proof of an honest extension, nor nothing at all.
    await grow(honest, 'a', 7, 12);
    expect(checkExtends(held, served, consistencyProof(7, 12, honest.store))).toMatchObject({ ok: false, reason: 'proof' });
    expect(checkExtends(held, served, [])).toMatchObject({ ok: false, reason: 'proof' });
    // The honest log's own extension still passes, so the rejection is about the rewrite.
    expect(checkExtends(held, latest(honest), consistencyProof(7, 12, honest.store))).toEqual({ ok: true });

    // Two signed roots for one size: a split view, named as a fork.
    const forkedAt7 = signedAt(rewritten, 7);
    expect(checkExtends(held, forkedAt7, [])).toMatchObject({ ok: false, reason: 'fork' });
    // Every older checkpoint of size > k disagrees; those up to k still agree.
    for (let size = 1; size <= 7; size++) {
      const r = checkExtends(signedAt(honest, size), served, consistencyProof(size, 12, rewritten.store));
      expect(r.ok, `held size ${size}`).toBe(size <= k);
    }
    await close(honest, rewritten);
  });

  it('rejects a tampered proof, another log, and treats the empty tree as a prefix of any tree', async () => {
    const log = openLog();
    await grow(log, 'a', 0, 9);
    const older = signedAt(log, 5);
    const newer = latest(log);
    const proof = consistencyProof(5, 9, log.store);
    expect(checkExtends(older, newer, proof)).toEqual({ ok: true });
    for (let i = 0; i < proof.length; i++) {
      const bad = proof.map((h) => h.slice());
      bad[i][i] ^= 0x01;
      expect(checkExtends(older, newer, bad)).toMatchObject({ ok: false, reason: 'proof' });
    }
    expect(checkExtends(older, newer, proof.slice(1))).toMatchObject({ ok: false, reason: 'proof' });
    expect(checkExtends(older, newer, [...proof, proof[0]])).toMatchObject({ ok: false, reason: 'proof' });
    expect(checkExtends({ ...older, origin: 'elsewhere.example/default' }, newer, proof)).toMatchObject({ ok: false, reason: 'origin' });
    expect(checkExtends(newer, newer, proof)).toMatchObject({ ok: false, reason: 'proof' });

    const empty: Checkpoint = { origin: ORIGIN, size: 0, root: EMPTY_ROOT, extensions: [] };
    expect(checkExtends(empty, newer, [])).toEqual({ ok: true });
    expect(checkExtends({ ...empty, root: newer.root }, newer, [])).toMatchObject({ ok: false, reason: 'fork' });
    expect(checkExtends(newer, empty, [])).toMatchObject({ ok: false, reason: 'truncated' });
    await close(log);
  });
});
