// A real log (decide() under the fixture chain, one payload erased) exported as SEP-3004 records:
// each record is one signed decision, linked to its entry and receipt; the C-REC checks and the
// contract's own reference verifier accept it, and catch one record tampered in any of the ways
// below; an export of a log whose database was altered fails and writes nothing.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseStoredPayload, recordOfDecision, sealSep3004Record, verifySep3004, type Sep3004Record, type Sep3004Report } from '../../src/audit/index.js';
import { toHex } from '../../src/canonical/index.js';
import { main } from '../../src/cli/main.js';
import { readDecisionEntry } from '../../src/entries/index.js';
import { decodeEntry, hashLeaf, type Entry } from '../../src/log/index.js';
import { logPortOf } from '../../src/store/log-port.js';
import { logPath, openSqliteStore } from '../../src/store/node.js';
import { captureIo, generateLog } from './_generate.js';

let dir: string;
let out: string;
let doc: { records: Sep3004Record[]; segment: any; attestation_manifest: any; contract: any };
let entries: Entry[];
let bytesOf: Uint8Array[];
let erasedSeq: number;
let erasedDigest: string;

const cli = async (...argv: string[]) => {
  const c = captureIo();
  const code = await main(argv, c.io);
  return { code, out: c.text(), err: c.errText() };
};
const status = (r: Sep3004Report, id: string) => r.checks.find((c) => c.id === id)!;
const reference = () => import(/* @vite-ignore */ fileURLToPath(new URL('../../fixtures/vectors/sep3004/gif-conformance/audit-record-contract.ts', import.meta.url)));

beforeAll(async () => {
  const g = await generateLog(60, { concurrency: 12 });
  dir = g.dir;
  const t = g.dataDir.log('default');
  const first = [...t.store.entries(0, t.store.size())].map((e) => decodeEntry(e.bytes)).find((e) => e.type === 'decision' && (e as any).input?.digest)!;
  erasedDigest = (first as any).input.digest;
  erasedSeq = (await eraseStoredPayload(logPortOf(t.origin, t.store, t.appender), erasedDigest as any, { time: '2026-03-02T00:00:00Z', reason: 'GDPR request' })).seq;
  await g.close();
  const store = openSqliteStore(logPath(dir, 'default'), { readonly: true });
  bytesOf = [...store.entries(0, store.size())].map((e) => e.bytes);
  store.close();
  entries = bytesOf.map((b) => decodeEntry(b));
  out = join(mkdtempSync(join(tmpdir(), 'vouch-sep3004-')), 'records.json');
  const r = await cli('export', '--format', 'sep3004', '-o', out, '--data', dir, '--from', '1');
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  doc = JSON.parse(readFileSync(out, 'utf8'));
}, 180_000);

afterAll(() => undefined);

const clone = () => structuredClone(doc);
const reseal = (records: Sep3004Record[], from = 0) => {
  for (let i = from; i < records.length; i++) {
    const { event_hash: _, previous_hash: __, ...rest } = records[i];
    records[i] = sealSep3004Record(rest, i === 0 ? null : records[i - 1].event_hash) as Sep3004Record;
  }
};

