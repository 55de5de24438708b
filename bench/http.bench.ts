// executeChain decisions per second over HTTP (POST /mcp, JSON-RPC) with the default chain (the
// example config: redactors, guards, Cedar, rate limit, observer), at fixed concurrency 1, 16
// and 64, with p50/p99 latency. Every decision is durable before it is answered, and signed too
// with wait "signed" (the default); `durable.*` lines ask for wait "durable" (issue 17) and report
// the coverage delay (durable -> covered by a signed checkpoint, from /metrics) at c=64.
// Baseline in the same run: GET /healthz through the same server and HTTP client (the floor of
// one request without a decision), so the ratio shows what a signed decision costs on top.
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

export async function run(ctx: BenchContext): Promise<Result[]> {
  const { startServer } = await shipped<typeof import('../src/http/node-server.js')>('http/node-server.js');
  const server = await startServer({ data: join(ctx.tempDir('vouch-bench-http-'), 'data'), port: 0 });
  const results: Result[] = [];
  try {
    const body = (i: number, wait?: string) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'interceptor/executeChain', params: { event: 'tools/call', phase: 'request', payload: PAYLOADS[i % PAYLOADS.length], context: { sessionId: `s${i % 32}` }, ...(wait && { _meta: { 'io.vouch/wait': wait } }) } });
    const decisions = (concurrency: number, total: number, wait?: string) =>
      runLoad({ port: server.port, path: '/mcp', method: 'POST', concurrency, total, bodies: Array.from({ length: total }, (_, i) => body(i, wait)), expect: wait === 'durable' ? 'io.vouch/durable' : 'io.vouch/receipt' });
    const restDecisions = (concurrency: number, total: number) =>
      runLoad({ port: server.port, path: '/v1/authorize', method: 'POST', concurrency, total, bodies: Array.from({ length: total }, (_, i) => JSON.stringify({ event: 'tools/call', phase: 'request', payload: PAYLOADS[i % PAYLOADS.length], wait: 'durable' })), expect: '"durable"' });
    // Warm-up to the steady state a running service is in: V8 keeps optimizing the decision path
    // over the first thousands of calls. Measured at c=64 (durable, 3,000 calls): 2.27 ms of server
    // CPU per decision right after 300 warm-up calls, 1.40 ms after 9,000 more.
    await decisions(16, ctx.quick ? 3000 : 6000);
    await decisions(16, ctx.quick ? 1500 : 3000, 'durable');
    for (const c of [1, 16, 64]) {
      const total = ctx.quick ? (c === 1 ? 100 : 500) : c === 1 ? 300 : 3000;
      const rates: number[] = [];
      const p50s: number[] = [];
      const p99s: number[] = [];
      const floors: number[] = [];
      const cpus: number[] = [];
      let errors = 0;
      for (let r = 0; r < ctx.repeat; r++) {
        const floor = await runLoad({ port: server.port, path: '/healthz', method: 'GET', concurrency: c, total });
        const cpu0 = process.cpuUsage();
        const run = await decisions(c, total);
        const cpu = process.cpuUsage(cpu0);
        cpus.push((cpu.user + cpu.system) / 1000 / total);
        floors.push(floor.rate);
        rates.push(run.rate);
        p50s.push(run.p50);
        p99s.push(run.p99);
        errors += run.errors;
        ctx.log(`http c=${c}: ${round(run.rate)} decisions/s (floor ${round(floor.rate)} req/s), p50 ${round(run.p50)} ms, p99 ${round(run.p99)} ms, load client ${round(run.clientCpuMs)} ms CPU a request`);
      }
      const rate = median(rates);
      const floor = median(floors);
      results.push({ name: `executeChain.c${c}`, unit: 'decisions/s', value: round(rate), baseline: round(floor), ratio: round(rate / floor), note: `baseline: GET /healthz at the same concurrency; ${errors} errors` });
      results.push({ name: `executeChain.c${c}.p50`, unit: 'ms', value: round(median(p50s)) });
      results.push({ name: `executeChain.c${c}.p99`, unit: 'ms', value: round(median(p99s)) });
      // Steadier than a rate on a shared machine: CPU time of this process (the server: event loop,
      // log writer, signer, GC; the client runs elsewhere) per decision. N cores at full use give
      // at most N / this decisions per ms.
      results.push({ name: `executeChain.c${c}.cpu`, unit: 'ms/decision', value: round(median(cpus)), note: 'server CPU time, all its threads' });
    }
    results.push(...(await durableRuns(ctx, server.url, decisions, restDecisions)));
  } finally {
    await server.close();
  }
  return results;
}

type Load = (c: number, total: number, wait?: string) => ReturnType<typeof runLoad>;

/** wait "durable": one caller on /mcp and REST, and 64 on /mcp with CPU per decision and the coverage delay p99. */
async function durableRuns(ctx: BenchContext, url: string, mcp: Load, rest: (c: number, total: number) => ReturnType<typeof runLoad>): Promise<Result[]> {
  const out: Result[] = [];
  const one = ctx.quick ? 100 : 300;
  const p50s = { mcp: [] as number[], rest: [] as number[] };
  for (let r = 0; r < ctx.repeat; r++) {
    p50s.mcp.push((await mcp(1, one, 'durable')).p50);
    p50s.rest.push((await rest(1, one)).p50);
  }
  out.push({ name: 'durable.executeChain.c1.p50', unit: 'ms', value: round(median(p50s.mcp)), note: 'wait "durable": answered once the entry is committed (fsync), receipt later' });
  out.push({ name: 'durable.authorize.c1.p50', unit: 'ms', value: round(median(p50s.rest)), note: 'POST /v1/authorize, wait "durable"' });
  const total = ctx.quick ? 500 : 3000;
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

/** Cumulative bucket counts of vouch_checkpoint_coverage_delay_ms. */
async function coverage(url: string): Promise<Map<number, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = new Map<number, number>();
  for (const [, le, n] of text.matchAll(/vouch_checkpoint_coverage_delay_ms_bucket\{le="([^"]+)"\} (\d+)/g)) m.set(le === '+Inf' ? Infinity : Number(le), Number(n));
  return m;
}

/** The smallest bucket bound holding 99% of the entries covered between two scrapes. */
function coverageP99(a: Map<number, number>, b: Map<number, number>): number {
  const total = (b.get(Infinity) ?? 0) - (a.get(Infinity) ?? 0);
  for (const [le, n] of b) if (n - (a.get(le) ?? 0) >= 0.99 * total) return le;
  return Infinity;
}
