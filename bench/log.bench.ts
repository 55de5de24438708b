// Signed, durable appends per second at the log level, as the service runs them: a real SQLite
// file (WAL, synchronous=FULL), the ML-DSA-65 signer in a worker thread plus the Ed25519
// co-signer, each entry with its input and intent payloads. Group commit (many appends in
// flight) and the naive path (one append awaited at a time: one signature and one transaction
// per entry) run side by side, interleaved, in the same process.
import { canonicalBytes, digestBytes, sha256, toHex } from '../src/canonical/index.js';
import type { Attachment, BatchStats, EntryBody } from '../src/log/index.js';
import { initDataDir, openDataDir, type TenantLog } from '../src/store/node.js';
import { median, percentile, round } from './_stats.js';
import type { BenchContext, Result } from './_types.js';

interface Work {
  body: EntryBody;
  attachments: Attachment[];
}

const digestOf = (s: string) => `sha256:${toHex(sha256(new TextEncoder().encode(s)))}`;
const CHAIN = digestOf('chain');
const POLICY = digestOf('policy');

/** A decision entry shaped like decide.ts writes one (about 900 bytes), with its two payloads. */
export function makeWork(i: number): Work {
  const input = canonicalBytes({ name: 'read_file', arguments: { path: `/srv/reports/q${i % 4}/file-${i}.csv`, encoding: 'utf8' } });
  const intent = canonicalBytes({ name: 'read_file', arguments: { path: `/srv/reports/q${i % 4}/file-${i}.csv` } });
  const inputDigest = digestBytes(input);
  const intentDigest = digestBytes(intent);
  const body = {
    type: 'decision',
    time: '2026-11-30T12:00:00.000Z',
    tenant: 'acme',
    principal: `user:${i % 97}@acme.example`,
    roles: ['enforce'],
    event: 'tools/call',
    phase: 'request',
    direction: 'sending',
    session: `sess-${Math.floor(i / 50)}`,
    server: 'filesystem',
    policy: { chain: CHAIN, policySet: POLICY, engines: { vouch: '0.1.0', cedar: '4.13.0' } },
    input: { digest: inputDigest },
    intent: { digest: intentDigest },
    decision: {
      effect: 'allow',
      status: 'success',
      summary: { errors: 0, warnings: 0, infos: 1 },
      results: [
        { interceptor: 'pii-redactor', type: 'mutation', phase: 'request', modified: true, info: { redactions: { EMAIL: 1 } } },
        { interceptor: 'cedar-policy', type: 'validation', phase: 'request', valid: true, severity: 'info', messages: [{ message: 'permit: policy0', severity: 'info' }] },
        { interceptor: 'rate-limit', type: 'validation', phase: 'request', valid: true },
      ],
    },
    state: { 'rate-limit': { key: `user:${i % 97}/read_file`, count: (i % 60) + 1, window: '2026-11-30T12:00Z' } },
  } as EntryBody;
  return { body, attachments: [{ digest: inputDigest, bytes: input }, { digest: intentDigest, bytes: intent }] };
}

interface Measured {
  rate: number;
  latencies: number[];
  batches: BatchStats[];
}

