// executeChain decisions per second over HTTP (POST /mcp, JSON-RPC) with the default chain (the
// example config: redactors, guards, Cedar, rate limit, observer), at fixed concurrency 1, 16
// and 64, with p50/p99 latency. Every decision is durable before it is answered, and signed too
// with wait "signed" (the default); `durable.*` lines ask for wait "durable" (issue 17) and report
// the coverage delay (durable -> covered by a signed checkpoint, from /metrics) at c=64.
// Baseline in the same run: GET /healthz through the same server and HTTP client (the floor of
// one request without a decision), so the ratio shows what a signed decision costs on top.
// `executeChain2026.*`: the same decisions through the MCP 2026-07-28 envelope (issue 36), the
// bytes and MCP headers the SDK v2 client sends, measured beside the 2025 ones in each
// repetition; their latency and CPU lines have the 2025 line of the same run as baseline.
// The server runs here, on loopback, from dist/ as `vouch serve` runs it (bench/_shipped.ts); the client runs in its own process (bench/_http-load.ts),
// one per measurement, because a client sharing the server's event loop would slow the very
// thing measured. It is a raw keep-alive HTTP/1.1 client with prebuilt requests, so its own CPU
// cost stays small even on a 2-core machine.
import { join } from 'node:path';
import { runLoad } from './_http-job.js';
import { shipped } from './_shipped.js';
import { median, round } from './_stats.js';
import type { BenchContext, Result } from './_types.js';

const PAYLOADS = [
  { name: 'echo', arguments: { text: 'hello there' } },
  { name: 'echo', arguments: { text: 'call me at 415 555 0199' } }, // mutated by the PII redactor
  { name: 'dangerous_tool', arguments: {} }, // denied by Cedar
];

/** How many calls each measurement makes. */
export interface HttpSizes {
  /** Warm-up calls before anything is measured (signed, then durable, then 2026). */
  warm: number;
  /** Calls per measurement at `c` callers. */
  total(c: number): number;
  /** wait "durable": calls with one caller, and at 64. */
  durableOne: number;
  durableTotal: number;
}
const FULL: HttpSizes = { warm: 6000, total: (c) => (c === 1 ? 300 : 3000), durableOne: 300, durableTotal: 3000 };
const QUICK: HttpSizes = { warm: 3000, total: (c) => (c === 1 ? 100 : 500), durableOne: 100, durableTotal: 500 };
/** CI's smoke (test/bench/http.test.ts): every line measured once, at toy size. Its numbers mean nothing. */
export const TOY: HttpSizes = { warm: 64, total: (c) => 2 * c, durableOne: 8, durableTotal: 128 };

/** The 2025 request of decision i: a plain JSON-RPC executeChain. */
export function body2025(i: number, wait?: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: i, method: 'interceptor/executeChain', params: { event: 'tools/call', phase: 'request', payload: PAYLOADS[i % PAYLOADS.length], context: { sessionId: `s${i % 32}` }, ...(wait && { _meta: { 'io.vouch/wait': wait } }) } });
}

export const CLIENT_2026 = Object.freeze({ name: 'vouch-bench', version: '1.0.0' });
/** What the SDK v2 client (2.4.0, pinned to 2026-07-28) sends beside its body: test/bench/http.test.ts captures it. */
export const HEADERS_2026: Readonly<Record<string, string>> = Object.freeze({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'interceptor/executeChain' });

/**
 * The same decision through the 2026-07-28 envelope, byte for byte as the SDK v2 client writes it
 * (its key order: method, params with `_meta` last, jsonrpc, id).
 */
export function body2026(i: number): string {
  const params = { event: 'tools/call', phase: 'request', payload: PAYLOADS[i % PAYLOADS.length], context: { sessionId: `s${i % 32}` } };
  const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': CLIENT_2026, 'io.modelcontextprotocol/clientCapabilities': {} };
  return JSON.stringify({ method: 'interceptor/executeChain', params: { ...params, _meta }, jsonrpc: '2.0', id: i });
}

