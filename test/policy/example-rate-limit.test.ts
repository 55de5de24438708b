// Issue 37 item 2: the example's rate limit (120 calls a minute per principal and tool) refused any
// warm-up or benchmark of the example itself. A warm-up: a few hundred calls of one tool by one
// principal inside one window, through the whole example chain with a real log; every one allowed,
// and the recorded count and limit say how close it came.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { activatePolicy, decide } from '../../src/decide/index.js';
import { createMemoryStateStores } from '../../src/interceptors/builtin/index.js';
import { Appender } from '../../src/log/index.js';
import { loadConfigFile } from '../../src/policy/load-config.js';
import { logPortOf } from '../../src/store/log-port.js';
import { openSqliteStore } from '../../src/store/node.js';
import { testKeys } from '../helpers/keys.js';

const EXAMPLE = fileURLToPath(new URL('../../fixtures/config/vouch.example.yaml', import.meta.url));
const WARM_UP = 600;

describe('the example chain lets a warm-up through', () => {
  it(`${WARM_UP} calls of echo by one principal in one minute are all allowed`, async () => {
    const store = openSqliteStore(join(mkdtempSync(join(tmpdir(), 'vouch-rate-')), 'log.db'));
    const appender = Appender.open({ origin: 'rate.vouch/default', storage: store, signers: testKeys().signers });
    const log = logPortOf('rate.vouch/default', store, appender);
    const policy = await activatePolicy(await loadConfigFile(EXAMPLE), { state: createMemoryStateStores(), remote: 'offline' });
    try {
      const call = (i: number) =>
        decide(
          {
            event: 'tools/call',
            phase: 'request',
            payload: { name: 'echo', arguments: { message: `warm-up ${i}` } },
            // One fixed window: the seconds within the minute vary, the window does not.
            context: { time: `2026-03-01T12:00:${String(i % 60).padStart(2, '0')}Z`, tenant: 'default', principal: 'bench', roles: ['tool-user'], server: 'everything' },
          },
          { policy, log },
        );
      const effects: string[] = [];
      let last: Awaited<ReturnType<typeof call>> | undefined;
      // In batches (group commit signs each batch once), in order, so the last one holds the highest count.
      for (let i = 0; i < WARM_UP; i += 100) {
        const batch = await Promise.all(Array.from({ length: 100 }, (_, j) => call(i + j)));
        effects.push(...batch.map((o) => o.effect));
        last = batch[batch.length - 1];
      }
      expect(effects.filter((e) => e !== 'allow')).toEqual([]);
      const rate = last!.chain.results.find((r) => r.interceptor === 'rate') as { info?: { count: number; limit: number } };
      expect(rate.info!.count).toBe(WARM_UP);
      expect(rate.info!.limit).toBeGreaterThanOrEqual(10 * WARM_UP); // room for a benchmark of a few thousand calls
    } finally {
      await policy.close();
      await appender.close();
      store.close();
    }
  }, 120_000);
});
