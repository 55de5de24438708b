// Tamper evidence (DESIGN.md section 10): flip one byte of any stored entry, leaf hash, root or
// checkpoint note (text and signature lines) and `verifyLog` / `vouch log verify` must name
// where. Each flip bypasses the append-only triggers the way an attacker with the file would.
// Entry rows are compact by default (docs/storage.md): a flip of a compressed row's stored bytes is
// a garbled row, and a flip of its signed JSON is written back as a valid compressed row.
import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256, toHex } from '../../src/canonical/index.js';
import { verifyLog, type EntryBody, type Finding, type NoteVerifier } from '../../src/log/index.js';
import type { LogStore } from '../../src/store/index.js';
import { rowBytes, writeRow } from '../security/_file-attacker.js';
import { initDataDir, logPath, openDataDir, openSqliteStore } from '../../src/store/node.js';

const TIME = '2026-11-30T00:00:00Z';
// Appended concurrently per round, so the log holds several checkpoints (their sizes depend on
// batching: appends that arrive together commit together, so at least one checkpoint per round).
const BATCHES = [4, 4, 6, 6];
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// The log is one a clean `log verify` accepts: a policy entry activates the rules every decision
// names, and each decision's input payload is stored beside it.
const CHAIN = `sha256:${'c'.repeat(64)}`;
const POLICY_SET = `sha256:${'d'.repeat(64)}`;
const POLICY: EntryBody = { type: 'policy', time: TIME, chain: CHAIN, policySet: POLICY_SET, engines: {}, action: 'activate' };
const inputDigest = (i: number) => `sha256:${toHex(sha256(Uint8Array.of(i)))}`;
const body = (i: number): EntryBody => ({
  type: 'decision',
  time: TIME,
  principal: `agent-${i}`,
  event: 'tools/call',
  policy: { chain: CHAIN, policySet: POLICY_SET },
  decision: { effect: i % 3 === 0 ? 'deny' : 'allow', status: 'success' },
  input: { digest: inputDigest(i) },
});

/**
 * ML-DSA-65 and Ed25519 verification are pure functions, so a repeated (message, signature)
 * pair has the same answer: memoize it, or thousands of flips re-verify every untouched note.
 * Every changed note still goes through the real verifier.
 */
function memoized(verifiers: NoteVerifier[]): NoteVerifier[] {
  return verifiers.map((v) => {
    const seen = new Map<string, boolean>();
    return {
      ...v,
      verify: (msg: Uint8Array, sig: Uint8Array) => {
        const key = createHash('sha256').update(msg).update(Uint8Array.of(0)).update(sig).digest('hex');
        let ok = seen.get(key);
        if (ok === undefined) seen.set(key, (ok = v.verify(msg, sig)));
        return ok;
      },
    };
  });
}

type Target = { what: string; expect: (f: Finding) => boolean; unchanged?: () => boolean };

let clean: string; // the data directory as the appender left it
let work: string; // a copy of the data directory, tampered in place and restored after each flip
let db: Database.Database; // the attacker's connection: triggers dropped
let store: LogStore; // the verifier's connection, as the CLI opens it
let origin: string;
let verifiers: NoteVerifier[];
let sizes: number[]; // checkpoint sizes, oldest first
let entryCount: number;
let runs: Promise<CliRun>[]; // `vouch log verify` on a clean copy, then one per SPOTS entry
const temps: string[] = [];
const tempDir = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
};

