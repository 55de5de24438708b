// Group commit over the real SQLite store: batching, proofs, chaining, restart checks.
import Database from 'better-sqlite3';
import { copyFileSync, cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toHex } from '../../src/canonical/index.js';
import { Appender, commitKeyOf, decodeEntry, GENESIS_PREV, hashLeaf, openCheckpoint, verifyInclusion, verifyLog, type EntryBody } from '../../src/log/index.js';
import { openSqliteStore } from '../../src/store/node.js';
import { testKeys } from '../helpers/keys.js';
import { appendForged, openAsAttacker } from '../security/_file-attacker.js';

const ORIGIN = 'test.vouch/default';
const keys = testKeys();
const COMMIT_KEY = commitKeyOf(new Uint8Array(32).fill(7));
const tmp = () => join(mkdtempSync(join(tmpdir(), 'vouch-app-')), 'log.db');
const body = (i: number): EntryBody => ({ type: 'decision', time: '2026-11-30T12:00:00Z', n: i });

function open(path: string, onBatch?: (n: number) => void) {
  const store = openSqliteStore(path);
  const appender = Appender.open({ origin: ORIGIN, storage: store, signers: keys.signers, verifiers: keys.verifiers, onBatch: onBatch && ((s) => onBatch(s.entries)) });
  return { store, appender };
}

