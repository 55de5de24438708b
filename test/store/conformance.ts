// The store conformance suite: every LogStore implementation (SQLite on Node, the Durable Object
// on Workers) must pass it unchanged. Call runStoreConformance with a factory for fresh stores,
// or, where a store can only be used inside its owner's context (a Durable Object's storage is
// bound to the object), with `{ run }`: run(body) calls body with a fresh store in that context.
import { describe, expect, it } from 'vitest';
import type { LogStore } from '../../src/store/index.js';

export type StoreFactory = () => Promise<LogStore> | LogStore;
export type StoreRunner = (body: (s: LogStore) => void | Promise<void>) => Promise<void>;
/** SQL on the store's own database, beside the store (what someone with the data files, or an older version, leaves there). */
export type RawSql = (s: LogStore) => (query: string, ...bindings: unknown[]) => Record<string, unknown>[];

const h = (b: number) => new Uint8Array(32).fill(b);
const bytes = (s: string) => new TextEncoder().encode(s);

export function runStoreConformance(name: string, factory: StoreFactory | { run: StoreRunner }, raw: RawSql): void {
  const withStore: StoreRunner = typeof factory === 'function' ? async (body) => body(await factory()) : factory.run;
  describe(`store conformance: ${name}`, () => {
    it('starts empty', () =>
      withStore(async (s) => {
        expect(s.size()).toBe(0);
        expect(s.latestCheckpoint()).toBeUndefined();
        expect(s.entry(0)).toBeUndefined();
        expect([...s.entries(0, 10)]).toEqual([]);
        s.close();
      }));

    it('writes a batch atomically and reads it back exactly', () =>
      withStore(async (s) => {
        s.appendBatch({
          entries: [
            { seq: 0, bytes: bytes('{"a":1}'), leaf: h(1) },
            { seq: 1, bytes: bytes('{"a":2}'), leaf: h(2) },
          ],
          nodes: [
            { level: 0, index: 0, hash: h(1) },
            { level: 0, index: 1, hash: h(2) },
            { level: 1, index: 0, hash: h(3) },
          ],
          checkpoint: { size: 2, root: h(3), note: 'note\n' },
          payloads: [{ digest: 'sha256:' + 'ab'.repeat(32), bytes: bytes('{"p":1}') }],
        });
        expect(s.size()).toBe(2);
        expect(s.entry(1)).toEqual({ seq: 1, bytes: bytes('{"a":2}'), leaf: h(2) });
        expect([...s.entries(0, 2)].map((e) => e.seq)).toEqual([0, 1]);
        expect([...s.entries(1, 5)].map((e) => e.seq)).toEqual([1]);
        expect(s.node(1, 0)).toEqual(h(3));
        expect(s.latestCheckpoint()).toEqual({ size: 2, root: h(3), note: 'note\n' });
        expect(s.checkpointAt(2)?.note).toBe('note\n');
        expect(s.checkpointAt(1)).toBeUndefined();
        expect(s.payload(('sha256:' + 'ab'.repeat(32)) as `sha256:${string}`)).toEqual(bytes('{"p":1}'));
        s.close();
      }));

    it('a failing batch writes nothing', () =>
      withStore(async (s) => {
        s.appendBatch({ entries: [{ seq: 0, bytes: bytes('x'), leaf: h(1) }], nodes: [{ level: 0, index: 0, hash: h(1) }], checkpoint: { size: 1, root: h(1), note: 'n1\n' } });
        // seq 0 again: the primary key refuses, and the new checkpoint must not land either.
        expect(() =>
          s.appendBatch({
            entries: [
              { seq: 1, bytes: bytes('y'), leaf: h(2) },
              { seq: 0, bytes: bytes('z'), leaf: h(3) },
            ],
            nodes: [],
            checkpoint: { size: 2, root: h(9), note: 'n2\n' },
          }),
        ).toThrow(expect.objectContaining({ code: 'ERR_STORE' }));
        expect(s.size()).toBe(1);
        expect(s.latestCheckpoint()?.size).toBe(1);
        expect(s.entry(1)).toBeUndefined();
        s.close();
      }));

    it('missing nodes throw ERR_NOT_FOUND', () =>
      withStore(async (s) => {
        expect(() => s.node(0, 0)).toThrow(expect.objectContaining({ code: 'ERR_NOT_FOUND' }));
        s.close();
      }));

    it('payloads are erasable, documents and meta persist', () =>
      withStore(async (s) => {
        const d = ('sha256:' + 'cd'.repeat(32)) as `sha256:${string}`;
        s.putPayload(d, bytes('secret'));
        expect(s.erasePayload(d)).toBe(true);
        expect(s.payload(d)).toBeUndefined();
        expect(s.erasePayload(d)).toBe(false);
        s.putDocument('chain', d, bytes('{"c":1}'));
        s.putDocument('chain', d, bytes('{"c":1}')); // idempotent
        expect(s.document(d)).toEqual({ kind: 'chain', bytes: bytes('{"c":1}') });
        s.setMeta('origin', 'o/1');
        // meta is set once (migration 0003): what could change the rules lives in entries instead.
        expect(() => s.setMeta('origin', 'o/2')).toThrow(/append-only: meta/);
        expect(s.meta('origin')).toBe('o/1');
        expect(s.meta('nope')).toBeUndefined();
        s.close();
      }));

    it('payload retention: the index keeps the newest commit naming each payload; the erase re-checks it', () =>
      withStore(async (s) => {
        const [a, b, c] = ['a1', 'b2', 'c3'].map((x) => ('sha256:' + x.repeat(32)) as `sha256:${string}`);
        const batch = (from: number, n: number, payloads: { digest: `sha256:${string}`; bytes: Uint8Array }[]) =>
          s.appendBatch({
            entries: Array.from({ length: n }, (_, i) => ({ seq: from + i, bytes: bytes(`{"e":${from + i}}`), leaf: h(from + i + 1) })),
            nodes: [],
            checkpoint: { size: from + n, root: h(from + n), note: `n${from + n}\n` },
            payloads,
          });
        batch(0, 2, [{ digest: a, bytes: bytes('A') }, { digest: b, bytes: bytes('B') }]); // both named by seq <= 1
        batch(2, 2, [{ digest: c, bytes: bytes('C') }]); // seq <= 3
        expect(s.expiredPayloads!(0, 10)).toEqual([]);
        expect(s.expiredPayloads!(1, 10)).toEqual([]); // seq 1 may name a and b
        expect(new Set(s.expiredPayloads!(2, 10))).toEqual(new Set([a, b]));
        expect(s.expiredPayloads!(2, 1)).toHaveLength(1);
        const all = s.expiredPayloads!(4, 10);
        expect(new Set(all)).toEqual(new Set([a, b, c]));
        expect(all[2]).toBe(c); // oldest first
        // b named again by a newer commit: its index moves forward, never back.
        batch(4, 1, [{ digest: b, bytes: bytes('B') }]);
        expect(s.expiredPayloads!(4, 10)).toEqual([a, c]);
        // Stored again outside a commit: bounded by the next seq (5).
        s.putPayload(a, bytes('A'));
        expect(s.expiredPayloads!(5, 10)).toEqual([c, b]);
        expect(s.expiredPayloads!(6, 10)).toEqual([c, b, a]);
        // Listed at one cut-off, named again before the erase: kept.
        expect(s.eraseExpiredPayload!(b, 4)).toBe(false);
        expect(s.payload(b)).toEqual(bytes('B'));
        expect(s.eraseExpiredPayload!(c, 4)).toBe(true);
        expect(s.payload(c)).toBeUndefined();
        expect(s.eraseExpiredPayload!(c, 4)).toBe(false);
        expect(s.expiredPayloads!(100, 10)).toEqual([b, a]);
        s.close();
      }));

    it('payload retention: rows from before migration 0007 (no index) go only once the cut-off passes payload_seq_floor', () =>
      withStore(async (s) => {
        const sql = raw(s);
        const [a, b] = ['a1', 'b2'].map((x) => ('sha256:' + x.repeat(32)) as `sha256:${string}`);
        s.appendBatch({
          entries: [0, 1, 2].map((i) => ({ seq: i, bytes: bytes(`{"e":${i}}`), leaf: h(i + 1) })),
          nodes: [],
          checkpoint: { size: 3, root: h(3), note: 'n3\n' },
          payloads: [{ digest: a, bytes: bytes('A') }],
        });
        s.putPayload(b, bytes('B')); // last_seq 3
        // As an older version left the log: a's row without an index, the log 3 entries long at the migration.
        sql('UPDATE payloads SET last_seq = NULL WHERE digest = ?', a);
        const trigger = sql("SELECT sql FROM sqlite_master WHERE name = 'meta_no_delete'")[0].sql as string;
        sql('DROP TRIGGER meta_no_delete');
        sql("DELETE FROM meta WHERE key = 'payload_seq_floor'");
        sql(trigger);
        s.setMeta('payload_seq_floor', '3');
        expect(s.expiredPayloads!(2, 10)).toEqual([]);
        expect(s.eraseExpiredPayload!(a, 2)).toBe(false);
        expect(s.expiredPayloads!(3, 10)).toEqual([a]);
        expect(s.expiredPayloads!(4, 10)).toEqual([b, a]); // indexed rows first
        expect(s.expiredPayloads!(4, 1)).toEqual([b]);
        expect(s.eraseExpiredPayload!(a, 3)).toBe(true);
        expect(s.payload(a)).toBeUndefined();
        // A floor someone made unreadable: those rows count as named just now, nothing erased early.
        sql('INSERT INTO payloads (digest, bytes, last_seq) VALUES (?, ?, NULL)', a, bytes('A'));
        sql('DROP TRIGGER meta_no_delete');
        sql("DELETE FROM meta WHERE key = 'payload_seq_floor'");
        sql(trigger);
        s.setMeta('payload_seq_floor', 'three');
        expect(s.expiredPayloads!(1_000_000, 10)).toEqual([b]);
        expect(s.eraseExpiredPayload!(a, 1_000_000)).toBe(false);
        expect(s.payload(a)).toEqual(bytes('A'));
        s.close();
      }));

    it('closed stores refuse work', () =>
      withStore(async (s) => {
        s.close();
        expect(() => s.size()).toThrow(expect.objectContaining({ code: 'ERR_STORE_CLOSED' }));
      }));
  });
}
