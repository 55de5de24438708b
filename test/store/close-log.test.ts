// One tenant's log closed while others stay open (issue 40, many tenants), through the real log
// writer thread and SQLite: appends made before the close are committed and signed before it
// returns (none lost), appends on the closed object are refused with ERR_STORE_CLOSED, the lock
// is released, and the log opens again, checked like any open, its entries intact.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeWork } from '../../bench/log.bench.js';
import { checkSignedTree } from '../../src/log/index.js';
import { initDataDir, openDataDir } from '../../src/store/node.js';

const root = mkdtempSync(join(tmpdir(), 'vouch-close-log-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('DataDir.closeLog', () => {
  it('waits for the appends before it, refuses later ones, and the log reopens with every entry', async () => {
    const dir = join(root, 'data');
    initDataDir(dir);
    const dd = await openDataDir(dir, { thread: true, logThread: true });
    try {
      const a = dd.log('acme');
      const other = dd.log('other');
      await Promise.all([a.ready, other.ready]);
      // Appended and not awaited: the close must not overtake them.
      const inFlight = Array.from({ length: 50 }, (_, i) => a.appender.append(makeWork(i).body, makeWork(i).attachments));
      const closed = dd.closeLog('acme');
      expect(() => dd.log('acme')).toThrow(/being closed/);
      await closed;
      const appended = await Promise.all(inFlight);
      expect(appended.map((x) => x.seq).sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i));
      await expect(a.appender.append(makeWork(99).body)).rejects.toMatchObject({ code: 'ERR_STORE_CLOSED' });
      expect(dd.openTenants()).toEqual(['other']);
      // The other tenant was not touched.
      expect((await other.appender.append(makeWork(1).body, makeWork(1).attachments)).seq).toBe(0);
      // Reopened: checked against its newest signed checkpoint, which covers all 50.
      const again = dd.log('acme');
      expect(again).not.toBe(a);
      await again.ready;
      expect(again.store.size()).toBe(50);
      expect(again.store.latestCheckpoint()?.size).toBe(50);
      expect(() => checkSignedTree(again.store, again.origin, again.verifiers)).not.toThrow();
      expect((await again.appender.append(makeWork(50).body, makeWork(50).attachments)).seq).toBe(50);
    } finally {
      await dd.close();
    }
  }, 60_000);
});