describe('vouch export --format sep3004 of a real log', () => {
  it('has one record per decision entry of the range, each the signed entry\'s facts, linked to it', () => {
    const { from, to } = doc.segment.range;
    expect(from).toBe(1);
    expect(to).toBeGreaterThan(60);
    const decisions = entries.map((e, seq) => ({ e, seq })).filter(({ e, seq }) => e.type === 'decision' && seq >= from && seq < to);
    expect(doc.records.map((r) => r.vouch.seq)).toEqual(decisions.map((d) => d.seq));
    expect(doc.segment.counts.decisions).toBe(decisions.length);
    expect(doc.records.some((r) => r.outcome === 'denied')).toBe(true);
    expect(doc.records.some((r) => r.outcome === 'allowed')).toBe(true);
    for (const r of doc.records) {
      const d = readDecisionEntry(entries[r.vouch.seq]);
      const bytes = bytesOf[r.vouch.seq];
      expect(r.outcome).toBe(d.decision.effect === 'deny' ? 'denied' : 'allowed');
      expect(r.principal_id).toBe(d.principal);
      expect(r.tool_name).toBe(d.target ?? null);
      expect(r.occurred_at).toBe(new Date(d.time).toISOString());
      expect(r.extensions['runtime-security'].evidence_hash).toBe(`sha256:${createHash('sha256').update(bytes).digest('hex')}`);
      expect(r.extensions['runtime-security'].quarantine_decision).toBe(d.decision.effect === 'deny' ? 'quarantine' : 'release');
      expect(r.vouch.leaf_hash).toBe(toHex(hashLeaf(bytes)));
      expect(r.vouch.receipt).toEqual({ command: `vouch receipt ${r.vouch.seq}`, url: `/v1/entries/${r.vouch.seq}` });
      expect(r.vouch.chain.effect).toBe(d.decision.effect);
    }
    expect(doc.records[0].previous_hash).toBeNull();
  });

  it('the receipt command a record names proves the very entry the record commits to', async () => {
    const r = doc.records.find((x) => x.outcome === 'denied')!;
    const [, , seq] = r.vouch.receipt.command.split(' ');
    const got = await cli('receipt', seq, '--data', dir);
    expect(got.code).toBe(0);
    const receipt = JSON.parse(got.out);
    expect(receipt.leafHash).toBe(r.vouch.leaf_hash);
    expect(`sha256:${createHash('sha256').update(Buffer.from(receipt.entry, 'base64')).digest('hex')}`).toBe(r.extensions['runtime-security'].evidence_hash);
  });

  it('shows an erased payload as erased, naming the erasure entry; the record itself is unchanged by it', () => {
    const erased = doc.records.filter((r) => 'digest' in r.vouch.input && r.vouch.input.erased);
    expect(erased.length).toBeGreaterThan(0);
    expect(doc.segment.counts.erased).toBe(erased.length);
    for (const r of erased) expect(r.vouch.input).toEqual({ digest: erasedDigest, erased: { seq: erasedSeq } });
    // The protected body is a function of the decision entry alone: the erasure changes no hash.
    const r = erased[0];
    const d = readDecisionEntry(entries[r.vouch.seq]);
    const again = recordOfDecision(d, { origin: doc.segment.origin, bytes: bytesOf[r.vouch.seq], leaf: hashLeaf(bytesOf[r.vouch.seq]), erasedBy: new Map(), receipt: () => r.vouch.receipt });
    expect(sealSep3004Record(again, r.previous_hash).event_hash).toBe(r.event_hash);
  });

  it('passes C-REC-1..7, and `vouch verify` prints each check', async () => {
    const report = verifySep3004(doc);
    expect(report.checks.map((c) => [c.id, c.status])).toEqual(['C-REC-1', 'C-REC-2', 'C-REC-3', 'C-REC-4', 'C-REC-5', 'C-REC-6', 'C-REC-7'].map((id) => [id, 'pass']));
    const text = await cli('verify', out);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/VALID SEP-3004 records/);
    for (let n = 1; n <= 7; n++) expect(text.out).toContain(`✓ C-REC-${n} `);
    const json = await cli('verify', out, '--json');
    expect(JSON.parse(json.out)).toMatchObject({ valid: true, format: 'sep3004', records: doc.records.length, checks: expect.any(Array) });
  });

  it('is accepted by the contract\'s reference verifier (gif), code vouch did not write', async () => {
    const ref = await reference();
    for (const r of doc.records) {
      expect(ref.validateSkeleton(r)).toEqual({ ok: true, failures: [] });
      expect(ref.validateExtensions(r)).toEqual({ ok: true, failures: [] });
      expect(ref.computeEventHash(r)).toBe(r.event_hash);
    }
    expect(ref.verifyChainSegment(doc.records)).toEqual({ ok: true, failures: [] });
    expect(ref.validateManifest(doc.attestation_manifest)).toEqual({ ok: true, failures: [] });
  });
});

