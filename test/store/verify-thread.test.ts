// `vouch log verify` on two threads (store/verify-thread.ts): the file-level attacker's edits in the
// first and the second half of a log are named as on one thread (the reading thread finds leaves,
// nodes and checkpoint roots; this one entries, links and rules), the two reports are equal, and a
// reading thread that cannot load or read is a coded error, never a hang.
import Database from 'better-sqlite3';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256, toHex } from '../../src/canonical/index.js';
import { ruleChecks } from '../../src/log/activation-check.js';
import { hashLeaf, markCanonical, verifyLog, verifyLogPages, verifyPages, type EntryBody, type LogReport, type NoteVerifier } from '../../src/log/index.js';
import { initDataDir, logPath, openDataDir, openPayloadLedger, openSqliteStore, type SqliteLogStore } from '../../src/store/node.js';
import { threadPages } from '../../src/store/verify-thread.js';
import { runVouch } from '../helpers/cli.js';
import { rowBytes, writeRow } from '../security/_file-attacker.js';

const TIME = '2026-11-30T00:00:00Z';
const CHAIN = `sha256:${'c'.repeat(64)}`;
const POLICY_SET = `sha256:${'d'.repeat(64)}`;
const POLICY: EntryBody = { type: 'policy', time: TIME, chain: CHAIN, policySet: POLICY_SET, engines: {}, action: 'activate' };
const inputDigest = (i: number) => `sha256:${toHex(sha256(Uint8Array.of(i & 255, i >> 8)))}`;
const body = (i: number): EntryBody => ({
  type: 'decision',
  time: TIME,
  principal: `agent-${i}`,
  event: 'tools/call',
  policy: { chain: CHAIN, policySet: POLICY_SET },
  decision: { effect: 'allow', status: 'success' },
  input: { digest: inputDigest(i) },
});
/** Pages of 32 entries: the log's 400 entries cross the thread in 13 of them. */
const PAGE = 32;

const temps: string[] = [];
const tempDir = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
};
let clean: string;
let origin: string;
let verifiers: NoteVerifier[];
let entries: number;

beforeAll(async () => {
  clean = tempDir('vouch-vthread-');
  initDataDir(clean, { mldsa44: false });
  const dd = await openDataDir(clean, { thread: false });
  const log = dd.log('default');
  origin = log.origin;
  verifiers = log.verifiers;
  await log.appender.append(POLICY);
  // Batches appended together commit (and are signed) together: a checkpoint every 50 or so.
  for (let b = 0; b < 8; b++) await Promise.all(Array.from({ length: 50 }, (_, j) => b * 50 + j).map((i) => log.appender.append(body(i), [{ digest: inputDigest(i), bytes: Uint8Array.of(i & 255, i >> 8) }])));
  entries = 401;
  await dd.close();
}, 120_000);

afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