export async function run(ctx: BenchContext, sizes: HttpSizes = ctx.quick ? QUICK : FULL): Promise<Result[]> {
  const { startServer } = await shipped<typeof import('../src/http/node-server.js')>('http/node-server.js');
  const server = await startServer({ data: join(ctx.tempDir('vouch-bench-http-'), 'data'), port: 0 });
  const results: Result[] = [];
  try {
    const decisions = (concurrency: number, total: number, wait?: string) =>
      runLoad({ port: server.port, path: '/mcp', method: 'POST', concurrency, total, bodies: Array.from({ length: total }, (_, i) => body2025(i, wait)), expect: wait === 'durable' ? 'io.vouch/durable' : 'io.vouch/receipt' });
    // An answer of the 2026 path: a receipt and the result type the 2025 path never writes.
    const decisions2026 = (concurrency: number, total: number) =>
      runLoad({ port: server.port, path: '/mcp', method: 'POST', concurrency, total, bodies: Array.from({ length: total }, (_, i) => body2026(i)), headers: { ...HEADERS_2026 }, expect: ['io.vouch/receipt', '"resultType":"complete"'] });
    const restDecisions = (concurrency: number, total: number) =>
      runLoad({ port: server.port, path: '/v1/authorize', method: 'POST', concurrency, total, bodies: Array.from({ length: total }, (_, i) => JSON.stringify({ event: 'tools/call', phase: 'request', payload: PAYLOADS[i % PAYLOADS.length], wait: 'durable' })), expect: '"durable"' });
    // Warm-up to the steady state a running service is in: V8 keeps optimizing the decision path
    // over the first thousands of calls. Measured at c=64 (durable, 3,000 calls): 2.27 ms of server
    // CPU per decision right after 300 warm-up calls, 1.40 ms after 9,000 more.
    await decisions(16, sizes.warm);
    await decisions(16, sizes.warm / 2, 'durable');
    await decisions2026(16, sizes.warm / 2);
    for (const c of [1, 16, 64]) {
      const total = sizes.total(c);
      const eras = { 2025: newSamples(), 2026: newSamples() };
      const floors: number[] = [];
      for (let r = 0; r < ctx.repeat; r++) {
        const floor = await runLoad({ port: server.port, path: '/healthz', method: 'GET', concurrency: c, total });
        floors.push(floor.rate);
        // Both eras in each repetition, one after the other: a slow phase of a shared machine hits both.
        for (const [era, load] of [['2025', decisions], ['2026', decisions2026]] as const) {
          const cpu0 = process.cpuUsage();
          const run = await load(c, total);
          const cpu = process.cpuUsage(cpu0);
          addSample(eras[era], run, (cpu.user + cpu.system) / 1000 / total);
          ctx.log(`http ${era} c=${c}: ${round(run.rate)} decisions/s (floor ${round(floor.rate)} req/s), p50 ${round(run.p50)} ms, p99 ${round(run.p99)} ms, load client ${round(run.clientCpuMs)} ms CPU a request`);
        }
      }
      const floor = median(floors);
      const old = eras[2025];
      const rate = median(old.rates);
      results.push({ name: `executeChain.c${c}`, unit: 'decisions/s', value: round(rate), baseline: round(floor), ratio: round(rate / floor), note: `baseline: GET /healthz at the same concurrency; ${old.errors} errors` });
      results.push({ name: `executeChain.c${c}.p50`, unit: 'ms', value: round(median(old.p50s)) });
      results.push({ name: `executeChain.c${c}.p99`, unit: 'ms', value: round(median(old.p99s)) });
      // Steadier than a rate on a shared machine: CPU time of this process (the server: event loop,
      // log writer, signer, GC; the client runs elsewhere) per decision. N cores at full use give
      // at most N / this decisions per ms.
      results.push({ name: `executeChain.c${c}.cpu`, unit: 'ms/decision', value: round(median(old.cpus)), note: 'server CPU time, all its threads' });
      const now = eras[2026];
      const vs = (value: number, baseline: number) => ({ value: round(value), baseline: round(baseline), ratio: round(value / baseline) });
      results.push({ name: `executeChain2026.c${c}`, unit: 'decisions/s', ...vs(median(now.rates), floor), note: `MCP 2026-07-28 envelope, SDK v2 bytes; baseline: GET /healthz; ${now.errors} errors` });
      results.push({ name: `executeChain2026.c${c}.p50`, unit: 'ms', ...vs(median(now.p50s), median(old.p50s)), note: 'baseline: the 2025 line of the same run' });
      results.push({ name: `executeChain2026.c${c}.p99`, unit: 'ms', ...vs(median(now.p99s), median(old.p99s)), note: 'baseline: the 2025 line of the same run' });
      results.push({ name: `executeChain2026.c${c}.cpu`, unit: 'ms/decision', ...vs(median(now.cpus), median(old.cpus)), note: 'server CPU time; baseline: the 2025 line of the same run' });
    }
    results.push(...(await durableRuns(ctx, sizes, server.url, decisions, restDecisions)));
  } finally {
    await server.close();
  }
  return results;
}

