// The witness's add-checkpoint rules (c2sp.org/tlog-witness), each status code the spec gives,
// over its real SQLite state: 200 + cosignatures, 409 with the size held, 422 for a bad proof,
// 404 / 403 / 400, and the record surviving a reopen.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCosigner, formatAddCheckpoint, addCheckpoint, verifyWitnesses, type WitnessOptions } from '../../src/witness/index.js';
import { openWitnessState, type SqliteWitnessState } from '../../src/witness/state.js';
import { testKeys } from '../helpers/keys.js';
import { MemTree } from './_tree.js';

const ORIGIN = 'vouch.local/acme';
const log = testKeys(ORIGIN, 11);
const stranger = testKeys(ORIGIN, 21);
const cosigners = [createCosigner('w.example/1', 'Ed25519', new Uint8Array(32).fill(1)), createCosigner('w.example/1', 'ML-DSA-44', new Uint8Array(32).fill(2))];
const opened: SqliteWitnessState[] = [];

function witness(path = join(mkdtempSync(join(tmpdir(), 'vouch-w-')), 'w.db')): WitnessOptions & { path: string; state: SqliteWitnessState } {
  const state = openWitnessState(path);
  opened.push(state);
  return { path, state, cosigners, logs: new Map([[ORIGIN, { origin: ORIGIN, verifiers: log.verifiers }]]), now: () => 1_800_000_000 };
}
afterEach(() => opened.splice(0).forEach((s) => s.close()));

const body = async (t: MemTree, old: number, size = t.size, proof = t.proof(old, size)) => formatAddCheckpoint({ oldSize: old, proof, checkpoint: await t.checkpoint(size) });

describe('witness add-checkpoint', () => {
  it('cosigns a first checkpoint and then only consistent extensions of it', async () => {
    const w = witness();
    const t = new MemTree(ORIGIN, log.signers).add('a', 'b', 'c');
    const r = addCheckpoint(await body(t, 0), w);
    expect(r.status).toBe(200);
    const note = (await t.checkpoint()) + r.body;
    expect(verifyWitnesses(note, cosigners, 1)).toMatchObject({ ok: true, cosignatures: [{ alg: 'Ed25519', timestamp: 1_800_000_000 }, { alg: 'ML-DSA-44' }] });
    t.add('d', 'e');
    expect(addCheckpoint(await body(t, 3), w).status).toBe(200);
    expect(w.state.latest(ORIGIN)?.size).toBe(5);
  });

  it('409 with the size it holds when old is not its latest; the client retries from it', async () => {
    const w = witness();
    const t = new MemTree(ORIGIN, log.signers).add('a', 'b', 'c', 'd');
    addCheckpoint(await body(t, 0), w);
    t.add('e');
    const r = addCheckpoint(await body(t, 0), w);
    expect(r).toMatchObject({ status: 409, contentType: 'text/x.tlog.size', body: '4\n' });
    expect(addCheckpoint(await body(t, 4), w).status).toBe(200);
  });

  it('refuses a truncated log (409: old size 4 is not 6) and a forked one (409 same size, 422 proof)', async () => {
    const w = witness();
    const t = new MemTree(ORIGIN, log.signers).add('a', 'b', 'c', 'd', 'e', 'f');
    addCheckpoint(await body(t, 0), w);
    const cut = new MemTree(ORIGIN, log.signers).add('a', 'b', 'c', 'd');
    expect(addCheckpoint(await body(cut, 4), w).status).toBe(409);
    expect(addCheckpoint(await body(cut, 6, 4, []), w).status).toBe(400); // old > size
    const fork = new MemTree(ORIGIN, log.signers).add('a', 'b', 'c', 'X', 'e', 'f');
    expect(addCheckpoint(await body(fork, 6, 6, []), w).status).toBe(409);
    fork.add('g');
    // The fork's own proof from 6 to 7 does not lead from the witness's root of size 6.
    expect(addCheckpoint(await body(fork, 6, 7, fork.proof(6, 7)), w).status).toBe(422);
    expect(w.state.latest(ORIGIN)?.size).toBe(6);
    expect(w.state.refusals(ORIGIN).map((x) => x.status)).toEqual([409, 409, 422]);
  });

  it('404 unknown origin, 403 no trusted signature, 400 malformed', async () => {
    const w = witness();
    const other = new MemTree('other.example/log', log.signers).add('a');
    expect(addCheckpoint(await body(other, 0), w).status).toBe(404);
    const forged = new MemTree(ORIGIN, stranger.signers).add('a');
    expect(addCheckpoint(await body(forged, 0), w).status).toBe(403);
    expect(addCheckpoint('old 01\n\n' + (await forged.checkpoint()), w).status).toBe(400);
    expect(addCheckpoint('nonsense', w).status).toBe(400);
    expect(w.state.latest(ORIGIN)).toBeUndefined();
  });

  it('keeps its record across a reopen', async () => {
    const w = witness();
    const t = new MemTree(ORIGIN, log.signers).add('a', 'b');
    addCheckpoint(await body(t, 0), w);
    w.state.close();
    opened.pop();
    const again = witness(w.path);
    expect(again.state.latest(ORIGIN)?.size).toBe(2);
    expect(addCheckpoint(await body(t.add('c'), 0), again)).toMatchObject({ status: 409, body: '2\n' });
  });
});
