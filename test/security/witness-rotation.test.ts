// ATTACK (branch `attack`, issue 35 item 2 variants): a forger holding the CURRENT Ed25519 key and
// an OLD (rotated-out, or revoked) ML-DSA-65 key, against a witness configured with the log's key
// history (windows). And the reset-log tool against a record kept before notes existed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { formatVkey, type NoteSigner, type NoteVerifier } from '../../src/log/index.js';
import { addCheckpoint, createCosigner, formatAddCheckpoint, type WitnessOptions } from '../../src/witness/index.js';
import { resetWitnessedLog } from '../../src/witness/reset.js';
import { openWitnessState, type SqliteWitnessState } from '../../src/witness/state.js';
import { testKeys } from '../helpers/keys.js';
import { MemTree } from '../witness/_tree.js';

const ORIGIN = 'vouch.local/acme';
const oldKeys = testKeys(ORIGIN, 11);
const newKeys = testKeys(ORIGIN, 31);
const H = 3; // handover size
const cosigners = [createCosigner('w.example/1', 'Ed25519', new Uint8Array(32).fill(1)), createCosigner('w.example/1', 'ML-DSA-44', new Uint8Array(32).fill(2))];
const opened: SqliteWitnessState[] = [];
afterEach(() => opened.splice(0).forEach((s) => s.close()));

function witness(revokedAfter?: number): WitnessOptions & { state: SqliteWitnessState } {
  const state = openWitnessState(join(mkdtempSync(join(tmpdir(), 'vouch-attack-w-')), 'w.db'));
  opened.push(state);
  const verifiers: NoteVerifier[] = [
    ...oldKeys.verifiers.map((v) => ({ ...v, window: { from: 0, to: H, ...(revokedAfter !== undefined && { revokedAfter }) } })),
    ...newKeys.verifiers.map((v) => ({ ...v, window: { from: H } })),
  ];
  return { state, cosigners, logs: new Map([[ORIGIN, { origin: ORIGIN, verifiers }]]), now: () => 1_800_000_000 };
}

async function request(t: MemTree, old: number, signers: NoteSigner[]): Promise<string> {
  const by = new MemTree(ORIGIN, signers);
  by.leaves = [...t.leaves];
  return formatAddCheckpoint({ oldSize: old, proof: t.proof(old), checkpoint: await by.checkpoint() });
}

describe('witness across a rotation: old ML-DSA-65 line + current Ed25519 line', () => {
  for (const revokedAfter of [undefined, 1]) {
    it(`is refused (old key ${revokedAfter === undefined ? 'retired' : 'revoked'})`, async () => {
      const w = witness(revokedAfter);
      const t = new MemTree(ORIGIN, newKeys.signers).add('a', 'b', 'c', 'd');
      // The genuine log: size 3 by the outgoing keys (handover), size 4 by the new ones.
      expect(addCheckpoint(await request(t, 0, [...newKeys.signers]).then((r) => r), w).status).toBe(200);
      t.add('forged: dangerous_tool allow');
      const mixed = [oldKeys.signers[0], newKeys.signers[1]]; // old ML-DSA-65, current Ed25519
      const r = addCheckpoint(await request(t, 4, mixed), w);
      expect(r.status).toBe(403);
      expect(w.state.latest(ORIGIN)?.size).toBe(4);
      // At the handover size itself, a mixed set is no complete set either.
      const w2 = witness(revokedAfter);
      const t2 = new MemTree(ORIGIN, newKeys.signers).add('a', 'b', 'forged');
      expect(addCheckpoint(await request(t2, 0, mixed), w2).status).toBe(403);
    });
  }
});

describe('vouch witness reset-log against a record kept before notes (note NULL)', () => {
  it('a genuine legacy record is rolled back to an older genuine checkpoint without --force', async () => {
    const data = mkdtempSync(join(tmpdir(), 'vouch-attack-reset-'));
    const keys = testKeys(ORIGIN, 11);
    const w = openWitnessState(join(data, 'witness.db'));
    const t = new MemTree(ORIGIN, keys.signers).add('a', 'b', 'c', 'd', 'e');
    const opts: WitnessOptions = { state: w, cosigners, logs: new Map([[ORIGIN, { origin: ORIGIN, verifiers: keys.verifiers }]]), now: () => 1_800_000_000 };
    expect(addCheckpoint(formatAddCheckpoint({ oldSize: 0, proof: [], checkpoint: await t.checkpoint() }), opts).status).toBe(200);
    w.close();
    // A record as a witness before issue 35 kept it: no note column value.
    const db = new Database(join(data, 'witness.db'));
    db.prepare('UPDATE witness_latest SET note = NULL').run();
    db.close();
    const older = await t.checkpoint(2); // a genuine, older checkpoint of the same log
    const vkeys = keys.verifiers.map((v) => formatVkey(v.name, v.alg, v.publicKey)).join('\n');
    let outcome: string;
    try {
      const r = resetWitnessedLog({ data, log: { origin: ORIGIN, vkeys }, checkpoint: older, by: 'cli:attacker' });
      outcome = `reset to ${r.size} (forced: ${r.forced}, previous: ${r.previous?.status})`;
    } catch (e) {
      outcome = `refused: ${(e as Error).message}`;
    }
    console.log(outcome);
    // A roll-back of a record that is not shown to be poisoned should need --force, as for a checked one.
    expect(outcome).toMatch(/^refused/);
  });
});
