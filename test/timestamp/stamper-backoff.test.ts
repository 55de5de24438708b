// A TSA that is down is retried on the stamper's backoff schedule (doubling from backoffMs, capped
// at maxBackoffMs), read on the clock the stamper is given: a real HTTP TSA answering 500, a clock
// the test moves, and the requests the TSA saw counted. No request comes before its retry time.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TimestampStamper, type TsaStatus } from '../../src/timestamp/stamper.js';
import { openTimestampStore, type TimestampStore } from '../../src/timestamp/store.js';

let server: Server;
let url: string;
let requests = 0;
let dir: string;
let store: TimestampStore;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    req.resume().on('end', () => res.writeHead(500).end('down'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tsa`;
  dir = mkdtempSync(join(tmpdir(), 'vouch-stamper-backoff-'));
  store = openTimestampStore(join(dir, 'timestamps.db'));
});

afterAll(async () => {
  store?.close();
  await new Promise((r) => server?.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe('TimestampStamper backoff', () => {
  it('waits 1, 2, 4 s, then the 4 s cap, between tries at a failing TSA, on its own clock', async () => {
    let now = 0;
    const statuses: TsaStatus[] = [];
    const stamper = new TimestampStamper({
      source: { origin: 'vouch.local/t', latestCheckpoint: async () => ({ size: 1, root: new Uint8Array(32), note: 'vouch.local/t\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n' }) },
      store,
      url,
      pinned: [],
      backoffMs: 1000,
      maxBackoffMs: 4000,
      nowMs: () => now,
      onStatus: (s) => statuses.push(s),
    });
    const seen: [number, number][] = [];
    for (const t of [0, 999, 1000, 2999, 3000, 6999, 7000, 10_999, 11_000]) {
      now = t;
      await stamper.tick();
      seen.push([t, requests]);
    }
    await stamper.close();
    expect(seen).toEqual([[0, 1], [999, 1], [1000, 2], [2999, 2], [3000, 3], [6999, 3], [7000, 4], [10_999, 4], [11_000, 5]]);
    expect(statuses).toHaveLength(5);
    for (const s of statuses) expect(s).toMatchObject({ ok: false, size: 1, error: 'ERR_TSA: TSA answered HTTP 500' });
  });
});
