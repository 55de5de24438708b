// The Durable Object store inside workerd: the shared store conformance suite (the one SQLite
// passes), run inside a fresh object per test, plus what only the object's SQL storage has.
import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { DurableObjectState } from '@cloudflare/workers-types/index.ts';
import { openDurableObjectStore } from '../../../src/store/durable-object.js';
import type { LogStore } from '../../../src/store/index.js';
import { WORKER_MIGRATIONS } from '../../../src/worker/migrations.js';
import { runStoreConformance } from '../../store/conformance.js';

let n = 0;
/** A fresh object (its own SQLite database) per call; the body runs in the object's context. */
function inFreshObject<R>(body: (state: DurableObjectState) => R | Promise<R>, name = `store-${++n}-${Math.random()}`): Promise<R> {
  const stub = env.VOUCH_LOG.get(env.VOUCH_LOG.idFromName(name));
  return runInDurableObject(stub, (_instance, state) => body(state));
}

const storages = new WeakMap<LogStore, DurableObjectState['storage']>();
runStoreConformance(
  'durable object',
  {
    run: (body: (s: LogStore) => void | Promise<void>) =>
      inFreshObject((state) => {
        const s = openDurableObjectStore(state.storage, WORKER_MIGRATIONS);
        storages.set(s, state.storage);
        return body(s);
      }),
  },
  (s) => (query, ...bindings) => storages.get(s)!.sql.exec(query, ...bindings).toArray(),
);

describe('durable object store specifics', () => {
  it('applies the migrations in order, records them, and reopens without reapplying', async () => {
    const name = `reopen-${Math.random()}`;
    const versions = await inFreshObject((state) => {
      openDurableObjectStore(state.storage, WORKER_MIGRATIONS).close();
      openDurableObjectStore(state.storage, WORKER_MIGRATIONS).close();
      return state.storage.sql.exec('SELECT version, name FROM schema_migrations ORDER BY version').toArray();
    }, name);
    expect(versions).toEqual([
      { version: 1, name: 'log' },
      { version: 2, name: 'payloads' },
      { version: 3, name: 'rules_by_entry' },
      { version: 4, name: 'pin_entries' },
      { version: 5, name: 'key_entries' },
      { version: 6, name: 'commit_tag' },
      { version: 7, name: 'payload_retention' },
      { version: 8, name: 'entry_codec' },
      { version: 9, name: 'pruned_entries' },
    ]);
  });

  it('the triggers refuse UPDATE and DELETE on entries, nodes, checkpoints and documents', async () => {
    const refused = await inFreshObject((state) => {
      const s = openDurableObjectStore(state.storage, WORKER_MIGRATIONS);
      const h = new Uint8Array(32).fill(1);
      s.appendBatch({ entries: [{ seq: 0, bytes: new Uint8Array([1]), leaf: h }], nodes: [{ level: 0, index: 0, hash: h }], checkpoint: { size: 1, root: h, note: 'n\n' } });
      s.putDocument('chain', `sha256:${'ab'.repeat(32)}`, new Uint8Array([2]));
      const out: Record<string, string> = {};
      for (const sql of [
        "UPDATE entries SET bytes = x'02'",
        'DELETE FROM entries',
        'UPDATE nodes SET hash = zeroblob(32)',
        'DELETE FROM nodes',
        "UPDATE checkpoints SET note = 'x'",
        'DELETE FROM checkpoints',
        "UPDATE documents SET kind = 'policy'",
        'DELETE FROM documents',
      ]) {
        try {
          state.storage.sql.exec(sql);
          out[sql] = 'applied';
        } catch (e) {
          out[sql] = (e as Error).message;
        }
      }
      return { out, size: s.size() };
    });
    for (const [sql, msg] of Object.entries(refused.out)) expect(msg, sql).toMatch(/append-only/);
    expect(refused.size).toBe(1);
  });

  it('refuses a database with a migration it does not know', async () => {
    const err = await inFreshObject((state) => {
      openDurableObjectStore(state.storage, WORKER_MIGRATIONS);
      state.storage.sql.exec('INSERT INTO schema_migrations (version, name) VALUES (99, ?)', 'future');
      try {
        openDurableObjectStore(state.storage, WORKER_MIGRATIONS);
        return undefined;
      } catch (e) {
        return { code: (e as { code?: string }).code, message: (e as Error).message };
      }
    });
    expect(err).toEqual({ code: 'ERR_STORE', message: expect.stringMatching(/migration 99/) });
  });
});