const jq = spawnSync('jq', ['--version']).status === 0;

describe('read by tools that are not vouch', () => {
  it.skipIf(!jq)(jq ? 'jq -S writes each record\'s canonical form and node:crypto hashes it to its event_hash (vouch\'s records are ASCII: sorted compact JSON is the form)' : 'skipped: jq is not installed here (the reference verifier above reads the export)', () => {
    const r = spawnSync('jq', ['-c', '-S', '.records[] | del(.event_hash, .vouch)', out], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.map((l) => createHash('sha256').update(l, 'utf8').digest('hex'))).toEqual(doc.records.map((x) => x.event_hash));
  });
});

describe('one record tampered with: the C-REC checks name it (the attacker edits the exported file)', () => {
  const deny = () => doc.records.findIndex((r) => r.outcome === 'denied');
  const cases: [string, (d: ReturnType<typeof clone>) => void, string[], boolean][] = [
    ['a deny rewritten to allowed', (d) => void (d.records[deny()].outcome = 'allowed'), ['C-REC-3'], false],
    ['a deny rewritten to allowed and its hash recomputed', (d) => {
      const i = deny();
      d.records[i].outcome = 'allowed';
      const { event_hash: _, ...rest } = d.records[i];
      d.records[i] = sealSep3004Record(rest, rest.previous_hash) as Sep3004Record;
    }, ['C-REC-4'], false],
    ['the principal replaced', (d) => void (d.records[2].principal_id = 'mallory'), ['C-REC-3'], false],
    ['the runtime-security severity lowered', (d) => void (d.records[deny()].extensions['runtime-security'].severity = 'low'), ['C-REC-3'], false],
    ['a record removed', (d) => void d.records.splice(3, 1), ['C-REC-4', 'C-REC-5'], false],
    ['two records swapped', (d) => void ([d.records[3], d.records[4]] = [d.records[4], d.records[3]]), ['C-REC-4', 'C-REC-5'], false],
    ['the head record removed and the chain re-sealed', (d) => {
      d.records.shift();
      reseal(d.records);
    }, ['C-REC-5'], true],
    ['an unregistered extension added and the chain re-sealed', (d) => {
      (d.records[1].extensions as any)['io.vouch/chain'] = { verdict: 'allow' };
      reseal(d.records, 1);
    }, ['C-REC-1'], true],
    ['a timestamp without milliseconds', (d) => {
      d.records[1].occurred_at = d.records[1].occurred_at.replace('.000Z', 'Z');
      reseal(d.records, 1);
    }, ['C-REC-1'], true],
    ['the attestation manifest dropped', (d) => void delete (d as any).attestation_manifest, ['C-REC-7'], false],
  ];
  for (const [name, tamper, failing, resealed] of cases) {
    it(`${name}: ${failing.join(', ')} fail${resealed ? '' : ', and the reference verifier rejects the chain'}`, async () => {
      const d = clone();
      tamper(d);
      const report = verifySep3004(d);
      expect(report.ok).toBe(false);
      expect(report.checks.filter((c) => c.status === 'fail').map((c) => c.id)).toEqual(failing);
      if (!resealed && failing.some((id) => id === 'C-REC-3' || id === 'C-REC-4')) expect((await reference()).verifyChainSegment(d.records).ok).toBe(false);
      const file = join(mkdtempSync(join(tmpdir(), 'vouch-sep3004-t-')), 'records.json');
      writeFileSync(file, JSON.stringify(d, null, 1)); // as jq would print it: still found to be an export
      const r = await cli('verify', file);
      expect(r.code).toBe(1);
      expect(r.out).toMatch(/INVALID/);
      for (const id of failing) expect(r.out).toContain(`✗ ${id} `);
    });
  }
});

