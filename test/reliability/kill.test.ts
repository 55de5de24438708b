// The service SIGKILLed mid-load (the whole process group, no shutdown code runs), restarted on
// the same data dir while clients that got no answer retry: every receipt a client holds names
// an entry that is in the log with the same bytes, and the log verifies with nothing half-written.
// Half the decisions ask for wait "durable" (answered before any signature covers them): after
// the restart each of those entries is in the log, byte for byte, under a signed checkpoint.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decide, drive, failedChecks, runCli, spawnService, trustOf, type Service } from './_service.js';

const TOTAL = 600;
const CLIENTS = 32;
const KILL_AFTER = 300;

describe('kill -9 mid-load', () => {
  it('keeps every answered decision; the log verifies after restart', async () => {
    const data = join(mkdtempSync(join(tmpdir(), 'vouch-kill-')), 'data');
    let svc: Service = await spawnService(data);
    const trust = await trustOf(svc.url);
    let answered = 0;
    let retries = 0;
    // Set while the service is down; clients without an answer wait on it, then retry.
    let restarted: Promise<Service> | undefined;
    const killAndRestart = () => {
      const dead = svc;
      process.kill(-dead.child.pid!, 'SIGKILL');
      restarted = dead.exited.then(() => spawnService(data)).then((s) => (svc = s));
    };
    const send = async (i: number) => {
      for (let attempt = 0; attempt < 20; attempt++) {
        const url = svc.url;
        try {
          return await decide(url, i, { durable: true });
        } catch (e) {
          retries++;
          if (!restarted) throw e; // a failure with the service up is a real failure
          await restarted;
        }
      }
      throw new Error(`decision ${i}: no answer after 20 attempts`);
    };
    let answers;
    try {
      answers = await drive(TOTAL, CLIENTS, send, () => {
        if (++answered === KILL_AFTER) killAndRestart();
      });
      await restarted;
      expect(retries).toBeGreaterThan(0); // the kill did land mid-load
      const signed = answers.filter((a) => a.receipt);
      const durable = answers.filter((a) => a.durable);
      expect(durable.length).toBeGreaterThan(TOTAL / 3);
      const bad = signed.flatMap((a, i) => failedChecks(trust, a.receipt).map((f) => `#${i}: ${f}`));
      expect(bad).toEqual([]);
      // Every answered entry is in the log at its seq, byte for byte; durable ones now under a signed checkpoint too.
      const missing: number[] = [];
      const uncovered: string[] = [];
      for (const a of answers) {
        // One retry: a keep-alive socket the server closes as the client reuses it is a client race, not a lost entry.
        const res = await fetch(`${svc.url}/v1/entries/${a.seq}`).catch(() => fetch(`${svc.url}/v1/entries/${a.seq}`));
        const json = res.status === 200 ? await res.json() : undefined;
        if (json?.receipt?.entry !== (a.receipt ?? a.durable)!.entry) missing.push(a.seq);
        if (a.durable && json?.receipt) uncovered.push(...failedChecks(trust, json.receipt).map((f) => `#${a.seq}: ${f}`));
      }
      expect(missing).toEqual([]);
      expect(uncovered).toEqual([]);
    } finally {
      svc.child.kill('SIGTERM');
    }
    expect(await svc.exited).toBe(0);
    expect(new Set(answers.map((a) => a.seq)).size).toBe(TOTAL);

    const verify = runCli(['log', 'verify', '--data', data, '--json']);
    expect(verify.status).toBe(0);
    expect(verify.json.ok).toBe(true);
    const log = verify.json.logs[0];
    expect(log.findings).toEqual([]);
    expect(log.size).toBe(log.entries); // no half-written entry past the tree
    // Decisions lost in flight are possible (never answered); extra ones beyond those retried are not.
    const replay = runCli(['replay', '--data', data, '--json']);
    expect(replay.json).toMatchObject({ ok: true, mismatch: 0, unreplayable: 0 });
    expect(replay.json.decisions).toBeGreaterThanOrEqual(TOTAL);
    expect(replay.json.decisions).toBeLessThanOrEqual(TOTAL + retries);
  }, 120_000);
});
