// Issue 35, recovery: a witness that persisted a forged (Ed25519-only) checkpoint before the fix
// answers the real log 409 for ever. `vouch witness reset-log ORIGIN --to-checkpoint FILE` puts a
// checkpoint signed in full in its place, and nothing else: a forged one is refused, a genuine record
// is rolled back only with --force, and every reset is an insert-only event named at each start.
import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toHex } from '../../src/canonical/index.js';
import { main } from '../../src/cli/main.js';
import { formatVkey, parseCheckpoint, parseNote } from '../../src/log/index.js';
import { addCheckpoint, createCosigner, formatAddCheckpoint } from '../../src/witness/index.js';
import { runWitness } from '../../src/witness/node-witness.js';
import { openWitnessState } from '../../src/witness/state.js';
import { captureIo } from '../audit/_generate.js';
import { testKeys } from '../helpers/keys.js';
import { MemTree } from './_tree.js';

const ORIGIN = 'vouch.local/acme';
const log = testKeys(ORIGIN, 11);
const cosigners = [createCosigner('w.example/1', 'Ed25519', new Uint8Array(32).fill(1))];

async function vouch(...argv: string[]) {
  const c = captureIo();
  const code = await main(argv, c.io);
  return { code, out: c.text(), err: c.errText() };
}

function setUp() {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-w-reset-'));
  const vkeys = join(dir, 'log.vkeys');
  writeFileSync(vkeys, log.verifiers.map((v) => formatVkey(v.name, v.alg, v.publicKey)).join('\n') + '\n');
  const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
  const genuine = new MemTree(ORIGIN, log.signers).add('a', 'b');
  const forged = new MemTree(ORIGIN, [log.signers[1]]).add('a', 'b', 'forged: dangerous_tool allow');
  return { dir, data: join(dir, 'w'), vkeys, file, genuine, forged, reset: (...args: string[]) => vouch('witness', 'reset-log', ORIGIN, '--log', `${ORIGIN}=${vkeys}`, '--data', join(dir, 'w'), ...args) };
}

const rootOf = (note: string) => toHex(parseCheckpoint(parseNote(note).text).root);

