// Attacker: someone with file access to the log's data directory (keys included) cuts the log
// back to an older copy and lets it grow a different history. The log's own checks pass (every
// checkpoint in the copy is genuinely signed), but the witness remembers the larger tree it
// cosigned: it answers 409 (the size it holds) to the cut log and 422 to the forked one's proof,
// keeps its record, and the forked log's checkpoints and receipts carry no cosignature from it.
import Database from 'better-sqlite3';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toHex } from '../../src/canonical/index.js';
import { parseCheckpoint, parseNote } from '../../src/log/index.js';
import { parseCosignerVkeys, verifyWitnesses } from '../../src/witness/index.js';
import { startServe, type ServeChild } from '../cli/_serve.js';
import { checkpointOf, decide, startLog, startWitness, until, vouch, type WitnessChild } from '../witness/_procs.js';

const dir = mkdtempSync(join(tmpdir(), 'vouch-witness-attack-'));
const logData = join(dir, 'log');
const running: { stop(): Promise<unknown> }[] = [];
afterAll(async () => {
  for (const p of running) await p.stop();
});

function witnessRecord(path: string, origin: string) {
  const db = new Database(path, { readonly: true });
  try {
    const latest = db.prepare('SELECT size, root FROM witness_latest WHERE origin = ?').get(origin) as { size: number; root: Buffer };
    const refused = db.prepare('SELECT status FROM witness_refused WHERE origin = ? ORDER BY id').all(origin) as { status: number }[];
    return { size: latest.size, root: toHex(latest.root), refused: refused.map((r) => r.status) };
  } finally {
    db.close();
  }
}

describe('a witness against a log cut back and forked by someone with file access', () => {
  it('refuses to cosign, keeps its record, and receipts of the fork fail --min-witnesses 1', async () => {
    const first = await startServe(['--port', '0', '--data', logData, '--checkpoint-idle', '0'], { timeoutMs: 120_000 });
    const vkeys = await (await fetch(`${first.url}/.well-known/vouch/vkeys`)).text();
    const { origin } = await checkpointOf(first.url);
    await first.stop();
    const vkeyFile = join(dir, 'log.vkeys');
    writeFileSync(vkeyFile, vkeys);
    const w: WitnessChild = await startWitness(join(dir, 'w'), ['--name', 'w.example/witness', '--log', `${origin}=${vkeyFile}`]);
    running.push(w);
    const keys = w.vkeys.flatMap(parseCosignerVkeys);
    const cosigned = async (url: string) => until('a cosigned checkpoint', () => checkpointOf(url), (c) => verifyWitnesses(c.checkpoint, keys, 1).ok);

    // The honest log: cosigned at S1, then a copy taken, then more entries cosigned at S2.
    let log: ServeChild = await startLog(logData, [w]);
    await decide(log.url, 'one');
    const s1 = (await cosigned(log.url)).size;
    await log.stop();
    cpSync(logData, join(dir, 'snapshot'), { recursive: true });
    log = await startLog(logData, [w]);
    for (const t of ['two', 'three', 'four']) await decide(log.url, t);
    const honest = await until('S2 cosigned', () => checkpointOf(log.url), (c) => c.size > s1 + 2 && verifyWitnesses(c.checkpoint, keys, 1).ok);
    await log.stop();
    const s2 = honest.size;
    expect(witnessRecord(join(dir, 'w', 'witness.db'), origin)).toMatchObject({ size: s2, refused: [] });

    // The attack: the old copy back in place (the log's cosignature records with it), then new history.
    rmSync(logData, { recursive: true });
    cpSync(join(dir, 'snapshot'), logData, { recursive: true });
    log = await startLog(logData, [w]);
    running.push(log);
    await decide(log.url, 'forged one');
    // Cut back: the witness answers 409 with the size it holds.
    await until('409 from the witness', async () => witnessRecord(join(dir, 'w', 'witness.db'), origin), (r) => r.refused.includes(409));
    // Grown past S2 on the fork: the proof from S2 does not lead from the witness's root (422).
    let size = (await checkpointOf(log.url)).size;
    for (let i = 0; size <= s2 + 1; i++) size = (await decide(log.url, `forged ${i}`)).seq + 1;
    const record = await until('422 from the witness', async () => witnessRecord(join(dir, 'w', 'witness.db'), origin), (r) => r.refused.includes(422));
    // The witness's record is still the honest tree.
    expect(record.size).toBe(s2);
    expect(record.root).toBe(toHex(parseCheckpoint(parseNote(honest.checkpoint).text).root));

    // Nothing the fork serves carries the witness's cosignature, and receipts of it fail the policy.
    const { seq } = await decide(log.url, 'forged last');
    await new Promise((r) => setTimeout(r, 600)); // a few submission rounds
    const cp = await checkpointOf(log.url);
    expect(verifyWitnesses(cp.checkpoint, keys, 1).ok).toBe(false);
    const metrics = await (await fetch(`${log.url}/metrics`)).text();
    expect(Number(/vouch_witness_failures_total\{tenant="default",witness="w\.example\/witness"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThan(0);
    const { receipt } = (await (await fetch(`${log.url}/v1/entries/${seq}`)).json()) as { receipt: unknown };
    const rf = join(dir, 'forged-receipt.json');
    writeFileSync(rf, JSON.stringify(receipt));
    const v = vouch(['verify', rf, '--key', vkeyFile, '--witness', w.vkeys[0], '--min-witnesses', '1']);
    expect(v.status).toBe(1);
    expect(v.stdout).toMatch(/0 of the trusted witnesses cosigned this checkpoint, 1 required/);
    // Without a witness policy the same receipt verifies: only the witness can tell.
    expect(vouch(['verify', rf, '--key', vkeyFile]).status).toBe(0);
  }, 300_000);
});