describe('vouch verify FILE --data DIR: each record is what the signed log says', () => {
  it('passes on the export as written, and names the link check', async () => {
    const r = await cli('verify', out, '--data', dir, '--json');
    expect(r.code).toBe(0);
    const link = JSON.parse(r.out).checks.find((c: { id: string }) => c.id === 'vouch-link');
    expect(link).toMatchObject({ status: 'pass', findings: [] });
  });

  it('catches a whole chain rewritten and re-sealed, which C-REC-1..7 alone cannot (no anchor, contract §2.8)', async () => {
    const d = clone();
    const i = d.records.findIndex((r) => r.outcome === 'denied');
    d.records[i].outcome = 'allowed';
    d.records[i].extensions['runtime-security'].quarantine_decision = 'release';
    reseal(d.records, i);
    expect(verifySep3004(d).ok).toBe(true);
    const file = join(mkdtempSync(join(tmpdir(), 'vouch-sep3004-l-')), 'records.json');
    writeFileSync(file, JSON.stringify(d));
    expect((await cli('verify', file)).code).toBe(0);
    const r = await cli('verify', file, '--data', dir);
    expect(r.code).toBe(1);
    expect(r.out).toContain('✗ vouch-link ');
    expect(r.out).toContain(`record ${i} (${d.records[i].event_id}): the record is not what entry ${d.records[i].vouch.seq} says`);
  });

  it('catches a decision left out and the chain re-sealed', async () => {
    const d = clone();
    const [gone] = d.records.splice(4, 1);
    d.segment.counts.decisions--;
    reseal(d.records);
    expect(verifySep3004(d).ok).toBe(true);
    const file = join(mkdtempSync(join(tmpdir(), 'vouch-sep3004-l-')), 'records.json');
    writeFileSync(file, JSON.stringify(d));
    const r = await cli('verify', file, '--data', dir);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`decision entry ${gone.vouch.seq} has no record`);
  });
});

describe('derived from the signed log, fail closed', () => {
  it('an entry byte altered in the database (triggers dropped): the export fails naming it, and writes nothing', async () => {
    const work = mkdtempSync(join(tmpdir(), 'vouch-sep3004-db-'));
    cpSync(dir, work, { recursive: true });
    const db = new Database(logPath(work, 'default'));
    db.exec('DROP TRIGGER entries_no_update');
    const seq = doc.records.find((r) => r.outcome === 'denied')!.vouch.seq;
    const text = Buffer.from(bytesOf[seq]).toString('utf8');
    // Same length, still canonical JSON: a deny rewritten as an allow, the leaf index left alone.
    const forged = text.replace('"effect":"deny"', '"effect":"allo"');
    expect(forged).not.toBe(text);
    db.prepare('UPDATE entries SET bytes = ? WHERE seq = ?').run(Buffer.from(forged), seq);
    db.close();
    const file = join(work, 'records.json');
    const r = await cli('export', '--format', 'sep3004', '-o', file, '--data', work);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/ERR_VERIFY_CHECKPOINT.*signed root/);
    expect(existsSync(file)).toBe(false);
  });

  it('a protected string the form cannot carry (a control character) fails the export by name, ERR_NOT_CANONICAL', () => {
    const r = doc.records[0];
    const d = { ...readDecisionEntry(entries[r.vouch.seq]), principal: 'bob\u0007' };
    expect(() => recordOfDecision(d, { origin: doc.segment.origin, bytes: bytesOf[r.vouch.seq], leaf: hashLeaf(bytesOf[r.vouch.seq]), erasedBy: new Map(), receipt: () => r.vouch.receipt })).toThrow(expect.objectContaining({ code: 'ERR_NOT_CANONICAL', message: expect.stringContaining('principal_id') }));
  });

  it('refuses --payloads, an existing file and an unknown --format', async () => {
    expect((await cli('export', '--format', 'sep3004', '-o', join(tmpdir(), 'never.json'), '--payloads', '--data', dir)).code).toBe(2);
    expect((await cli('export', '--format', 'sep3004', '-o', out, '--data', dir)).code).toBe(2);
    expect((await cli('export', '--format', 'csv', '-o', join(tmpdir(), 'never.csv'), '--data', dir)).code).toBe(2);
  });
});
