// Decisions per second through the Worker as it runs under `wrangler dev --local` (workerd, the
// real handler, SQLite Durable Objects on disk), on 127.0.0.1: the example config, the one Node
// runs, with its stateful guards (rate-limit, cross-boundary-guard, schema-guard: each decision
// reads and updates VouchState objects), against the same config without those three, in the same
// run, both Workers up side by side and measured in turns. Reported as a ratio: what the stateful
// guards cost at the edge. POST /mcp executeChain, as bench/http.bench.ts sends it to Node; the
// load client is the same raw keep-alive client in its own process (bench/_http-job.ts).
// Bounded: fixed request counts (smaller with --quick), each measurement killed past its timeout,
// and the whole module stops measuring once its time budget is spent.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromBase64, utf8 } from '../src/canonical/index.js';
import { formatKeyText } from '../src/crypto/index.js';
import { generateSeed } from '../src/crypto/node.js';
import type { Json } from '../src/interceptors/types.js';
import { resolveConfigDocument } from '../src/policy/index.js';
import { checkWorkerConfig, renderWorkerConfig, type GeneratedWorkerConfig } from '../scripts/build-worker-config.js';
import { resolveEmbeddedConfig } from '../src/policy/config-embedded.js';
import { runLoad } from './_http-job.js';
import { median, round } from './_stats.js';
import type { BenchContext, Result } from './_types.js';
import { startDev, type DevServer } from './_wrangler.js';

/** The built-ins whose state lives in VouchState objects on Workers. */
const STATEFUL = ['rate-limit', 'cross-boundary-guard', 'schema-guard'];

// As http.bench.ts: an allowed call, one the PII redactor changes, one Cedar denies.
const PAYLOADS = [
  { name: 'echo', arguments: { text: 'hello there' } },
  { name: 'echo', arguments: { text: 'call me at 415 555 0199' } },
  { name: 'dangerous_tool', arguments: {} },
];

const body = (i: number) =>
  JSON.stringify({ jsonrpc: '2.0', id: i, method: 'interceptor/executeChain', params: { event: 'tools/call', phase: 'request', payload: PAYLOADS[i % PAYLOADS.length], context: { sessionId: `s${i % 32}` } } });

interface Variant {
  name: string;
  note: string;
  dev?: DevServer;
}

/** Warm-up calls per Worker and the concurrency levels measured. */
export interface WorkersSizes {
  warm: number;
  levels: { c: number; total: number }[];
}

/** CI's smoke (test/bench/workers.test.ts): both Workers up, every line at one small level. */
export const TOY: WorkersSizes = { warm: 3, levels: [{ c: 2, total: 12 }] };