/** A copy of the clean log with the attacker's edits (triggers dropped, as someone with the file can). */
function tampered(edit: (db: Database.Database) => void): string {
  const dir = tempDir('vouch-vthread-copy-');
  cpSync(clean, dir, { recursive: true });
  const db = new Database(logPath(dir, 'default'));
  for (const t of db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").pluck().all() as string[]) db.exec(`DROP TRIGGER "${t}"`);
  edit(db);
  db.close();
  return logPath(dir, 'default');
}

async function both(path: string): Promise<{ one: LogReport; two: LogReport }> {
  const store: SqliteLogStore = openSqliteStore(path, { readonly: true });
  const checks = [ruleChecks(store, openPayloadLedger()), ruleChecks(store, openPayloadLedger())];
  try {
    const one = verifyLog(store, { origin, verifiers, checks: checks[0] });
    const two = await verifyLogPages(store, { origin, verifiers, checks: checks[1] }, (size, page) => threadPages({ path }, size, { ...page, page: PAGE }));
    return { one, two };
  } finally {
    for (const c of checks.flat()) c.close?.();
    store.close();
  }
}

describe('log verify on a reading thread', () => {
  it('a clean log: the same report as on one thread, no findings', async () => {
    const { one, two } = await both(logPath(clean, 'default'));
    expect(two).toEqual(one);
    expect(two.findings).toEqual([]);
    expect(two.entries).toBe(entries);
    expect(two.checkpoints).toBeGreaterThan(3);
  });

  it('edits in the first and the second half: every one named, by seq, as on one thread', async () => {
    const sizes = (db: Database.Database) => db.prepare('SELECT size FROM checkpoints ORDER BY size').pluck().all() as number[];
    let early = 0;
    let late = 0;
    const path = tampered((db) => {
      const cps = sizes(db);
      early = cps.find((s) => s > 20 && s < 200)!;
      late = cps.find((s) => s > 250 && s < entries)!;
      const flip = (table: string, column: string, where: string, at: (b: Buffer) => number) => {
        const b = Buffer.from(db.prepare(`SELECT ${column} FROM ${table} WHERE ${where}`).pluck().get() as Buffer);
        b[at(b)] ^= 1;
        db.prepare(`UPDATE ${table} SET ${column} = ? WHERE ${where}`).run(b);
      };
      // Entry bytes: a byte of the principal (still JSON), at seq 17 and 317, written back as the
      // writer would (compact rows recompressed: _file-attacker.ts), so the signed JSON is what changed.
      for (const seq of [17, 317]) {
        const b = Buffer.from(rowBytes(db, seq));
        b[b.indexOf('agent-') + 2] ^= 1;
        writeRow(db, seq, b);
      }
      // A tree node above the leaves, completed by entry 63 (level 2, index 15) and by entry 351 (2/87).
      flip('nodes', 'hash', 'level = 2 AND idx = 15', () => 0);
      flip('nodes', 'hash', 'level = 2 AND idx = 87', () => 31);
      // A stored checkpoint root in each half.
      flip('checkpoints', 'root', `size = ${early}`, () => 5);
      flip('checkpoints', 'root', `size = ${late}`, () => 9);
      // A stored leaf in each half.
      flip('entries', 'leaf', 'seq = 100', () => 0);
      flip('entries', 'leaf', 'seq = 300', () => 0);
    });
    const { one, two } = await both(path);
    expect(two).toEqual(one);
    const named = (kind: string, key: 'seq' | 'checkpoint', at: number) => two.findings.some((f) => f.kind === kind && f[key] === at);
    // A compact row whose signed JSON changed no longer matches its stored leaf: the store refuses it
    // on the reading thread (entry-codec.ts) and the refusal reaches this thread as that seq's finding.
    for (const seq of [17, 317]) expect(two.findings.some((f) => f.kind === 'entry' && f.seq === seq && f.code === 'ERR_STORE_INCONSISTENT'), `entry ${seq}`).toBe(true);
    expect(named('node', 'seq', 63)).toBe(true);
    expect(named('node', 'seq', 351)).toBe(true);
    for (const size of [early, late]) expect(named('checkpoint', 'checkpoint', size), `checkpoint ${size}`).toBe(true);
    // A flipped stored leaf: a raw row's is a leaf finding; a compact row's read is refused against it (as above).
    for (const seq of [100, 300]) expect(named('leaf', 'seq', seq) || two.findings.some((f) => f.kind === 'entry' && f.seq === seq && f.code === 'ERR_STORE_INCONSISTENT'), `leaf ${seq}`).toBe(true);
    // The rule checks run on this thread over the thread's pages: the principal edit is not one, the rest are clean.
    expect(two.findings.filter((f) => f.kind === 'activation' || f.kind === 'payload')).toEqual([]);
  });

  // The reading thread scans pages for canonical form when the checks fall behind it (verify-pages.ts
  // markCanonical): pages so marked must give the report unmarked ones give, non-canonical entries too.
  it('pages scanned where they are read (markCanonical): the same report, a non-canonical entry still named', async () => {
    const path = tampered((db) => {
      for (const [seq, text] of [[40, (t: string) => t.replace('{', '{ ')], [240, (t: string) => t.replace(/"v":1}$/, '"v":1.0}')]] as const) {
        const forged = Buffer.from(text(Buffer.from(rowBytes(db, seq)).toString('utf8')));
        writeRow(db, seq, forged, hashLeaf(forged)); // its own leaf: the row decodes, its bytes are what is wrong
      }
    });
    const store: SqliteLogStore = openSqliteStore(path, { readonly: true });
    const checks = [ruleChecks(store, openPayloadLedger()), ruleChecks(store, openPayloadLedger())];
    const marks: number[] = [];
    try {
      const one = verifyLog(store, { origin, verifiers, checks: checks[0] });
      const marked = await verifyLogPages(store, { origin, verifiers, checks: checks[1] }, async function* (size, page) {
        for (const p of verifyPages(store, size, { ...page, page: PAGE })) {
          markCanonical(p);
          marks.push(...p.canonical!);
          yield p;
        }
      });
      expect(marked).toEqual(one);
      for (const seq of [40, 240]) expect(one.findings.some((f) => f.seq === seq && f.kind === 'entry' && f.code === 'ERR_VERIFY_ENTRY' && /canonical/.test(f.message)), `entry ${seq}`).toBe(true);
      expect(marks.length).toBe(entries);
      expect(marks.filter((m) => m === 0).length).toBe(2); // the two edited entries: left to the checks' full decode
    } finally {
      for (const c of checks.flat()) c.close?.();
      store.close();
    }
  });

  it('a row missing in the second half: the gap and everything after it named as on one thread', async () => {
    const path = tampered((db) => void db.prepare('DELETE FROM entries WHERE seq = 290').run());
    const { one, two } = await both(path);
    expect(two).toEqual(one);
    expect(two.findings.some((f) => f.kind === 'entry' && f.seq === 291)).toBe(true);
  });

  it('a reading thread that cannot load is ERR_VERIFY_THREAD, not a hang', async () => {
    const dir = tempDir('vouch-vthread-bad-');
    const bad = join(dir, 'bad.mjs');
    writeFileSync(bad, 'throw new Error("cannot load");\n');
    const store = openSqliteStore(logPath(clean, 'default'), { readonly: true });
    try {
      const run = verifyLogPages(store, { origin, verifiers }, (size, page) => threadPages({ path: logPath(clean, 'default') }, size, page, { hostUrl: new URL(`file://${bad}`) }));
      await expect(run).rejects.toMatchObject({ code: 'ERR_VERIFY_THREAD', message: expect.stringMatching(/cannot load.*--threads 1/) });
    } finally {
      store.close();
    }
  });

  it('a thread that exits without a word is ERR_VERIFY_THREAD', async () => {
    const dir = tempDir('vouch-vthread-exit-');
    const quiet = join(dir, 'exit.mjs');
    writeFileSync(quiet, 'process.exit(3);\n');
    const store = openSqliteStore(logPath(clean, 'default'), { readonly: true });
    try {
      const run = verifyLogPages(store, { origin, verifiers }, (size, page) => threadPages({ path: logPath(clean, 'default') }, size, page, { hostUrl: new URL(`file://${quiet}`) }));
      await expect(run).rejects.toMatchObject({ code: 'ERR_VERIFY_THREAD', message: expect.stringMatching(/exit code 3/) });
    } finally {
      store.close();
    }
  });

  it("the thread's own failure to read keeps its code (a file it cannot open: ERR_STORE)", async () => {
    const store = openSqliteStore(logPath(clean, 'default'), { readonly: true });
    try {
      const run = verifyLogPages(store, { origin, verifiers }, (size, page) => threadPages({ path: join(clean, 'no-such.db') }, size, page));
      await expect(run).rejects.toMatchObject({ code: 'ERR_STORE' });
    } finally {
      store.close();
    }
  });

  it('a consumer that stops early ends the thread (the bounded queue does not hold it)', async () => {
    const path = logPath(clean, 'default');
    let pages = 0;
    for await (const p of threadPages({ path }, entries, { checkpointSizes: [], maxFindings: 10, page: 8 })) {
      pages++;
      expect(p.offsets.length).toBe(9);
      if (pages === 2) break;
    }
    expect(pages).toBe(2);
  });

  it('vouch log verify: --threads 2 (the thread, from the sources) and --threads 1 print the same report; --threads 3 is a usage error', async () => {
    const path = tampered((db) => {
      const b = Buffer.from(rowBytes(db, 333));
      b[b.indexOf('agent-') + 3] ^= 1;
      writeRow(db, 333, b);
    });
    const data = join(path, '..', '..');
    const two = await runVouch('log', 'verify', '--data', data, '--threads', '2', '--json');
    const one = await runVouch('log', 'verify', '--data', data, '--threads', '1', '--json');
    expect(two.code).toBe(1);
    expect(two.json).toEqual(one.json);
    expect(two.json.logs[0].findings.map((f: { kind: string; seq: number }) => `${f.kind} ${f.seq}`)).toEqual(['entry 333']);
    expect((await runVouch('log', 'verify', '--data', data, '--threads', '3')).code).toBe(2);
  });

  it('a log with a tile archive: read through the archive on the thread, the same report as on one thread, clean and with both copies edited', async () => {
    const copy = (edit: (data: string) => void) => {
      const data = join(tempDir('vouch-vthread-arch-'), 'data');
      cpSync(clean, data, { recursive: true });
      edit(data);
      return data;
    };
    const archived = copy(() => undefined);
    expect((await runVouch('log', 'archive', '--data', archived)).code).toBe(0);
    const report = async (data: string) => {
      const two = await runVouch('log', 'verify', '--data', data, '--threads', '2', '--json');
      const one = await runVouch('log', 'verify', '--data', data, '--threads', '1', '--json');
      expect(two.json).toEqual(one.json);
      return two;
    };
    const ok = await report(archived);
    expect(ok.code).toBe(0);
    expect(ok.json.logs[0].archive.sealed).toBe(256); // one full bundle read from the archive
    // The archive's entry bundle edited (a byte of an entry's principal), and a database row in the
    // archived part rewritten with its leaf (as the attacker would keep the store consistent).
    const edited = copy((data) => {
      cpSync(join(archived, 'archive'), join(data, 'archive'), { recursive: true });
      const bundle = join(data, 'archive', 'default', 'tile', 'entries', '000');
      const b = readFileSync(bundle);
      b[b.indexOf('agent-40') + 3] ^= 1;
      writeFileSync(bundle, b);
      const db = new Database(logPath(data, 'default'));
      for (const t of db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").pluck().all() as string[]) db.exec(`DROP TRIGGER "${t}"`);
      const row = Buffer.from(rowBytes(db, 200));
      row[row.indexOf('agent-') + 2] ^= 1;
      writeRow(db, 200, row, sha256(Uint8Array.from([0, ...row]))); // its own leaf hash: the row reads back
      db.close();
    });
    const bad = await report(edited);
    expect(bad.code).toBe(1);
    const text = JSON.stringify(bad.json.logs[0].findings);
    // agent-40 is entry 41 (entry 0 is the policy): the archive's bytes no longer hash to its leaf.
    expect(bad.json.logs[0].findings.some((f: { kind: string; seq?: number }) => f.kind === 'leaf' && f.seq === 41), text).toBe(true);
    expect(text).toMatch(/the database row's bytes, and the archive's tile\/entries\/000 differ/);
  });
});
