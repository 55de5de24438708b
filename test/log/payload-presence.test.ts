// Issue 40: `vouch log verify`'s payload check in memory that does not grow with the log. Its state
// per payload goes to the verifier's scratch SQLite ledger (real SQLite); the heap holds a fixed
// cache. Each finding kind through that path, the same verdicts as the all-in-memory check it
// replaced (kept below as the reference), and the bound over 200,000 entries.
import { describe, expect, it } from 'vitest';
import { digestBytes, utf8, type Digest } from '../../src/canonical/index.js';
import { ENRICH_STATE_KEY, MAX_LISTED, PayloadPresenceCheck, payloadDigestsOf, PRESENCE_CACHE, type RuleFinding } from '../../src/log/activation-check.js';
import type { Entry } from '../../src/log/index.js';
import { openPayloadLedger } from '../../src/store/node.js';

const head = (seq: number) => ({ v: 1 as const, log: 'test/x', seq, prev: '0'.repeat(64), time: '2026-12-01T00:00:00Z' });
const decision = (seq: number, ...named: Digest[]): Entry => ({
  ...head(seq), type: 'decision', input: { digest: named[0] }, intent: named[1] ? { digest: named[1] } : null,
  ...(named[2] && { state: { [ENRICH_STATE_KEY]: [{ enricher: 'e', enrichment: named[2] }] } }),
});
const requested = (seq: number, digest: Digest): Entry => ({ ...head(seq), type: 'erasure', digest });
const batch = (seq: number, digests: Digest[], before?: number): Entry => ({ ...head(seq), type: 'erasure', digests, ...(before !== undefined && { before }) });

const payload = (i: number) => utf8.encode(`{"n":${i}}`);

/** The check as it was before issue 40 (every digest in Maps): the verdicts the ledger must keep. */
function reference(entries: Entry[], get: (d: Digest) => Uint8Array | undefined): RuleFinding[] {
  const missing = new Map<Digest, number>();
  const erased = new Set<Digest>();
  const retainedBefore = new Map<Digest, { before: number; seq: number }>();
  const lastNamed = new Map<Digest, number>();
  const out: RuleFinding[] = [];
  for (const e of entries) {
    let finding: RuleFinding | undefined;
    if (e.type === 'erasure') {
      if (typeof e.digest === 'string') erased.add(e.digest as Digest);
      const before = e.before as number | undefined;
      for (const d of (e.digests as Digest[] | undefined) ?? []) {
        if (before === undefined) erased.add(d);
        else if ((retainedBefore.get(d)?.before ?? -1) < before) retainedBefore.set(d, { before, seq: e.seq });
        const named = lastNamed.get(d);
        if (before !== undefined && named !== undefined && named >= before && !get(d)) finding ??= { kind: 'payload', seq: e.seq, message: `payload ${d} is gone under retention erasure ${e.seq} (payloads no entry since seq ${before} names), yet entry ${named} names it: the store's retention index was moved` };
      }
    } else
      for (const d of payloadDigestsOf(e)) {
        const seen = lastNamed.has(d);
        lastNamed.set(d, e.seq);
        if (seen) continue;
        const bytes = get(d);
        if (!bytes) missing.set(d, e.seq);
        else if (digestBytes(bytes) !== d) finding ??= { kind: 'payload', seq: e.seq, message: `payload ${d} named by entry ${e.seq} is stored with bytes that hash to ${digestBytes(bytes)}: it was rewritten` };
      }
    if (finding) out.push(finding);
  }
  for (const [digest, seq] of missing) {
    if (erased.has(digest)) continue;
    const last = lastNamed.get(digest) ?? seq;
    const retained = retainedBefore.get(digest);
    if (retained && last < retained.before) continue;
    out.push({ kind: 'payload', seq: last, message: retained ? `payload ${digest} named by entry ${last} is not stored; retention erasure ${retained.seq} took only a copy no entry since seq ${retained.before} named, and no erasure entry removed this one` : `payload ${digest} named by entry ${seq} is not stored, and no erasure entry removed it` });
  }
  return out;
}

function run(entries: Iterable<Entry>, get: (d: Digest) => Uint8Array | undefined) {
  const ledger = openPayloadLedger();
  const check = new PayloadPresenceCheck(get, ledger);
  const findings: RuleFinding[] = [];
  let held = 0;
  for (const e of entries) {
    const f = check.visit(e);
    if (f) findings.push(f);
    held = Math.max(held, check.heldInMemory);
  }
  const rows = ledger.rows;
  findings.push(...check.end());
  return { findings, held, rows };
}

const sorted = (f: RuleFinding[]) => [...f].sort((a, b) => a.seq - b.seq || a.message.localeCompare(b.message));