export async function run(ctx: BenchContext, sizes?: WorkersSizes): Promise<Result[]> {
  const budgetMs = ctx.quick ? 4 * 60_000 : 20 * 60_000;
  const startedAt = Date.now();
  const example = resolveEmbeddedConfig(JSON.parse(await renderWorkerConfig()) as GeneratedWorkerConfig, {}) as unknown as { interceptors: { use?: string }[] };
  const reduced = { ...example, interceptors: example.interceptors.filter((d) => !STATEFUL.includes(d.use ?? '')) };
  await checkWorkerConfig(resolveConfigDocument(reduced as unknown as Json), 'the example config without the stateful guards');
  if (reduced.interceptors.length !== example.interceptors.length - STATEFUL.length) throw new Error(`the example config should hold each of ${STATEFUL.join(', ')} once`);

  const variants: Variant[] = [
    { name: 'example', note: 'the example config: every built-in, stateful guards on Durable Objects' },
    { name: 'stateless', note: `the example config without ${STATEFUL.join(', ')}` },
  ];
  const results: Result[] = [];
  try {
    // Started one after the other (each bundles and boots workerd), then both stay up for the measurements.
    for (const [v, config] of [
      [variants[0], example],
      [variants[1], reduced],
    ] as const) {
      const dir = ctx.tempDir(`workers-${v.name}`);
      writeFileSync(join(dir, '.dev.vars'), `VOUCH_SIGNING_KEY='${formatKeyText('ML-DSA-65', generateSeed()).trim()}'\n`, { mode: 0o600 });
      v.dev = await startDev({ persist: join(dir, 'state'), envFile: join(dir, '.dev.vars'), config, entryDir: dir });
      await expectGuards(v.dev, v.name === 'example');
      ctx.log(`workers ${v.name}: wrangler dev on ${v.dev.url}`);
    }
    const load = (v: Variant, concurrency: number, total: number) =>
      runLoad({ port: v.dev!.port, path: '/mcp', method: 'POST', concurrency, total, bodies: Array.from({ length: total }, (_, i) => body(i)), expect: 'io.vouch/receipt' });
    for (const v of variants) await load(v, 4, sizes?.warm ?? (ctx.quick ? 40 : 100)); // warm-up: bundle loaded, objects created, Cedar compiled

    const levels = sizes?.levels ?? (ctx.quick ? [{ c: 8, total: 200 }] : [{ c: 1, total: 200 }, { c: 16, total: 1000 }]);
    for (const { c, total } of levels) {
      const rates: Record<string, number[]> = { example: [], stateless: [] };
      const p50s: Record<string, number[]> = { example: [], stateless: [] };
      const errors: Record<string, number> = { example: 0, stateless: 0 };
      for (let r = 0; r < ctx.repeat; r++) {
        if (Date.now() - startedAt > budgetMs) {
          ctx.log(`workers: time budget of ${budgetMs / 60_000} min spent, ${r} repetition(s) at c=${c}`);
          break;
        }
        // In turns, the order flipped each repetition, so drift on a shared machine hits both alike.
        for (const v of r % 2 === 0 ? variants : [...variants].reverse()) {
          const got = await load(v, c, total);
          rates[v.name].push(got.rate);
          p50s[v.name].push(got.p50);
          errors[v.name] += got.errors;
          ctx.log(`workers ${v.name} c=${c}: ${round(got.rate)} decisions/s, p50 ${round(got.p50)} ms, p99 ${round(got.p99)} ms, ${got.errors} errors`);
          if (got.errors === got.n) throw new Error(`workers ${v.name}: every request failed\n${v.dev!.output().slice(-2000)}`);
        }
      }
      if (rates.example.length === 0) continue;
      const [withState, without] = [median(rates.example), median(rates.stateless)];
      results.push({
        name: `decisions.c${c}`,
        unit: 'decisions/s',
        value: round(withState),
        baseline: round(without),
        ratio: round(withState / without),
        note: `example config (stateful guards on) / without rate-limit, cross-boundary-guard, schema-guard; ${total} decisions x ${rates.example.length}; ${errors.example + errors.stateless} errors; past 120 calls a minute per tool the example's rate-limit denies (recorded all the same)`,
      });
      results.push({ name: `stateless.c${c}`, unit: 'decisions/s', value: round(without), note: variants[1].note });
      results.push({ name: `decisions.c${c}.p50`, unit: 'ms', value: round(median(p50s.example)), note: variants[0].note });
      results.push({ name: `stateless.c${c}.p50`, unit: 'ms', value: round(median(p50s.stateless)), note: variants[1].note });
    }
  } finally {
    for (const v of variants) await v.dev?.stop();
  }
  return results;
}

/** One decision, to see that the guards measured are the guards running: each records its state in the entry. */
async function expectGuards(dev: DevServer, stateful: boolean): Promise<void> {
  const res = await fetch(`${dev.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: body(0) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`wrangler dev answered ${res.status}: ${text.slice(0, 500)}\n${dev.output().slice(-2000)}`);
  const receipt = (JSON.parse(text) as { result: { _meta: Record<string, { entry: string }> } }).result._meta['io.vouch/receipt'];
  const entry = JSON.parse(utf8.decode(fromBase64(receipt.entry))) as { state: Record<string, unknown> };
  const has = ['rate', 'exfiltration', 'schemas'].filter((name) => name in entry.state);
  if (has.length !== (stateful ? 3 : 0)) throw new Error(`expected ${stateful ? 'every' : 'no'} stateful guard to record state, got ${has.join(', ') || 'none'}`);
}
