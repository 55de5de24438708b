// Issue 35: the witness opens checkpoints by the rule every verifier applies, and more: every key
// type the log is configured with must sign, the ML-DSA-65 one at least. Variants of the forged
// note (one key's line, a line twice, an extra unknown line), the configurations (only the
// ML-DSA-65 vkey, only the Ed25519 one with and without --classical-ok), over real SQLite state.
import Database from 'better-sqlite3';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatVkey, type NoteSigner, type NoteVerifier } from '../../src/log/index.js';
import { addCheckpoint, createCosigner, formatAddCheckpoint, verifyWitnesses, type WitnessedLog, type WitnessOptions } from '../../src/witness/index.js';
import { verifiersOf, witnessedLogsOf } from '../../src/witness/node-witness.js';
import { openWitnessState, type SqliteWitnessState } from '../../src/witness/state.js';
import { captureIo } from '../audit/_generate.js';
import { main } from '../../src/cli/main.js';
import { testKeys } from '../helpers/keys.js';
import { startWitness } from './_procs.js';
import { MemTree } from './_tree.js';

const ORIGIN = 'vouch.local/acme';
const log = testKeys(ORIGIN, 11);
const stranger = testKeys(ORIGIN, 21);
const [mlSigner, edSigner] = log.signers;
const [mlKey, edKey] = log.verifiers;
const vkeyOf = (v: NoteVerifier) => formatVkey(v.name, v.alg, v.publicKey);
const cosigners = [createCosigner('w.example/1', 'Ed25519', new Uint8Array(32).fill(1)), createCosigner('w.example/1', 'ML-DSA-44', new Uint8Array(32).fill(2))];
const opened: SqliteWitnessState[] = [];
afterEach(() => opened.splice(0).forEach((s) => s.close()));

function witness(configured: Partial<WitnessedLog> = {}): WitnessOptions & { state: SqliteWitnessState } {
  const state = openWitnessState(join(mkdtempSync(join(tmpdir(), 'vouch-w-rule-')), 'w.db'));
  opened.push(state);
  return { state, cosigners, logs: new Map([[ORIGIN, { origin: ORIGIN, verifiers: log.verifiers, ...configured }]]), now: () => 1_800_000_000 };
}

/** A request for the tree's next checkpoint, signed by `signers`, its signature block edited by `edit`. */
async function request(t: MemTree, old: number, signers: NoteSigner[], edit: (lines: string[]) => string[] = (l) => l): Promise<string> {
  const by = new MemTree(ORIGIN, signers);
  by.leaves = [...t.leaves];
  const note = await by.checkpoint();
  const split = note.lastIndexOf('\n\n');
  const lines = note.slice(split + 2, -1).split('\n');
  return formatAddCheckpoint({ oldSize: old, proof: t.proof(old), checkpoint: `${note.slice(0, split + 2)}${edit(lines).join('\n')}\n` });
}

/** A witness that holds size 2 of the log's genuine tree. */
async function holding(w: WitnessOptions): Promise<MemTree> {
  const t = new MemTree(ORIGIN, log.signers).add('a', 'b');
  expect(addCheckpoint(await request(t, 0, log.signers), w).status).toBe(200);
  return t.add('forged: dangerous_tool allow');
}