describe('PayloadPresenceCheck through the scratch ledger', () => {
  // Each kind, as a file-level attacker (no key) leaves the payload table.
  const stored = [0, 1, 2, 3, 4, 5].map(payload);
  const d = stored.map((b) => digestBytes(b));
  const table = (map: Record<number, Uint8Array | undefined>) => (x: Digest) => {
    const i = d.indexOf(x);
    return i in map ? map[i] : stored[i];
  };

  it('a deleted payload no erasure names: a finding at its last naming, naming its first', () => {
    const { findings } = run([decision(0, d[0]), decision(1, d[1]), decision(2, d[1])], table({ 1: undefined }));
    expect(findings).toEqual([{ kind: 'payload', seq: 2, message: `payload ${d[1]} named by entry 1 is not stored, and no erasure entry removed it` }]);
  });

  it('a rewritten payload: one finding, at the entry that first names it, however often it is named', () => {
    const { findings } = run([decision(0, d[2]), decision(1, d[2]), decision(2, d[2])], table({ 2: utf8.encode('other') }));
    expect(findings).toEqual([expect.objectContaining({ kind: 'payload', seq: 0, message: expect.stringContaining(`payload ${d[2]} named by entry 0 is stored with bytes that hash to`) })]);
  });

  it('erased on request, before or after its namings: no finding; stored though erased: no finding', () => {
    const { findings, rows } = run([requested(0, d[3]), decision(1, d[3]), decision(2, d[4]), requested(3, d[4]), requested(4, d[5])], table({ 3: undefined, 4: undefined }));
    expect(findings).toEqual([]);
    expect(rows).toBe(4); // two namings and two erasures of missing payloads; the stored d[5] writes nothing
  });

  it('the retention index moved: an erasure took a payload an entry at or after its before names', () => {
    const { findings } = run([decision(0, d[0]), decision(1, d[1]), decision(2, d[1]), batch(3, [d[0], d[1]], 2)], table({ 0: undefined, 1: undefined }));
    expect(findings).toEqual([
      { kind: 'payload', seq: 3, message: `payload ${d[1]} is gone under retention erasure 3 (payloads no entry since seq 2 names), yet entry 2 names it: the store's retention index was moved` },
      expect.objectContaining({ kind: 'payload', seq: 2, message: expect.stringContaining('retention erasure 3 took only a copy no entry since seq 2 named') }),
    ]);
  });

  it('a retention erasure excuses only the copy it took (named again after it, then deleted: a finding)', () => {
    const { findings } = run([decision(0, d[0]), batch(1, [d[0]], 1), decision(2, d[0]), decision(3, d[1]), batch(4, [d[1]], 4)], table({ 0: undefined, 1: undefined }));
    expect(findings).toEqual([{ kind: 'payload', seq: 2, message: `payload ${d[0]} named by entry 2 is not stored; retention erasure 1 took only a copy no entry since seq 1 named, and no erasure entry removed this one` }]);
  });

  it('a flood of deleted payloads lists MAX_LISTED and says how many more', () => {
    const n = MAX_LISTED + 5;
    const { findings } = run(Array.from({ length: n }, (_, i) => decision(i, digestBytes(payload(1e6 + i)))), () => undefined);
    expect(findings).toHaveLength(MAX_LISTED + 1);
    expect(findings.at(-1)!.message).toBe('5 more payload findings like these are not listed');
  });

  it('the same verdicts as the all-in-memory check, over random logs (payloads stored, rewritten, deleted; erasures of every kind)', () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 300; round++) {
      const pool = Array.from({ length: 3 + rand(12) }, (_, i) => payload(round * 100 + i));
      const digests = pool.map((b) => digestBytes(b));
      const state = digests.map(() => rand(5)); // 0-2 stored, 3 missing, 4 rewritten
      const get = (x: Digest) => {
        const i = digests.indexOf(x);
        return state[i] === 3 ? undefined : state[i] === 4 ? utf8.encode('rewritten') : pool[i];
      };
      const pick = () => digests[rand(digests.length)];
      const entries: Entry[] = [];
      for (let seq = 0; seq < 5 + rand(40); seq++) {
        const k = rand(10);
        if (k < 6) entries.push(decision(seq, ...[...new Set([pick(), pick(), pick()])].slice(0, 1 + rand(3))));
        else if (k === 6) entries.push({ ...head(seq), type: 'execution', executed: { digest: pick() } });
        else if (k === 7) entries.push(requested(seq, pick()));
        else entries.push(batch(seq, [...new Set([pick(), pick(), pick()])], k === 8 ? undefined : rand(seq + 1)));
      }
      expect(sorted(run(entries, get).findings), `round ${round}`).toEqual(sorted(reference(entries, get)));
    }
  });

  it('bounded: 200,000 entries each naming payloads of their own, most erased by retention, hold a fixed cache in the heap; the rest is in the ledger', () => {
    const N = 200_000;
    const digestOf = (i: number) => digestBytes(payload(i));
    const storedFrom = 150_000; // retention took the payloads of the first 150,000 decisions
    const victim = 170_000; // a file-level attacker deleted one stored payload
    const entries = function* (): Iterable<Entry> {
      for (let seq = 0; seq < N; seq++) yield decision(seq, digestOf(seq));
      for (let first = 0, seq = N; first < storedFrom; first += 1000, seq++) yield batch(seq, Array.from({ length: 1000 }, (_, i) => digestOf(first + i)), storedFrom);
    };
    // The "store": the payloads of seq >= storedFrom, less the victim's.
    const index = new Map<Digest, number>();
    for (let i = storedFrom; i < N; i++) index.set(digestOf(i), i);
    const get = (x: Digest): Uint8Array | undefined => {
      const i = index.get(x);
      return i === undefined || i === victim ? undefined : payload(i);
    };
    const { findings, held, rows } = run(entries(), get);
    expect(held).toBeLessThanOrEqual(PRESENCE_CACHE);
    // What the old check held in Maps (one key per distinct payload named) is now in the ledger: each missing naming and erasure.
    expect(rows).toBe(storedFrom + 1 + storedFrom);
    expect(findings).toEqual([{ kind: 'payload', seq: victim, message: `payload ${digestOf(victim)} named by entry ${victim} is not stored, and no erasure entry removed it` }]);
  }, 120_000);
});
