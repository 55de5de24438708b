// Crash durability (DESIGN.md section 5): kill -9 a process appending under load, restart, and
// repeat. Every acknowledged append must survive at the seq it was acknowledged with, seqs stay
// dense (0..n-1), none is reused, the start-up root check passes and fsck is clean.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { fromHex, toHex } from '../../src/canonical/index.js';
import { decodeEntry, hashLeaf, openCheckpoint, verifyInclusion, verifyLog } from '../../src/log/index.js';
import { initDataDir, openDataDir } from '../../src/store/node.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHILD = fileURLToPath(new URL('./_crash-child.ts', import.meta.url));
const ROUNDS = 5;

/** One acknowledged append: the receipt the child was handed (the note by its digest). */
interface Ack {
  seq: number;
  id: string;
  size: number;
  leaf: string;
  proof: Uint8Array[];
  noteDigest: string;
}

/** Run one child until SIGKILL `delayMs` after its first acknowledged append; return what it acknowledged. */
function runUntilKilled(dir: string, round: number, delayMs: number): Promise<{ acks: Ack[]; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, String(round)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const acks: Ack[] = [];
    let buffered = '';
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop()!; // a line cut by the kill was never acknowledged to anyone
      for (const line of lines) {
        const [seq, id, size, leaf, proof, noteDigest] = line.split(' ');
        acks.push({ seq: Number(seq), id, size: Number(size), leaf, proof: proof ? proof.split(',').map(fromHex) : [], noteDigest });
        // Count from the first acknowledgement, so every kill lands with batches in flight.
        timer ??= setTimeout(() => child.kill('SIGKILL'), delayMs);
      }
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      clearTimeout(timer);
      resolve({ acks, signal, stderr });
    });
  });
}

describe('kill -9 under load', () => {
  it(`loses no acknowledged append and reuses no seq over ${ROUNDS} crashes`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-crash-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    initDataDir(dir);
    const acked = new Map<number, string>(); // seq -> id, over every round
    let before: string[] = []; // ids by seq after the previous round: the prefix must never change
    for (let round = 0; round < ROUNDS; round++) {
      const delay = 100 + Math.floor(Math.random() * 600);
      const run = await runUntilKilled(dir, round, delay);
      const where = `round ${round}, killed after ${delay} ms`;
      expect(run.stderr, where).toBe('');
      expect(run.signal, where).toBe('SIGKILL');
      expect(run.acks.length, `${where}: the child acknowledged appends before the kill`).toBeGreaterThan(0);
      for (const a of run.acks) {
        expect(acked.has(a.seq), `${where}: seq ${a.seq} acknowledged twice`).toBe(false);
        acked.set(a.seq, a.id);
      }

      // Restart as the service would: the start-up check recomputes the root (and checks the tail a
      // crash left committed but unsigned) before signing anything, then signs that tail.
      const dd = await openDataDir(dir, { thread: false });
      try {
        const { store, origin, verifiers, appender } = dd.log('default');
        const tail = await appender.checkpointNow!(); // resolves once everything committed is covered
        expect(tail.size, `${where}: the restart signs every committed entry`).toBe(store.size());
        expect(store.latestCheckpoint()?.size, `${where}: the tail's checkpoint is stored`).toBe(store.size());
        const report = verifyLog(store, { origin, verifiers });
        expect(report.findings, where).toEqual([]);
        const n = store.size();
        const ids: string[] = [];
        for (const e of store.entries(0, n)) {
          expect(e.seq, `${where}: gap`).toBe(ids.length);
          ids.push(String(decodeEntry(e.bytes).id));
        }
        expect(ids.length).toBe(n);
        expect(new Set(ids).size, `${where}: an id stored twice`).toBe(n);
        expect(ids.slice(0, before.length), `${where}: committed entries changed`).toEqual(before);
        for (const [seq, id] of acked) expect(ids[seq], `${where}: acknowledged seq ${seq}`).toBe(id);

        // Every receipt handed out before the kill still verifies against what was stored: its
        // checkpoint note is the stored one for its size, signed, and its proof links the entry.
        const roots = new Map<number, Uint8Array>();
        for (const a of run.acks) {
          const stored = store.checkpointAt(a.size);
          expect(stored && createHash('sha256').update(stored.note).digest('hex'), `${where}: checkpoint ${a.size} of seq ${a.seq}`).toBe(a.noteDigest);
          let root = roots.get(a.size);
          if (!root) roots.set(a.size, (root = openCheckpoint(stored!.note, verifiers).root));
          expect(toHex(hashLeaf(store.entry(a.seq)!.bytes)), `${where}: leaf of seq ${a.seq}`).toBe(a.leaf);
          expect(verifyInclusion(a.seq, a.size, fromHex(a.leaf), a.proof, root), `${where}: receipt of seq ${a.seq}`).toBe(true);
        }
        before = ids;
      } finally {
        await dd.close();
      }
    }
    expect(acked.size).toBeGreaterThan(ROUNDS * 10);
  }, 90_000);
});