/** One era's measurements at one concurrency, over the repetitions. */
interface Samples {
  rates: number[];
  p50s: number[];
  p99s: number[];
  cpus: number[];
  errors: number;
}
const newSamples = (): Samples => ({ rates: [], p50s: [], p99s: [], cpus: [], errors: 0 });

function addSample(s: Samples, run: Awaited<ReturnType<typeof runLoad>>, cpu: number): void {
  s.rates.push(run.rate);
  s.p50s.push(run.p50);
  s.p99s.push(run.p99);
  s.cpus.push(cpu);
  s.errors += run.errors;
}

type Load = (c: number, total: number, wait?: string) => ReturnType<typeof runLoad>;

/** wait "durable": one caller on /mcp and REST, and 64 on /mcp with CPU per decision and the coverage delay p99. */
async function durableRuns(ctx: BenchContext, sizes: HttpSizes, url: string, mcp: Load, rest: (c: number, total: number) => ReturnType<typeof runLoad>): Promise<Result[]> {
  const out: Result[] = [];
  const one = sizes.durableOne;
  const p50s = { mcp: [] as number[], rest: [] as number[] };
  for (let r = 0; r < ctx.repeat; r++) {
    p50s.mcp.push((await mcp(1, one, 'durable')).p50);
    p50s.rest.push((await rest(1, one)).p50);
  }
  out.push({ name: 'durable.executeChain.c1.p50', unit: 'ms', value: round(median(p50s.mcp)), note: 'wait "durable": answered once the entry is committed (fsync), receipt later' });
  out.push({ name: 'durable.authorize.c1.p50', unit: 'ms', value: round(median(p50s.rest)), note: 'POST /v1/authorize, wait "durable"' });
  const total = sizes.durableTotal;
  const rates: number[] = [];
  const p99s: number[] = [];
  const cpus: number[] = [];
  const covers: number[] = [];
  for (let r = 0; r < ctx.repeat; r++) {
    const before = await coverage(url);
    const cpu0 = process.cpuUsage();
    const run = await mcp(64, total, 'durable');
    const cpu = process.cpuUsage(cpu0);
    await new Promise((ok) => setTimeout(ok, 300)); // the last checkpoint of the run
    covers.push(coverageP99(before, await coverage(url)));
    rates.push(run.rate);
    p99s.push(run.p99);
    cpus.push((cpu.user + cpu.system) / 1000 / total);
    ctx.log(`http durable c=64: ${round(run.rate)} decisions/s, p99 ${round(run.p99)} ms, cpu ${round(cpus[cpus.length - 1])} ms/decision (load client ${round(run.clientCpuMs)}), coverage p99 <= ${covers[covers.length - 1]} ms`);
  }
  out.push({ name: 'durable.executeChain.c64', unit: 'decisions/s', value: round(median(rates)) });
  out.push({ name: 'durable.executeChain.c64.p99', unit: 'ms', value: round(median(p99s)) });
  out.push({ name: 'durable.executeChain.c64.cpu', unit: 'ms/decision', value: round(median(cpus)), note: 'server CPU time, all its threads' });
  out.push({ name: 'durable.coverage.c64.p99', unit: 'ms', value: median(covers), note: 'entry durable -> covered by a signed checkpoint (histogram bucket bound, /metrics)' });
  return out;
}

/** Cumulative bucket counts of vouch_checkpoint_coverage_delay_seconds, by bound in ms (the bench reports ms). */
async function coverage(url: string): Promise<Map<number, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = new Map<number, number>();
  for (const [, le, n] of text.matchAll(/vouch_checkpoint_coverage_delay_seconds_bucket\{le="([^"]+)"\} (\d+)/g)) m.set(le === '+Inf' ? Infinity : Math.round(Number(le) * 1000), Number(n));
  return m;
}

/** The smallest bucket bound holding 99% of the entries covered between two scrapes. */
function coverageP99(a: Map<number, number>, b: Map<number, number>): number {
  const total = (b.get(Infinity) ?? 0) - (a.get(Infinity) ?? 0);
  for (const [le, n] of b) if (n - (a.get(le) ?? 0) >= 0.99 * total) return le;
  return Infinity;
}