export async function measureGroup(log: TenantLog, work: Work[], inFlight: number, batches: BatchStats[]): Promise<Measured> {
  const latencies = new Array<number>(work.length);
  const firstBatch = batches.length;
  let next = 0;
  const t0 = performance.now();
  const lane = async () => {
    while (next < work.length) {
      const i = next++;
      const s = performance.now();
      await log.appender.append(work[i].body, work[i].attachments);
      latencies[i] = performance.now() - s;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  const elapsed = performance.now() - t0;
  return { rate: (work.length * 1000) / elapsed, latencies, batches: batches.slice(firstBatch) };
}

async function measureNaive(log: TenantLog, work: Work[], batches: BatchStats[]): Promise<Measured> {
  const latencies: number[] = [];
  const firstBatch = batches.length;
  const t0 = performance.now();
  for (const w of work) {
    const s = performance.now();
    await log.appender.append(w.body, w.attachments);
    latencies.push(performance.now() - s);
  }
  const elapsed = performance.now() - t0;
  return { rate: (work.length * 1000) / elapsed, latencies, batches: batches.slice(firstBatch) };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** Appends measured: under group commit, one at a time, and the warm-up's (each is split group/naive as 1000:30). */
export interface LogSizes {
  groupN: number;
  naiveN: number;
  warm: number;
}

/** CI's smoke (test/bench/log.test.ts): every line, in seconds. */
export const TOY: LogSizes = { groupN: 200, naiveN: 8, warm: 40 };

export async function run(ctx: BenchContext, sizes?: LogSizes): Promise<Result[]> {
  const groupN = sizes?.groupN ?? (ctx.quick ? 4000 : 20_000);
  const naiveN = sizes?.naiveN ?? (ctx.quick ? 100 : 300);
  const warmN = sizes?.warm ?? 1000;
  const inFlight = 512;
  const dir = ctx.tempDir('log');
  initDataDir(dir);
  const batches: BatchStats[] = [];
  const dd = await openDataDir(dir, { thread: true, monotonic: () => performance.now(), onBatch: (_t, s) => batches.push(s) });
  const groups: Measured[] = [];
  const naives: Measured[] = [];
  try {
    const work = Array.from({ length: Math.max(groupN, warmN + 30) }, (_, i) => makeWork(i));
    // Warm the JIT, the worker and the page cache on a log of its own before timing anything.
    const warm = dd.log('warmup');
    await measureGroup(warm, work.slice(0, warmN), inFlight, batches);
    await measureNaive(warm, work.slice(warmN, warmN + 30), batches);
    for (let rep = 0; rep < ctx.repeat; rep++) {
      // Each measurement starts a fresh log (its own SQLite file), so every one appends from seq 0.
      const naive = await measureNaive(dd.log(`naive-${rep}`), work.slice(0, naiveN), batches);
      naives.push(naive);
      ctx.log(`  naive #${rep + 1}: ${round(naive.rate)} appends/s over ${naiveN}`);
      const group = await measureGroup(dd.log(`group-${rep}`), work.slice(0, groupN), inFlight, batches);
      groups.push(group);
      ctx.log(`  group #${rep + 1}: ${round(group.rate)} appends/s over ${groupN}, ${group.batches.length} batches`);
    }
  } finally {
    await dd.close();
  }
  const naiveRate = median(naives.map((m) => m.rate));
  const groupRate = median(groups.map((m) => m.rate));
  const of = (ms: Measured[], f: (m: Measured) => number) => median(ms.map(f));
  const reps = ctx.repeat === 1 ? 'one run' : `median of ${ctx.repeat}`;
  const results: Result[] = [
    {
      name: 'append_group',
      unit: 'appends/s',
      value: groupRate,
      baseline: naiveRate,
      ratio: groupRate / naiveRate,
      note: `group commit, ${groupN} entries, ${inFlight} in flight, ${reps}; bar: >= 10x naive and >= 5000/s`,
    },
    { name: 'append_naive', unit: 'appends/s', value: naiveRate, note: `one signature + one transaction per entry, ${naiveN} awaited one at a time, ${reps}` },
    { name: 'append_group_p50', unit: 'ms', value: of(groups, (m) => percentile(m.latencies, 50)), note: 'append latency under group commit' },
    { name: 'append_group_p99', unit: 'ms', value: of(groups, (m) => percentile(m.latencies, 99)), note: 'append latency under group commit' },
    { name: 'append_naive_p50', unit: 'ms', value: of(naives, (m) => percentile(m.latencies, 50)), note: 'one append alone: sign + commit' },
    { name: 'group_batch_mean', unit: 'entries', value: of(groups, (m) => mean(m.batches.map((b) => b.entries))), note: 'entries per signed checkpoint' },
    { name: 'group_sign_mean', unit: 'ms', value: of(groups, (m) => mean(m.batches.map((b) => b.signMs ?? 0))), note: 'checkpoint signing (ML-DSA-65 in the worker + Ed25519) per batch' },
  ];
  return results.map((r) => ({ ...r, value: round(r.value), baseline: r.baseline && round(r.baseline), ratio: r.ratio && round(r.ratio) }));
}