beforeAll(async () => {
  const dir = (clean = tempDir('vouch-tamper-'));
  // ML-DSA-65 and Ed25519: the every-byte sweeps below re-run verifyLog per flipped byte, and an
  // ML-DSA-44 line would almost double them; its bytes are swept in test/log/mldsa44-log-signature.test.ts.
  initDataDir(dir, { mldsa44: false });
  const dd = await openDataDir(dir, { thread: false });
  const log = dd.log('default');
  origin = log.origin;
  // The log's own keys, under the name it signs with (its origin), from its checked key history.
  const logVerifiers = log.verifiers;
  let n = 0;
  for (const [round, k] of BATCHES.entries()) {
    await Promise.all(
      Array.from({ length: k }, (_, j) => {
        if (round === 0 && j === 0) return log.appender.append(POLICY); // seq 0
        const i = n++;
        return log.appender.append(body(i), [{ digest: inputDigest(i), bytes: Uint8Array.of(i) }]);
      }),
    );
  }
  await dd.close(); // last connection closed: the WAL is checkpointed into the main file
  expect(existsSync(`${logPath(dir, 'default')}-wal`)).toBe(false);

  work = tempDir('vouch-tamper-copy-');
  cpSync(dir, work, { recursive: true });
  db = new Database(logPath(work, 'default'));
  db.pragma('synchronous = OFF'); // the flips need no durability; keeps 10k updates fast
  for (const t of ['entries', 'checkpoints']) db.exec(`DROP TRIGGER ${t}_no_update`);
  store = openSqliteStore(logPath(work, 'default'), { readonly: true });
  verifiers = memoized(logVerifiers);
  sizes = (db.prepare('SELECT size FROM checkpoints ORDER BY size').pluck().all() as number[]);
  entryCount = db.prepare('SELECT COUNT(*) FROM entries').pluck().get() as number;
  // The CLI runs on copies of their own, in child processes, while the in-process flips go on.
  runs = [undefined, ...SPOTS.map(([, make]) => make())].map((spot) => runCli(tamperedCopy(spot)));
  for (const r of runs) r.catch(() => undefined); // awaited (and reported) by the CLI tests
});

