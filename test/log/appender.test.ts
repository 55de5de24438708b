// Group commit over the real SQLite store: batching, proofs, chaining, restart checks.
import Database from 'better-sqlite3';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toHex } from '../../src/canonical/index.js';
import { Appender, decodeEntry, GENESIS_PREV, hashLeaf, openCheckpoint, verifyInclusion, verifyLog, type EntryBody } from '../../src/log/index.js';
import { openSqliteStore } from '../../src/store/node.js';
import { testKeys } from '../helpers/keys.js';

const ORIGIN = 'test.vouch/default';
const keys = testKeys();
const tmp = () => join(mkdtempSync(join(tmpdir(), 'vouch-app-')), 'log.db');
const body = (i: number): EntryBody => ({ type: 'decision', time: '2026-11-30T12:00:00Z', n: i });

function open(path: string, onBatch?: (n: number) => void) {
  const store = openSqliteStore(path);
  const appender = Appender.open({ origin: ORIGIN, storage: store, signers: keys.signers, verifiers: keys.verifiers, onBatch: onBatch && ((s) => onBatch(s.entries)) });
  return { store, appender };
}

describe('Appender', () => {
  it('appends, chains prev, and returns proofs that verify against the signed checkpoint', async () => {
    const { store, appender } = open(tmp());
    const got = [];
    for (let i = 0; i < 5; i++) got.push(await appender.append(body(i)));
    let prev = GENESIS_PREV;
    for (const [i, a] of got.entries()) {
      const e = decodeEntry(a.bytes);
      expect(e.seq).toBe(i);
      expect(e.prev).toBe(prev);
      expect(e.log).toBe(ORIGIN);
      prev = toHex(a.leaf);
      const cp = openCheckpoint(a.checkpoint, keys.verifiers);
      expect(cp.size).toBe(a.size);
      expect(verifyInclusion(a.seq, cp.size, hashLeaf(a.bytes), a.proof, cp.root)).toBe(true);
    }
    await appender.close();
    expect(verifyLog(store, { origin: ORIGIN, verifiers: keys.verifiers }).findings).toEqual([]);
    store.close();
  });

  it('groups concurrent appends into few batches, each entry covered by a signature', async () => {
    const sizes: number[] = [];
    const { store, appender } = open(tmp(), (n) => sizes.push(n));
    const all = await Promise.all(Array.from({ length: 300 }, (_, i) => appender.append(body(i))));
    expect(all.map((a) => a.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 300 }, (_, i) => i));
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(300);
    expect(sizes.length).toBeLessThan(10); // the first is alone, the rest waited for it
    for (const a of all) {
      const cp = openCheckpoint(a.checkpoint, keys.verifiers);
      expect(verifyInclusion(a.seq, cp.size, a.leaf, a.proof, cp.root)).toBe(true);
    }
    await appender.close();
    const report = verifyLog(store, { origin: ORIGIN, verifiers: keys.verifiers });
    expect(report.findings).toEqual([]);
    expect(report.checkpoints).toBe(sizes.length);
    store.close();
  });

  it('a bad body fails alone and takes no seq', async () => {
    const { store, appender } = open(tmp());
    const results = await Promise.allSettled([appender.append(body(0)), appender.append({ type: 'decision', time: 't', x: NaN } as unknown as EntryBody), appender.append(body(2))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.code).toBe('ERR_NOT_CANONICAL');
    expect((results[2] as PromiseFulfilledResult<{ seq: number }>).value.seq).toBe(1);
    await appender.close();
    store.close();
  });

  it('a signer failure writes nothing and rejects every caller in the batch', async () => {
    const store = openSqliteStore(tmp());
    const failing = [{ ...keys.signers[0], sign: async () => { throw new Error('hsm down'); } }];
    const appender = Appender.open({ origin: ORIGIN, storage: store, signers: failing });
    await expect(appender.append(body(0))).rejects.toMatchObject({ code: 'ERR_STORE' });
    expect(store.size()).toBe(0);
    store.close();
  });

  it('a failed batch with later batches in flight: its callers fail, the later ones are rebuilt and commit in order', async () => {
    const store = openSqliteStore(tmp());
    let calls = 0;
    // The second checkpoint signature fails, slowly, while a third batch is already being signed.
    const flaky = keys.signers.map((s, k) => ({
      ...s,
      sign: async (m: Uint8Array) => {
        if (k === 0) calls++;
        const mine = calls;
        await new Promise((r) => setTimeout(r, mine === 2 ? 30 : 5));
        if (k === 0 && mine === 2) throw new Error('transient signer failure');
        return s.sign(m);
      },
    }));
    const appender = Appender.open({ origin: ORIGIN, storage: store, signers: flaky, maxInFlight: 2 });
    const first = appender.append(body(0));
    const second = appender.append(body(1)); // batch 2: its signature fails
    await new Promise((r) => setTimeout(r, 1));
    const third = appender.append(body(2)); // batch 3: signed on top of batch 2, must be rebuilt
    const results = await Promise.allSettled([first, second, third]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[2] as PromiseFulfilledResult<{ seq: number }>).value.seq).toBe(1); // seq 1 reused: batch 2 never committed
    await appender.close();
    const report = verifyLog(store, { origin: ORIGIN, verifiers: keys.verifiers });
    expect(report.findings).toEqual([]);
    expect(report.entries).toBe(2);
    store.close();
  });

  it('continues a log across restarts', async () => {
    const path = tmp();
    let { store, appender } = open(path);
    await appender.append(body(0));
    await appender.close();
    store.close();
    ({ store, appender } = open(path));
    const a = await appender.append(body(1));
    expect(a.seq).toBe(1);
    await appender.close();
    expect(verifyLog(store, { origin: ORIGIN, verifiers: keys.verifiers }).findings).toEqual([]);
    store.close();
  });

  it('refuses to sign when stored leaves do not match the last checkpoint', async () => {
    const path = tmp();
    const { store, appender } = open(path);
    await appender.append(body(0));
    await appender.append(body(1));
    await appender.close();
    store.close();
    const bad = join(mkdtempSync(join(tmpdir(), 'vouch-bad-')), 'log.db');
    copyFileSync(path, bad);
    const db = new Database(bad);
    db.exec('DROP TRIGGER entries_no_update');
    db.prepare('UPDATE entries SET bytes = ? WHERE seq = 1').run(Buffer.from('{"forged":true}'));
    db.close();
    const s2 = openSqliteStore(bad);
    expect(() => Appender.open({ origin: ORIGIN, storage: s2, signers: keys.signers, verifiers: keys.verifiers })).toThrow(expect.objectContaining({ code: 'ERR_STORE_INCONSISTENT' }));
    s2.close();
  });

  describe('minIntervalMs', () => {
    const run = async (minIntervalMs: number, loopers: number, each: number) => {
      const sizes: number[] = [];
      const store = openSqliteStore(tmp());
      const appender = Appender.open({ origin: ORIGIN, storage: store, signers: keys.signers, minIntervalMs, monotonic: () => performance.now(), onBatch: (s) => sizes.push(s.entries) });
      const t0 = performance.now();
      await Promise.all(Array.from({ length: loopers }, async () => {
        for (let i = 0; i < each; i++) await appender.append(body(i));
      }));
      const ms = performance.now() - t0;
      await appender.close();
      expect(verifyLog(store, { origin: ORIGIN, verifiers: keys.verifiers }).findings).toEqual([]);
      store.close();
      return { sizes, ms };
    };

    it('a sequential caller never waits for it', async () => {
      const { sizes, ms } = await run(250, 1, 6);
      expect(sizes).toEqual([1, 1, 1, 1, 1, 1]);
      expect(ms).toBeLessThan(1000); // six waits of 250 ms would be 1.5 s
    });

    it('under concurrent load, batches grow and their number falls', async () => {
      const eager = await run(0, 24, 12);
      const paced = await run(60, 24, 12);
      expect(paced.sizes.reduce((a, b) => a + b, 0)).toBe(24 * 12);
      expect(paced.sizes.length).toBeLessThan(eager.sizes.length);
      expect(Math.max(...paced.sizes)).toBeGreaterThan(Math.max(...eager.sizes) - 1);
    });
  });
});