/** A log of one signed entry, then `n` committed under COMMIT_KEY whose signature never came (the process died). */
async function crashedTail(n: number) {
  const path = tmp();
  const store = openSqliteStore(path);
  const never = keys.signers.map((s) => ({ ...s, sign: () => new Promise<Uint8Array>(() => undefined) }));
  const a = Appender.open({ origin: ORIGIN, storage: store, signers: keys.signers, verifiers: keys.verifiers, commitKey: COMMIT_KEY });
  await a.append(body(0));
  await a.close();
  const b = Appender.open({ origin: ORIGIN, storage: store, signers: never, verifiers: keys.verifiers, commitKey: COMMIT_KEY });
  const ds = await Promise.all(Array.from({ length: n }, (_, i) => b.appendDurable(body(i + 1))));
  store.close();
  return { path, ds };
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

  it('a signer failure: the entry stays durable, its signed wait fails, and the next checkpoint covers it', async () => {
    const store = openSqliteStore(tmp());
    let down = true;
    const flaky = keys.signers.map((s) => ({ ...s, sign: async (m: Uint8Array) => (down ? Promise.reject(new Error('hsm down')) : s.sign(m)) }));
    const appender = Appender.open({ origin: ORIGIN, storage: store, signers: flaky, verifiers: keys.verifiers, retryMs: 5 });
    const d = await appender.appendDurable(body(0));
    await expect(d.signed).rejects.toMatchObject({ code: 'ERR_STORE' });
    expect(store.size()).toBe(1); // durable: committed before any signature
    expect(store.latestCheckpoint()).toBeUndefined();
    down = false;
    const a = await appender.append(body(1));
    expect(a.size).toBe(2); // one checkpoint covers the entry whose signature failed and the new one
    await appender.close();
    expect(verifyLog(store, { origin: ORIGIN, verifiers: keys.verifiers }).findings).toEqual([]);
    store.close();
  });

  it('durable answers come before the signature; the signed answer proves inclusion in the checkpoint', async () => {
    const store = openSqliteStore(tmp());
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = keys.signers.map((s) => ({ ...s, sign: async (m: Uint8Array) => (await gate, s.sign(m)) }));
    const appender = Appender.open({ origin: ORIGIN, storage: store, signers: slow, verifiers: keys.verifiers });
    const ds = await Promise.all([0, 1, 2].map((i) => appender.appendDurable(body(i))));
    expect(ds.map((d) => d.seq)).toEqual([0, 1, 2]);
    expect(store.size()).toBe(3); // committed while no signature exists
    expect(store.latestCheckpoint()).toBeUndefined();
    release();
    for (const d of ds) {
      const a = await d.signed;
      const cp = openCheckpoint(a.checkpoint, keys.verifiers);
      expect(verifyInclusion(a.seq, cp.size, d.leaf, a.proof, cp.root)).toBe(true);
    }
    await appender.close();
    store.close();
  });

  it('stops taking appends with ERR_STORE_BEHIND once signing falls behind the coverage bound, and resumes when it catches up', async () => {
    const store = openSqliteStore(tmp());
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const stalled = keys.signers.map((s) => ({ ...s, sign: async (m: Uint8Array) => (await gate, s.sign(m)) }));
    const appender = Appender.open({ origin: ORIGIN, storage: store, signers: stalled, verifiers: keys.verifiers, maxCoverageMs: 50 });
    const first = await appender.appendDurable(body(0));
    await new Promise((r) => setTimeout(r, 80));
    await expect(appender.appendDurable(body(1))).rejects.toMatchObject({ code: 'ERR_STORE_BEHIND' });
    expect(store.size()).toBe(1); // the refused decision was not recorded
    release();
    await first.signed;
    expect((await appender.append(body(2))).seq).toBe(1);
    await appender.close();
    store.close();
  });

  it('a crash between commit and signature: the reopened log checks the unsigned tail and its commit tag, then signs it', async () => {
    const { path, ds } = await crashedTail(3);
    const s2 = openSqliteStore(path);
    expect(s2.size()).toBe(4);
    expect(s2.latestCheckpoint()?.size).toBe(1);
    expect(s2.commitTag!()?.size).toBe(4);
    // Without the commit key, nothing tells these entries from ones written into the file: refused.
    expect(() => Appender.open({ origin: ORIGIN, storage: s2, signers: keys.signers, verifiers: keys.verifiers })).toThrow(expect.objectContaining({ code: 'ERR_STORE_INCONSISTENT', message: expect.stringMatching(/3 entries after the newest signed checkpoint \(size 1\) and no commit key/) }));
    // Another key's tag is no tag.
    expect(() => Appender.open({ origin: ORIGIN, storage: s2, signers: keys.signers, verifiers: keys.verifiers, commitKey: commitKeyOf(new Uint8Array(32).fill(9)) })).toThrow(expect.objectContaining({ code: 'ERR_STORE_INCONSISTENT', message: expect.stringMatching(/commit tag does not match/) }));
    const c = Appender.open({ origin: ORIGIN, storage: s2, signers: keys.signers, verifiers: keys.verifiers, commitKey: COMMIT_KEY });
    expect((await c.checkpointNow()).size).toBe(4);
    expect(s2.latestCheckpoint()?.size).toBe(4); // the tail was signed at open
    expect(verifyLog(s2, { origin: ORIGIN, verifiers: keys.verifiers }).findings).toEqual([]);
    expect(ds.map((d) => toHex(s2.entry(d.seq)!.leaf))).toEqual(ds.map((d) => toHex(d.leaf)));
    await c.close();
    s2.close();
  });

  it('entries someone appended after the newest checkpoint, links and nodes right, are not signed: no tag, an old tag, or a tag row of their own', async () => {
    const { path } = await crashedTail(1); // a genuine unsigned tail of one, tagged at size 2
    const open = (p: string) => {
      const s = openSqliteStore(p);
      try {
        return Appender.open({ origin: ORIGIN, storage: s, signers: keys.signers, verifiers: keys.verifiers, commitKey: COMMIT_KEY });
      } finally {
        s.close();
      }
    };
    const copy = (name: string) => {
      const to = join(mkdtempSync(join(tmpdir(), 'vouch-tail-')), `${name}.db`);
      cpSync(path, to);
      return to;
    };
    // 1. One more entry, chained and hashed into the tree as the appender would: the tag names size 2.
    const appended = copy('appended');
    appendForged(appended, (e) => (e.decision = { effect: 'allow', results: [] }));
    expect(() => open(appended)).toThrow(expect.objectContaining({ code: 'ERR_STORE_INCONSISTENT', message: expect.stringMatching(/commit tag names a tree of 2 entries, the store holds 3/) }));
    // 2. ...with the tag row's size set to match: the tag is over another root.
    const resized = copy('resized');
    appendForged(resized, () => undefined);
    const h = openAsAttacker(resized);
    h.prepare('UPDATE commit_tag SET size = 3').run();
    h.close();
    expect(() => open(resized)).toThrow(expect.objectContaining({ message: expect.stringMatching(/commit tag does not match the stored tree/) }));
    // 3. The tag row deleted.
    const untagged = copy('untagged');
    const u = openAsAttacker(untagged);
    u.exec('DELETE FROM commit_tag');
    u.close();
    expect(() => open(untagged)).toThrow(expect.objectContaining({ message: expect.stringMatching(/1 entry after the newest signed checkpoint \(size 1\) carry no commit tag/) }));
    // The genuine tail opens and is signed.
    const s = openSqliteStore(path);
    const c = Appender.open({ origin: ORIGIN, storage: s, signers: keys.signers, verifiers: keys.verifiers, commitKey: COMMIT_KEY });
    expect((await c.checkpointNow()).size).toBe(2);
    await c.close();
    s.close();
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

  it('follow: false: durable at commit, signed and covered like any entry, but no proof is made and `signed` says where the receipt is', async () => {
    const store = openSqliteStore(tmp());
    // Count the tree-node reads inclusion proofs make: an unfollowed entry must cost none.
    let reads = 0;
    const counted = new Proxy(store, { get: (t, k) => (k === 'node' ? (...a: [number, number]) => (reads++, t.node(...a)) : Reflect.get(t, k, t)) });
    const appender = Appender.open({ origin: ORIGIN, storage: counted, signers: keys.signers, verifiers: keys.verifiers });
    const followed = await Promise.all(Array.from({ length: 8 }, (_, i) => appender.appendDurable(body(i))));
    await Promise.all(followed.map((d) => d.signed));
    const before = reads;
    const unfollowed = await Promise.all(Array.from({ length: 8 }, (_, i) => appender.appendDurable(body(8 + i), [], { follow: false })));
    expect(unfollowed.map((d) => d.seq)).toEqual([8, 9, 10, 11, 12, 13, 14, 15]);
    for (const d of unfollowed) await expect(d.signed).rejects.toMatchObject({ code: 'ERR_NOT_FOUND', message: expect.stringContaining('/v1/entries/') });
    // A followed append after them: its checkpoint covers the unfollowed ones too, and only its own proof is read.
    const last = await appender.append(body(16));
    expect(last.size).toBe(17);
    const cp = openCheckpoint(last.checkpoint, keys.verifiers);
    expect(verifyInclusion(last.seq, cp.size, hashLeaf(last.bytes), last.proof, cp.root)).toBe(true);
    expect(reads - before).toBeLessThanOrEqual(last.proof.length);
    await appender.close();
    // Each unfollowed entry is in the signed tree: its proof, made later from the store, verifies.
    const { inclusionProof } = await import('../../src/log/merkle.js');
    for (const d of unfollowed) expect(verifyInclusion(d.seq, cp.size, d.leaf, inclusionProof(d.seq, cp.size, store), cp.root)).toBe(true);
    expect(verifyLog(store, { origin: ORIGIN, verifiers: keys.verifiers }).findings).toEqual([]);
    store.close();
  });

  describe('pacing: minIntervalMs between checkpoint signatures', () => {
    // Callers arrive staggered (as HTTP requests do): each waits for its signed answer, then a moment.
    const run = async (minIntervalMs: number, loopers: number, each: number) => {
      const sizes: number[] = [];
      const store = openSqliteStore(tmp());
      const appender = Appender.open({ origin: ORIGIN, storage: store, signers: keys.signers, minIntervalMs, monotonic: () => performance.now(), onBatch: (s) => sizes.push(s.entries) });
      const t0 = performance.now();
      await Promise.all(Array.from({ length: loopers }, async (_, k) => {
        for (let i = 0; i < each; i++) {
          await appender.append(body(i));
          await new Promise((r) => setTimeout(r, (k * 7 + i) % 4));
        }
      }));
      const ms = performance.now() - t0;
      await appender.close();
      const report = verifyLog(store, { origin: ORIGIN, verifiers: keys.verifiers });
      expect(report.findings).toEqual([]);
      store.close();
      return { sizes, ms, signatures: report.checkpoints };
    };

    it('a sequential caller never waits for it', async () => {
      const { sizes, ms } = await run(250, 1, 6);
      expect(sizes).toEqual([1, 1, 1, 1, 1, 1]);
      expect(ms).toBeLessThan(1000); // six waits of 250 ms would be 1.5 s
    });

    it('under concurrent load, each signature covers more entries and their number falls', async () => {
      const eager = await run(0, 24, 12);
      const paced = await run(60, 24, 12);
      expect(paced.sizes.reduce((a, b) => a + b, 0)).toBe(24 * 12);
      expect(paced.signatures).toBeLessThan(eager.signatures);
    });

    it('under load a slow signer stretches the interval (signShare); a fast one signs minIntervalMs apart', async () => {
      // Stand-in signers that take a fixed time (the pacing reads only how long signing took):
      // noble's own time on a busy machine would blur the two cases.
      const gapsWith = async (signDelayMs: number) => {
        const starts: number[] = [];
        const store = openSqliteStore(tmp());
        const timed = keys.signers.map((s, i) => ({ ...s, sign: async () => (i === 0 && starts.push(performance.now()), await new Promise((r) => setTimeout(r, signDelayMs)), new Uint8Array(s.alg === 'Ed25519' ? 64 : 3309)) }));
        const appender = Appender.open({ origin: ORIGIN, storage: store, signers: timed, minIntervalMs: 10, signShare: 0.4, monotonic: () => performance.now() });
        const end = performance.now() + 600;
        await Promise.all(Array.from({ length: 16 }, async (_, k) => {
          let i = 0;
          while (performance.now() < end) await appender.append(body(k * 1000 + i++));
        }));
        await appender.close();
        store.close();
        const gaps = starts.slice(2).map((t, i) => t - starts[i + 1]).sort((a, b) => a - b);
        return gaps[Math.floor(gaps.length / 2)];
      };
      // Each signature takes 30 ms more: the next starts about 30 / 0.4 = 75, capped at 50 ms, after the last.
      expect(await gapsWith(30)).toBeGreaterThanOrEqual(48);
      // Signatures that take 1 ms: minIntervalMs apart, far fewer than 50 ms.
      expect(await gapsWith(1)).toBeLessThan(40);
    });

    it('with only durable callers waiting, signatures start durableIntervalMs apart; a signed caller brings back minIntervalMs', async () => {
      const starts: number[] = [];
      const store = openSqliteStore(tmp());
      const timed = keys.signers.map((s) => ({ ...s, sign: (m: Uint8Array) => (starts.push(performance.now()), s.sign(m)) }));
      const appender = Appender.open({ origin: ORIGIN, storage: store, signers: timed, minIntervalMs: 10, durableIntervalMs: 150, monotonic: () => performance.now() });
      const load = async (durable: boolean, ms: number) => {
        const end = performance.now() + ms;
        await Promise.all(Array.from({ length: 16 }, async (_, k) => {
          let i = 0;
          while (performance.now() < end) {
            if (durable) await appender.appendDurable!(body(k * 1000 + i++));
            else await appender.append(body(k * 1000 + i++));
          }
        }));
      };
      const gaps = () => {
        const mldsa = starts.filter((_, i) => i % keys.signers.length === 0);
        return mldsa.slice(1).map((t, i) => t - mldsa[i]);
      };
      await load(true, 1200);
      const durableGaps = gaps().slice(1); // the first signature of a run is not paced
      starts.length = 0;
      await load(false, 600);
      const signedGaps = gaps().slice(1);
      await appender.close();
      expect(verifyLog(store, { origin: ORIGIN, verifiers: keys.verifiers }).findings).toEqual([]);
      store.close();
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
      expect(durableGaps.length).toBeGreaterThan(3);
      expect(median(durableGaps)).toBeGreaterThanOrEqual(145);
      expect(median(signedGaps)).toBeLessThan(100);
    });
  });
});