afterAll(async () => {
  store?.close();
  db?.close();
  await Promise.allSettled(runs ?? []);
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

const findings = () => verifyLog(store, { origin, verifiers }).findings;
const xor = (b: Uint8Array, i: number, mask: number): Buffer => {
  const c = Buffer.from(b);
  c[i] ^= mask;
  return c;
};

/** A column of one row as raw bytes, a writer of raw bytes, and how to put the original back. */
function cell(table: 'entries' | 'checkpoints', column: 'bytes' | 'leaf' | 'root' | 'note', key: number) {
  const keyCol = table === 'entries' ? 'seq' : 'size';
  const asText = column === 'note';
  const original = db.prepare(`SELECT ${column} FROM ${table} WHERE ${keyCol} = ?`).pluck().get(key) as Buffer | string;
  const raw = asText ? Buffer.from(original as string, 'utf8') : (original as Buffer);
  // A note is TEXT: write the flipped bytes back as TEXT, even when they are no longer UTF-8.
  const put = db.prepare(`UPDATE ${table} SET ${column} = ${asText ? 'CAST(? AS TEXT)' : '?'} WHERE ${keyCol} = ?`);
  return {
    raw,
    write: (bytes: Buffer) => put.run(bytes, key),
    restore: () => db.prepare(`UPDATE ${table} SET ${column} = ? WHERE ${keyCol} = ?`).run(original, key),
  };
}

/**
 * Flips of a compressed row's stored bytes that went unnamed because the row still inflates to its
 * exact signed bytes: DEFLATE ignores the bits after its final block in the last byte, so they
 * change nothing vouch serves or signs (docs/storage.md). Checked below to be only those.
 */
const unchangedFlips: { key: number; at: number; last: boolean }[] = [];

/** Flip each listed byte of one cell in turn; return every flip that went unnamed. */
function flipEach(table: 'entries' | 'checkpoints', column: 'bytes' | 'leaf' | 'root' | 'note', key: number, positions: Iterable<number>, target: Target, mask = 0x01): string[] {
  const c = cell(table, column, key);
  const missed: string[] = [];
  for (const i of positions) {
    c.write(xor(c.raw, i, mask));
    const got = findings();
    if (!got.some(target.expect) && target.unchanged?.()) unchangedFlips.push({ key, at: i, last: i === c.raw.length - 1 });
    else if (!got.some(target.expect)) {
      const was = c.raw[i] >= 0x20 && c.raw[i] < 0x7f ? ` (${JSON.stringify(String.fromCharCode(c.raw[i]))})` : '';
      missed.push(`${target.what} byte ${i}${was} ^ 0x${mask.toString(16)}: ${got.length} findings, none naming it`);
    }
    c.restore();
  }
  return missed;
}

const all = (n: number) => Array.from({ length: n }, (_, i) => i);
const namesSeq = (seq: number): Target => ({ what: `entry ${seq}`, expect: (f) => f.seq === seq });
const isCompact = (seq: number) => (db.prepare('SELECT codec FROM entries WHERE seq = ?').pluck().get(seq) as number) !== 0;
/**
 * A stored leaf that no longer matches: a leaf finding for a raw row; a compact row is refused as
 * a whole by the codec (its inflated bytes must hash to its leaf), a finding for the row's seq.
 */
const namesLeaf = (seq: number): Target => ({ what: `leaf ${seq}`, expect: (f) => f.seq === seq && (f.kind === 'leaf' || (isCompact(seq) && f.kind === 'entry' && f.code === 'ERR_STORE_INCONSISTENT')) });
const namesCheckpoint = (size: number, what: string): Target => ({ what: `${what} of checkpoint ${size}`, expect: (f) => f.checkpoint === size });
/**
 * The checkpoint text and the head of each signature line (em dash, key name, key id: 24 bytes)
 * in full, the last 100 bytes, and every 29th byte of the signatures.
 */
/** Every byte of the text, of each signature line's head (24 bytes) and last 16 bytes; every 4th byte between. */
const denseNote = (raw: Buffer): number[] => {
  const keep: number[] = [];
  const textEnd = raw.indexOf('\n\n') + 2;
  let lineStart = 0;
  for (let i = 0; i < raw.length; i++) {
    if (i > 0 && raw[i - 1] === 0x0a) lineStart = i;
    const lineEnd = raw.indexOf(0x0a, i);
    if (i < textEnd || i - lineStart < 24 || lineEnd - i <= 16 || i % 4 === 0) keep.push(i);
  }
  return keep;
};
const sampleNote = (raw: Buffer): number[] => {
  const keep: number[] = [];
  let lineStart = 0;
  for (let i = 0; i < raw.length; i++) {
    if (i > 0 && raw[i - 1] === 0x0a) lineStart = i;
    if (i < raw.indexOf('\n\n') + 2 || i - lineStart < 24 || i >= raw.length - 100 || i % 29 === 0) keep.push(i);
  }
  return keep;
};

describe('tamper evidence: one flipped byte anywhere is found and named', () => {
  it('the untouched copy is clean, with several checkpoints', () => {
    expect(entryCount).toBe(20);
    // Batch boundaries depend on how many batches sign at once; what matters is several checkpoints.
    expect(sizes.length).toBeGreaterThanOrEqual(3);
    expect([...sizes].sort((a, b) => a - b)).toEqual(sizes);
    expect(sizes.at(-1)).toBe(20);
    expect(findings()).toEqual([]);
  });

  it('the log is compact: the policy entry and the rows before the first dictionary raw, the rest compressed', () => {
    expect(all(entryCount).filter(isCompact)).toEqual(all(entryCount).slice(4));
  });

  it('every stored byte of three entries (raw JSON or compressed), and the ends and a spread of the bytes of every other entry', () => {
    const missed: string[] = [];
    const full = new Set([0, entryCount >> 1, entryCount - 1]);
    unchangedFlips.length = 0;
    for (let seq = 0; seq < entryCount; seq++) {
      const { raw } = cell('entries', 'bytes', seq);
      const signed = store.entry(seq)!.bytes;
      // Named, or (a compressed row only) the row still reads back as exactly its signed bytes.
      const target: Target = { ...namesSeq(seq), unchanged: () => isCompact(seq) && Buffer.from(store.entry(seq)!.bytes).equals(signed) };
      const positions = full.has(seq) ? all(raw.length) : all(raw.length).filter((i) => i < 2 || i > raw.length - 3 || i % 13 === seq % 13);
      missed.push(...flipEach('entries', 'bytes', seq, positions, target));
      missed.push(...flipEach('entries', 'bytes', seq, [0, raw.length >> 1, raw.length - 1], target, 0x80));
    }
    expect(missed).toEqual([]);
    expect(unchangedFlips.filter((f) => !f.last)).toEqual([]); // only the padding after DEFLATE's final block
    expect(findings()).toEqual([]);
  }, 300_000); // thousands of verifyLog runs: 151 s at load 32 on 2 cores (about 15 s quiet)

  it('every byte of the signed JSON of two compact entries, each flip written back as a valid compressed row', () => {
    const missed: string[] = [];
    for (const seq of [entryCount >> 1, entryCount - 1]) {
      expect(isCompact(seq)).toBe(true);
      const original = rowBytes(db, seq);
      const stored = db.prepare('SELECT bytes, codec FROM entries WHERE seq = ?').get(seq) as { bytes: Buffer; codec: number };
      for (const i of all(original.length)) {
        writeRow(db, seq, xor(original, i, 0x01));
        if (!isCompact(seq)) continue; // the flip made it look like a policy, pin or key entry: stored raw, swept above
        if (!findings().some(namesSeq(seq).expect)) missed.push(`entry ${seq} JSON byte ${i} (${JSON.stringify(String.fromCharCode(original[i]))}) ^ 0x1: none naming it`);
      }
      db.prepare('UPDATE entries SET bytes = ?, codec = ? WHERE seq = ?').run(stored.bytes, stored.codec, seq);
    }
    expect(missed).toEqual([]);
    expect(findings()).toEqual([]);
  }, 300_000);

  it('every byte of every stored leaf hash and every stored root', () => {
    const missed: string[] = [];
    for (let seq = 0; seq < entryCount; seq++) missed.push(...flipEach('entries', 'leaf', seq, all(32), namesLeaf(seq)));
    for (const size of sizes) missed.push(...flipEach('checkpoints', 'root', size, all(32), namesCheckpoint(size, 'root')));
    expect(missed).toEqual([]);
  }, 60_000);

  // A line whose key name or key id no longer matches a known key is skipped by the signed-note
  // rules; if the other line still verifies, the note would pass with one signature stripped.
  for (const which of ['first', 'last'] as const) {
    it(`every byte of the ${which} checkpoint note's text and signature line heads and ends, every 4th of the signatures`, () => {
      const size = which === 'first' ? sizes[0] : sizes[sizes.length - 1];
      const { raw } = cell('checkpoints', 'note', size);
      // Three signature lines (ML-DSA-65, Ed25519, ML-DSA-44) are ~8 KB of base64: every byte of
      // them was ~10,000 whole-log verifies (250 s on a loaded machine) for no more coverage.
      const missed = flipEach('checkpoints', 'note', size, denseNote(raw), namesCheckpoint(size, 'note'));
      expect(missed).toEqual([]);
      expect(findings()).toEqual([]);
    }, 300_000); // about 3,000 whole-log verifies: 89 s at load 32
  }

  it('the text, the line starts and a spread of signature bytes of every other note, with both masks', () => {
    const missed: string[] = [];
    for (const size of sizes.slice(1, -1)) {
      const { raw } = cell('checkpoints', 'note', size);
      const positions = sampleNote(raw);
      missed.push(...flipEach('checkpoints', 'note', size, positions, namesCheckpoint(size, 'note')));
      missed.push(...flipEach('checkpoints', 'note', size, positions.filter((_, i) => i % 5 === 0), namesCheckpoint(size, 'note'), 0x80));
    }
    expect(missed).toEqual([]);
  }, 60_000);
});

type Spot = { table: 'entries' | 'checkpoints'; column: 'bytes' | 'leaf' | 'root' | 'note'; key: number; at: (raw: Buffer) => number; target: Target };

/** A fresh copy of the clean data directory with one byte flipped, closed (no WAL left behind). */
function tamperedCopy(spot: Spot | undefined): string {
  const to = tempDir('vouch-tamper-cli-');
  cpSync(clean, to, { recursive: true });
  if (!spot) return to;
  const d = new Database(logPath(to, 'default'));
  try {
    d.exec(`DROP TRIGGER ${spot.table}_no_update`);
    const keyCol = spot.table === 'entries' ? 'seq' : 'size';
    const v = d.prepare(`SELECT ${spot.column} FROM ${spot.table} WHERE ${keyCol} = ?`).pluck().get(spot.key) as Buffer | string;
    const raw = typeof v === 'string' ? Buffer.from(v, 'utf8') : v;
    const cast = spot.column === 'note' ? 'CAST(? AS TEXT)' : '?';
    d.prepare(`UPDATE ${spot.table} SET ${spot.column} = ${cast} WHERE ${keyCol} = ?`).run(xor(raw, spot.at(raw), 0x01), spot.key);
  } finally {
    d.close();
  }
  return to;
}

type CliRun = { status: number | null; report?: { ok: boolean; logs: { findings: Finding[] }[] }; stderr: string };

/**
 * `vouch log verify --json` in a child process, as an operator runs it. No execFile timeout:
 * the flip loops hold this event loop for many seconds, and a late-firing timeout would kill
 * an already finished child and drop its unread output; the test timeout bounds the wait.
 */
function runCli(data: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['bin/vouch.js', 'log', 'verify', '--data', data, '--json'], { cwd: ROOT, encoding: 'utf8' }, (err, stdout, stderr) => {
      const status = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      if (err && status === null) return reject(err);
      resolve({ status, report: stdout ? JSON.parse(stdout) : undefined, stderr });
    });
  });
}

