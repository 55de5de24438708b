// The real service under load: 32 concurrent clients over loopback, every receipt verified, then
// after SIGTERM the log verifies, holds exactly the decisions answered (no gaps), and replays.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decide, drive, failedChecks, runCli, spawnService, trustOf } from './_service.js';

const TOTAL = 600;
const CLIENTS = 32;

describe('load: 600 decisions from 32 concurrent clients', () => {
  it('answers every decision with a verifying receipt; the log is clean, gapless and replays', async () => {
    const data = join(mkdtempSync(join(tmpdir(), 'vouch-load-')), 'data');
    const svc = await spawnService(data);
    let answers;
    try {
      const trust = await trustOf(svc.url);
      answers = await drive(TOTAL, CLIENTS, (i) => decide(svc.url, i));
      const bad = answers.flatMap((a, i) => failedChecks(trust, a.receipt).map((f) => `#${i}: ${f}`));
      expect(bad).toEqual([]);
    } finally {
      svc.child.kill('SIGTERM');
    }
    expect(await svc.exited).toBe(0);
    expect(answers.filter(Boolean)).toHaveLength(TOTAL);
    // Every kind of decision took part.
    expect(new Set(answers.map((a) => a.kind))).toEqual(new Set(['echo', 'denied', 'pii']));

    const verify = runCli(['log', 'verify', '--data', data, '--json']);
    expect(verify.status).toBe(0);
    expect(verify.json.ok).toBe(true);
    const log = verify.json.logs[0];
    expect(log.findings).toEqual([]);

    const replay = runCli(['replay', '--data', data, '--json']);
    expect(replay.status).toBe(0);
    expect(replay.json).toMatchObject({ ok: true, decisions: TOTAL, match: TOTAL, mismatch: 0, unreplayable: 0 });
    // entries = decisions answered + policy activations: nothing extra, nothing lost.
    expect(log.entries).toBe(TOTAL + (replay.json.other.policy ?? 0));
    // Sequence numbers: each answer has its own seq, and with the policy entries they fill 0..size-1.
    const seqs = answers.map((a) => a.seq).sort((x, y) => x - y);
    expect(new Set(seqs).size).toBe(TOTAL);
    expect(seqs[seqs.length - 1]).toBeLessThan(log.size);
    expect(log.size).toBe(log.entries);
  }, 120_000);
});
