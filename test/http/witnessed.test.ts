// Issue 35, clean cut of the log's end: GET /v1/checkpoint (what the console's status bar shows)
// says how far the newest witness cosignature is behind the newest checkpoint: absent without a
// witness configured, current while the witness answers, N entries behind once it stops.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/http/node-server.js';
import { runWitness } from '../../src/witness/node-witness.js';
import { until } from '../witness/_procs.js';
import { get, post } from './_server.js';

const decide = (url: string, text: string) => post(`${url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text } } });

describe('GET /v1/checkpoint: witnessed', () => {
  it('absent without witnesses; the newest cosigned size, its witnesses and time, and how far behind it is', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-witnessed-'));
    const data = join(dir, 'data');
    let s = await startServer({ data, port: 0, idleCheckpointMs: 0 });
    expect((await decide(s.url, 'one')).status).toBe(200);
    const bare = (await get(`${s.url}/v1/checkpoint`)).json;
    expect(bare).not.toHaveProperty('witnessed');
    const vkeys = await (await fetch(`${s.url}/.well-known/vouch/vkeys`)).text();
    await s.close();

    const w = await runWitness({ data: join(dir, 'w'), name: 'w.example/1', logs: [{ origin: bare.origin, vkeys }], port: 0 });
    const cfg = join(dir, 'witnesses.json');
    writeFileSync(cfg, JSON.stringify({ witnesses: [{ url: w.url, vkeys: w.vkeys }], intervalMs: 100, timeoutMs: 1000, retries: 0 }));
    s = await startServer({ data, port: 0, idleCheckpointMs: 0, witnesses: cfg });
    try {
      expect((await decide(s.url, 'two')).status).toBe(200);
      const current = await until('cosigned up to the newest checkpoint', async () => (await get(`${s.url}/v1/checkpoint`)).json, (j) => j.witnessed?.size === j.size);
      expect(current.witnessed).toEqual({ size: current.size, checkpointSize: current.size, behind: 0, time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), witnesses: ['w.example/1'] });

      await w.close(); // the witness goes away: what it cosigned last stays, the log moves on
      for (const t of ['three', 'four', 'five']) expect((await decide(s.url, t)).status).toBe(200);
      const behind = await until('the log past the cosigned size', async () => (await get(`${s.url}/v1/checkpoint`)).json, (j) => j.size >= current.size + 3);
      expect(behind.witnessed).toEqual({ ...current.witnessed, checkpointSize: behind.size, behind: behind.size - current.size });
      expect(behind.witnessed.behind).toBeGreaterThanOrEqual(3);
    } finally {
      await s.close();
    }
  }, 120_000);
});