describe('the witness signature rule: every configured key type signs, ML-DSA-65 at least', () => {
  it('refuses a checkpoint signed by the Ed25519 key alone (403 ERR_VERIFY_NOTE), keeps it as evidence, and cosigns the genuine one', async () => {
    const w = witness();
    const t = await holding(w);
    const r = addCheckpoint(await request(t, 2, [edSigner]), w);
    expect(r.status).toBe(403);
    expect(r.body).toMatch(/^ERR_VERIFY_NOTE: vouch\.local\/acme: no valid ML-DSA-65 signature/);
    expect(w.state.latest(ORIGIN)?.size).toBe(2);
    expect(w.state.refusals(ORIGIN).map((x) => x.status)).toEqual([403]); // a log key signed it: evidence
    const ok = addCheckpoint(await request(t, 2, log.signers), w);
    expect(ok.status).toBe(200);
    expect(verifyWitnesses((await t.checkpoint()) + ok.body, cosigners, 1).ok).toBe(true);
  });

  it('refuses a checkpoint signed by the ML-DSA-65 key alone when the Ed25519 key is configured too', async () => {
    const w = witness();
    const t = await holding(w);
    const r = addCheckpoint(await request(t, 2, [mlSigner]), w);
    expect(r.status).toBe(403);
    expect(r.body).toMatch(/^ERR_VERIFY_NOTE: .*no valid signature by the log's Ed25519 key .*every key type the log is configured with \(ML-DSA-65, Ed25519\) must sign/);
    expect(w.state.latest(ORIGIN)?.size).toBe(2);
  });

  it('refuses a known key\'s line twice (Ed25519 twice for the missing ML-DSA-65 line, or the ML-DSA-65 line repeated)', async () => {
    const w = witness();
    const t = await holding(w);
    expect(addCheckpoint(await request(t, 2, [edSigner], (l) => [l[0], l[0]]), w)).toMatchObject({ status: 403, body: expect.stringMatching(/^ERR_VERIFY_NOTE: .*ML-DSA-65/) });
    expect(addCheckpoint(await request(t, 2, log.signers, (l) => [l[0], l[1], l[0]]), w)).toMatchObject({ status: 403, body: expect.stringMatching(/appears twice/) });
    expect(addCheckpoint(await request(t, 2, log.signers, (l) => [l[1], l[1], l[0]]), w)).toMatchObject({ status: 403, body: expect.stringMatching(/appears twice/) });
    expect(w.state.latest(ORIGIN)?.size).toBe(2);
  });

  it('ignores a line by an unknown key (signed-note, tlog-witness): it neither helps a forged note nor spoils a genuine one', async () => {
    const w = witness();
    const t = await holding(w);
    const strangerLine = (await new MemTree(ORIGIN, [stranger.signers[0]]).add('a', 'b', 'forged: dangerous_tool allow').checkpoint()).trimEnd().split('\n').pop()!;
    // A stranger's ML-DSA-65 line beside the log's Ed25519 line: still no ML-DSA-65 signature by the log.
    expect(addCheckpoint(await request(t, 2, [edSigner], (l) => [strangerLine, ...l]), w).status).toBe(403);
    expect(addCheckpoint(await request(t, 2, log.signers, (l) => [...l, strangerLine]), w).status).toBe(200);
    expect(w.state.latest(ORIGIN)?.size).toBe(3);
  });

  it('only the ML-DSA-65 vkey configured: that line is required and enough; the Ed25519 line is an unknown one', async () => {
    const w = witness({ verifiers: [mlKey] });
    const t = await holding(w);
    expect(addCheckpoint(await request(t, 2, [edSigner]), w).status).toBe(403);
    expect(addCheckpoint(await request(t, 2, [mlSigner]), w).status).toBe(200);
  });

  it('only the Ed25519 vkey: refused at config time with the fix named, unless classical is accepted for that log explicitly', async () => {
    const edOnly = `${vkeyOf(edKey)}\n`;
    let err: unknown;
    try {
      witnessedLogsOf([{ origin: ORIGIN, vkeys: edOnly }]);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'ERR_CONFIG', message: expect.stringMatching(/no ML-DSA-65 or ML-DSA-44 key .*--classical-ok vouch\.local\/acme/) });
    expect(() => verifiersOf(ORIGIN, `${vkeyOf(mlKey)}\n`)).not.toThrow();
    const logs = witnessedLogsOf([{ origin: ORIGIN, vkeys: edOnly, classicalOk: true }]);
    expect(logs.get(ORIGIN)).toMatchObject({ classicalOk: true });
    const w = witness({ verifiers: logs.get(ORIGIN)!.verifiers, classicalOk: true });
    const t = await holding(w);
    expect(addCheckpoint(await request(t, 2, [edSigner]), w).status).toBe(200);
  });

  it('--classical-ok does not lift the rule for a key type configured: with both vkeys, both must still sign', async () => {
    const w = witness({ classicalOk: true });
    const t = await holding(w);
    expect(addCheckpoint(await request(t, 2, [mlSigner]), w).status).toBe(403);
    expect(addCheckpoint(await request(t, 2, [edSigner]), w).status).toBe(403);
    expect(addCheckpoint(await request(t, 2, log.signers), w).status).toBe(200);
  });
});

describe('vouch witness with a log configured by its Ed25519 vkey alone', () => {
  it('refuses to start (exit 3, ERR_CONFIG naming the fix); with --classical-ok ORIGIN it starts, says so, and records it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-w-classical-'));
    const file = join(dir, 'ed.vkeys');
    writeFileSync(file, `${vkeyOf(edKey)}\n`);
    const c = captureIo();
    expect(await main(['witness', '--data', join(dir, 'w'), '--name', 'w.example/1', '--port', '0', '--log', `${ORIGIN}=${file}`], c.io)).toBe(3);
    expect(c.errText()).toMatch(/error ERR_CONFIG: log vouch\.local\/acme: its vkeys hold no ML-DSA-65 or ML-DSA-44 key \(only Ed25519\).*curl <log>\/\.well-known\/vouch\/vkeys.*--classical-ok vouch\.local\/acme/);
    const w = await startWitness(join(dir, 'w'), ['--name', 'w.example/1', '--log', `${ORIGIN}=${file}`, '--classical-ok', ORIGIN]);
    try {
      expect(w.classical).toEqual([ORIGIN]);
      await new Promise((r) => setTimeout(r, 100));
      expect(w.stderr()).toMatch(/WARNING: vouch\.local\/acme: checkpoints signed by the Ed25519 key alone are cosigned \(--classical-ok\)/);
    } finally {
      await w.stop();
    }
    const db = new Database(join(dir, 'w', 'witness.db'), { readonly: true });
    expect(db.prepare('SELECT origin, kind, detail FROM witness_events').all()).toEqual([{ origin: ORIGIN, kind: 'classical-ok', detail: '{"on":true}' }]);
    db.close();
  }, 60_000);
});