const SPOTS: [string, () => Spot][] = [
  ['an entry byte', () => ({ table: 'entries', column: 'bytes', key: 7, at: (b) => b.length >> 1, target: namesSeq(7) })],
  ['a leaf byte', () => ({ table: 'entries', column: 'leaf', key: 19, at: () => 31, target: namesSeq(19) })],
  ['a root byte', () => ({ table: 'checkpoints', column: 'root', key: sizes[1], at: () => 0, target: namesCheckpoint(sizes[1], 'root') })],
  ['the size line of a note', () => ({ table: 'checkpoints', column: 'note', key: sizes[2], at: (b) => b.indexOf('\n') + 1, target: namesCheckpoint(sizes[2], 'note') })],
  ['the ML-DSA signature', () => ({ table: 'checkpoints', column: 'note', key: sizes[0], at: (b) => b.indexOf('\n\n') + 200, target: namesCheckpoint(sizes[0], 'note') })],
  ['the Ed25519 signature', () => ({ table: 'checkpoints', column: 'note', key: 20, at: (b) => b.length - 10, target: namesCheckpoint(20, 'note') })],
  // After the blank line: em dash (3 bytes), space, then the key name of the ML-DSA-65 line.
  ['the key name of the ML-DSA line', () => ({ table: 'checkpoints', column: 'note', key: 20, at: (b) => b.indexOf('\n\n') + 6, target: namesCheckpoint(20, 'note') })],
];

describe('vouch log verify on tampered copies', () => {
  it('exits 0 on the clean copy', async () => {
    const r = await runs[0];
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.report?.ok).toBe(true);
  });

  SPOTS.forEach(([name, make], i) => {
    it(`exits 1 and names ${name}`, async () => {
      const r = await runs[i + 1];
      expect(r.status, r.stderr).toBe(1);
      expect(r.report?.ok, r.stderr).toBe(false);
      expect(r.report!.logs[0].findings.some(make().target.expect)).toBe(true);
    });
  });
});
