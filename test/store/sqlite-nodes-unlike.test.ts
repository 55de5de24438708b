// The SQLite store compares a level's nodes with given hashes in SQL (nodesUnlike: log verify reads
// none back where they agree): it must say what reading them and comparing each would say, about
// equal, changed and missing nodes, at any offset into the range and at its ends.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concatBytes } from '../../src/canonical/index.js';
import { logPath, openSqliteStore } from '../../src/store/node.js';
import { openAsAttacker } from '../security/_file-attacker.js';
import { makeLog, scratchDirs } from './_archive-log.js';

const dirs = scratchDirs('vouch-nodes-unlike-');
let data: string;

beforeAll(async () => {
  data = await makeLog(300, 'agent', join(dirs.tempDir('vouch-nodes-unlike-'), 'data'));
}, 60_000);
afterAll(() => dirs.removeAll());

/** What reading each node and comparing it says. */
function byReading(store: ReturnType<typeof openSqliteStore>, level: number, lo: number, hashes: Uint8Array) {
  const n = hashes.length / 32;
  const got = new Map([...store.nodeRange!(level, lo, lo + n - 1)].map((x) => [x.index, x.hash]));
  const unlike: number[] = [];
  for (let i = 0; i < n; i++) {
    const h = got.get(lo + i);
    if (h && Buffer.compare(h, hashes.subarray(32 * i, 32 * i + 32)) !== 0) unlike.push(lo + i);
  }
  return { stored: got.size, unlike };
}

describe('SqliteLogStore.nodesUnlike', () => {
  it('agrees with reading the nodes back, for equal, changed and missing nodes', () => {
    const copy = dirs.copyOf(data);
    const db = openAsAttacker(logPath(copy, 'default'));
    db.prepare('UPDATE nodes SET hash = ? WHERE level = 0 AND idx = 17').run(Buffer.alloc(32, 1));
    db.prepare('DELETE FROM nodes WHERE level = 0 AND idx = 40').run();
    db.prepare('UPDATE nodes SET hash = ? WHERE level = 2 AND idx = 5').run(Buffer.alloc(32, 2));
    db.close();
    const store = openSqliteStore(logPath(copy, 'default'), { readonly: true });
    try {
      const genuine = openSqliteStore(logPath(data, 'default'), { readonly: true });
      const cases: [number, number, number][] = [[0, 0, 64], [0, 17, 1], [0, 16, 30], [0, 40, 1], [0, 290, 20], [2, 0, 70], [2, 5, 1], [1, 3, 12]];
      for (const [level, lo, n] of cases) {
        const hashes = concatBytes(...Array.from({ length: n }, (_, k) => (lo + k) * 2 ** level < 300 ? genuine.node(level, lo + k) : new Uint8Array(32)));
        expect(store.nodesUnlike!(level, lo, hashes), `${level}/${lo}+${n}`).toEqual(byReading(store, level, lo, hashes));
      }
      // What the genuine file holds agrees with itself everywhere; a flipped byte in the hashes given is named.
      const all = concatBytes(...Array.from({ length: 299 }, (_, k) => genuine.node(0, k)));
      expect(genuine.nodesUnlike!(0, 0, all)).toEqual({ stored: 299, unlike: [] });
      all[32 * 123 + 31] ^= 1;
      expect(genuine.nodesUnlike!(0, 0, all)).toEqual({ stored: 299, unlike: [123] });
      expect(store.nodesUnlike!(0, 0, all)).toEqual({ stored: 298, unlike: [17, 123] });
      genuine.close();
    } finally {
      store.close();
    }
  });
});
