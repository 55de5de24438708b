// The store conformance suite: every LogStore implementation (SQLite on Node, the Durable Object
// on Workers) must pass it unchanged. Call runStoreConformance with a factory for fresh stores,
// or, where a store can only be used inside its owner's context (a Durable Object's storage is
// bound to the object), with `{ run }`: run(body) calls body with a fresh store in that context.
import { describe, expect, it } from 'vitest';
import type { LogStore } from '../../src/store/index.js';

export type StoreFactory = () => Promise<LogStore> | LogStore;
export type StoreRunner = (body: (s: LogStore) => void | Promise<void>) => Promise<void>;

const h = (b: number) => new Uint8Array(32).fill(b);
const bytes = (s: string) => new TextEncoder().encode(s);

export function runStoreConformance(name: string, factory: StoreFactory | { run: StoreRunner }): void {
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

    it('closed stores refuse work', () =>
      withStore(async (s) => {
        s.close();
        expect(() => s.size()).toThrow(expect.objectContaining({ code: 'ERR_STORE_CLOSED' }));
      }));
  });
}
