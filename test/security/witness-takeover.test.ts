// Attacker (issue 35): a forger holding only the log's Ed25519 private key (keys/ed25519.key) and
// the tree's frontier hashes (what any receipt's proof carries) sends a real `vouch witness` an
// Ed25519-only checkpoint of size N+1 that extends the witness's tree with a forged allow entry,
// with a valid consistency proof. Before the fix the witness cosigned it, kept it, and answered
// the real log 409 for ever. It must refuse it (403, ERR_VERIFY_NOTE), keep its record as
// evidence, and go on cosigning the genuine log.
import Database from 'better-sqlite3';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toHex } from '../../src/canonical/index.js';
import { consistencyProof, parseCheckpoint, parseNote } from '../../src/log/index.js';
import { logPath, openSqliteStore } from '../../src/store/node.js';
import { formatAddCheckpoint, parseCosignerVkeys, verifyWitnesses } from '../../src/witness/index.js';
import { startServe } from '../cli/_serve.js';
import { checkpointOf, decide, startLog, startWitness, until, type WitnessChild } from '../witness/_procs.js';
import { forgeNextEntry } from './_forge.js';

const dir = mkdtempSync(join(tmpdir(), 'vouch-witness-takeover-'));
const logData = join(dir, 'log');
const running: { stop(): Promise<unknown> }[] = [];
afterAll(async () => {
  for (const p of running) await p.stop();
});

function witnessRecord(path: string, origin: string) {
  const db = new Database(path, { readonly: true });
  try {
    const latest = db.prepare('SELECT size, root FROM witness_latest WHERE origin = ?').get(origin) as { size: number; root: Buffer };
    const refused = db.prepare('SELECT status, reason FROM witness_refused WHERE origin = ? ORDER BY id').all(origin) as { status: number; reason: string }[];
    return { size: latest.size, root: toHex(latest.root), refused };
  } finally {
    db.close();
  }
}

describe('a forger holding only the Ed25519 key, against a real witness', () => {
  it('gets no cosignature for an Ed25519-only checkpoint that extends the witnessed tree; the genuine log is still cosigned', async () => {
    const first = await startServe(['--port', '0', '--data', logData, '--checkpoint-idle', '0'], { timeoutMs: 120_000 });
    const vkeys = await (await fetch(`${first.url}/.well-known/vouch/vkeys`)).text();
    const { origin } = await checkpointOf(first.url);
    await first.stop();
    const vkeyFile = join(dir, 'log.vkeys');
    writeFileSync(vkeyFile, vkeys);
    const w: WitnessChild = await startWitness(join(dir, 'w'), ['--name', 'w.example/witness', '--log', `${origin}=${vkeyFile}`]);
    running.push(w);
    const keys = w.vkeys.flatMap(parseCosignerVkeys);
    const witnessDb = join(dir, 'w', 'witness.db');

    // The genuine log, cosigned up to its newest checkpoint, then stopped (nothing races the forger).
    let log = await startLog(logData, [w]);
    for (const t of ['one', 'two', 'three']) await decide(log.url, t);
    const size = (await checkpointOf(log.url)).size;
    await until('the newest checkpoint cosigned', () => checkpointOf(log.url), (c) => c.size === size && verifyWitnesses(c.checkpoint, keys, 1).ok);
    await log.stop();
    const held = witnessRecord(witnessDb, origin);
    expect(held.size).toBe(size);

    // The forgery: entry N (a forged allow of dangerous_tool), the nodes it completes, an
    // Ed25519-only checkpoint of size N+1, and the consistency proof from the witness's N.
    const store = openSqliteStore(logPath(logData, 'default'), { readonly: true });
    let body: string;
    let forgedRoot: string;
    try {
      expect(store.size()).toBe(size);
      const { batch, note } = await forgeNextEntry(logData, store, { event: 'tools/call', principal: 'attacker', decision: { effect: 'allow', status: 'success', summary: 'dangerous_tool: allow' } });
      expect(parseNote(note).signatures).toHaveLength(1); // Ed25519 only: the ML-DSA-65 key is not the forger's
      const forged = { node: (l: number, i: number) => batch.nodes.find((n) => n.level === l && n.index === i)?.hash ?? store.node(l, i) };
      body = formatAddCheckpoint({ oldSize: size, proof: consistencyProof(size, size + 1, forged), checkpoint: note });
      forgedRoot = toHex(parseCheckpoint(parseNote(note).text).root);
    } finally {
      store.close();
    }
    const r = await fetch(`${w.url}/add-checkpoint`, { method: 'POST', body });
    const answer = await r.text();
    expect(r.status, answer).toBe(403);
    expect(answer).toMatch(/^ERR_VERIFY_NOTE: /);
    expect(answer).toMatch(/ML-DSA-65/);
    // Not persisted; kept as evidence (a log key signed it: that key is in someone else's hands).
    const after = witnessRecord(witnessDb, origin);
    expect(after).toMatchObject({ size, root: held.root });
    expect(after.root).not.toBe(forgedRoot);
    expect(after.refused.map((x) => x.status)).toEqual([403]);

    // The genuine log goes on: its next checkpoint is cosigned by the same witness.
    log = await startLog(logData, [w]);
    running.push(log);
    await decide(log.url, 'four');
    const next = await until('the genuine next checkpoint cosigned', () => checkpointOf(log.url), (c) => c.size > size && verifyWitnesses(c.checkpoint, keys, 1).ok);
    expect(witnessRecord(witnessDb, origin).size).toBe(next.size);
  }, 300_000);
});