describe('vouch witness reset-log', () => {
  it('recovers a witness.db written before the fix (forged record, no note column): the genuine log is cosigned again', async () => {
    const s = setUp();
    // What the old witness left: its schema, and the forged size-3 tree it cosigned.
    const forgedNote = await s.forged.checkpoint();
    {
      mkdirSync(s.data, { recursive: true });
      const db = new Database(join(s.data, 'witness.db'));
      db.exec('CREATE TABLE witness_latest (origin TEXT PRIMARY KEY, size INTEGER NOT NULL, root BLOB NOT NULL, updated TEXT NOT NULL); CREATE TABLE witness_refused (id INTEGER PRIMARY KEY, origin TEXT NOT NULL, status INTEGER NOT NULL, reason TEXT NOT NULL, request TEXT NOT NULL, at TEXT NOT NULL);');
      db.prepare('INSERT INTO witness_latest VALUES (?, 3, ?, ?)').run(ORIGIN, Buffer.from(s.forged.root()), new Date().toISOString());
      db.close();
    }
    // Poisoned: the genuine log's next checkpoint gets 409 (the forged size).
    const w = { cosigners, logs: new Map([[ORIGIN, { origin: ORIGIN, verifiers: log.verifiers }]]), now: () => 1_800_000_000 };
    const genuine3 = s.genuine.add('c');
    let state = openWitnessState(join(s.data, 'witness.db'));
    expect(addCheckpoint(formatAddCheckpoint({ oldSize: 2, proof: genuine3.proof(2), checkpoint: await genuine3.checkpoint() }), { ...w, state })).toMatchObject({ status: 409, body: '3\n' });
    state.close();

    // The forged checkpoint itself cannot be put back by the tool: the rule refuses it.
    const bad = await s.reset('--to-checkpoint', s.file('forged.note', forgedNote));
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/error ERR_VERIFY_NOTE: .*ML-DSA-65/);
    // Nor a checkpoint of another log, even one the same keys sign.
    const other = await new MemTree('vouch.local/other', log.signers).add('x').checkpoint();
    const otherLog = await vouch('witness', 'reset-log', ORIGIN, '--log', `${ORIGIN}=${s.vkeys}`, '--data', s.data, '--to-checkpoint', s.file('other.note', other));
    expect(otherLog.code).toBe(3);
    expect(otherLog.err).toMatch(/error ERR_INPUT: the checkpoint is of log "vouch\.local\/other"/);
    // The genuine checkpoint (as GET /v1/checkpoint answers it) replaces the record.
    const cp = await genuine3.checkpoint();
    // A record kept before witnesses kept notes cannot be told from a genuine one: it is replaced only with --force.
    const unforced = await s.reset('--to-checkpoint', s.file('cp.json', JSON.stringify({ origin: ORIGIN, size: 3, checkpoint: cp })));
    expect(unforced.code).toBe(3);
    expect(unforced.err).toMatch(/not known to be poisoned \(unchecked.*--force/);
    const ok = await s.reset('--to-checkpoint', s.file('cp.json', JSON.stringify({ origin: ORIGIN, size: 3, checkpoint: cp })), '--force', '--reason', 'poisoned by an Ed25519-only checkpoint, issue 35');
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toMatch(/reset vouch\.local\/acme: size 3 root .* \(unchecked .*\) -> size 3 root/);

    state = openWitnessState(join(s.data, 'witness.db'));
    try {
      expect(state.record(ORIGIN)).toMatchObject({ size: 3, note: cp });
      expect(toHex(state.record(ORIGIN)!.root)).toBe(rootOf(cp));
      const [ev] = state.events(ORIGIN);
      expect(ev).toMatchObject({ kind: 'reset', detail: { from: { size: 3, root: toHex(s.forged.root()) }, to: { size: 3, root: rootOf(cp) }, forced: true, reason: expect.stringMatching(/issue 35/), by: expect.stringMatching(/^cli:/) } });
      // The genuine log is cosigned again from there.
      const genuine5 = genuine3.add('d', 'e');
      expect(addCheckpoint(formatAddCheckpoint({ oldSize: 3, proof: genuine5.proof(3), checkpoint: await genuine5.checkpoint() }), { ...w, state }).status).toBe(200);
    } finally {
      state.close();
    }
    // The record of resets cannot be edited away through SQLite either (triggers; a file attacker can drop them, as with any local record).
    const db = new Database(join(s.data, 'witness.db'));
    expect(() => db.prepare('DELETE FROM witness_events').run()).toThrow(/insert-only/);
    db.close();
  });

  it('refuses to roll back a record signed in full without --force; with it, records the forced reset; the witness names it at start', async () => {
    const s = setUp();
    const w = await runWitness({ data: s.data, name: 'w.example/1', logs: [{ origin: ORIGIN, vkeys: `${log.verifiers.map((v) => formatVkey(v.name, v.alg, v.publicKey)).join('\n')}\n` }], port: 0 });
    const older = await s.genuine.checkpoint();
    try {
      s.genuine.add('c', 'd');
      const r = await fetch(`${w.url}/add-checkpoint`, { method: 'POST', body: formatAddCheckpoint({ oldSize: 0, proof: [], checkpoint: await s.genuine.checkpoint() }) });
      expect(r.status).toBe(200);
      const refused = await s.reset('--to-checkpoint', s.file('older.note', older));
      expect(refused.code).toBe(3);
      expect(refused.err).toMatch(/error ERR_INPUT: the record of vouch\.local\/acme \(size 4\) is a checkpoint the log's keys sign in full.*--force/);
      expect(w.state.record(ORIGIN)?.size).toBe(4);
      // Forced (the log was restored from a backup on purpose): done while the witness runs, and recorded.
      const forced = await s.reset('--to-checkpoint', s.file('older.note', older), '--force', '--json');
      expect(forced.code, forced.err).toBe(0);
      expect(JSON.parse(forced.out)).toMatchObject({ reset: true, previous: { size: 4, status: 'signed in full' }, size: 2, forced: true });
      expect(w.state.record(ORIGIN)?.size).toBe(2);
      expect(w.state.events(ORIGIN).map((e) => e.detail.forced)).toEqual([true]);
    } finally {
      await w.close();
    }
    // A record that fails the rule (written with a note, as by the old code) is named at start with the way out.
    const forgedNote = await s.forged.checkpoint();
    const state = openWitnessState(join(s.data, 'witness.db'));
    state.update(ORIGIN, () => ({ next: { size: 3, root: s.forged.root(), note: forgedNote }, result: 0 }));
    state.close();
    const again = await runWitness({ data: s.data, logs: [{ origin: ORIGIN, vkeys: `${log.verifiers.map((v) => formatVkey(v.name, v.alg, v.publicKey)).join('\n')}\n` }], port: 0 });
    try {
      expect(again.warnings.join('\n')).toMatch(/record reset 1 time\(s\)/);
      expect(again.warnings.join('\n')).toMatch(/vouch\.local\/acme: the record this witness holds \(size 3\) is not a checkpoint the log's keys sign in full .*vouch witness reset-log vouch\.local\/acme/);
    } finally {
      await again.close();
    }
  });
});
