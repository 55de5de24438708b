// executeChain decisions per second over HTTP (POST /mcp, JSON-RPC) with the default chain (the
// example config: redactors, guards, Cedar, rate limit, observer), at fixed concurrency 1, 16
// and 64, with p50/p99 latency. Every decision is signed and durable before it is answered.
// Baseline in the same run: GET /healthz through the same server and HTTP client (the floor of
// one request without a decision), so the ratio shows what a signed decision costs on top.
// The server runs here, on loopback; the client runs in its own process (bench/_http-load.ts),
// one per measurement, because a client sharing the server's event loop would slow the very
// thing measured. It is a raw keep-alive HTTP/1.1 client with prebuilt requests, so its own CPU
// cost stays small even on a 2-core machine.
import { join } from 'node:path';
import { startServer } from '../src/http/node-server.js';
import { runLoad } from './_http-job.js';
import { median, round } from './_stats.js';
import type { BenchContext, Result } from './_types.js';

const PAYLOADS = [
  { name: 'echo', arguments: { text: 'hello there' } },
  { name: 'echo', arguments: { text: 'call me at 415 555 0199' } }, // mutated by the PII redactor
  { name: 'dangerous_tool', arguments: {} }, // denied by Cedar
];

export async function run(ctx: BenchContext): Promise<Result[]> {
  const server = await startServer({ data: join(ctx.tempDir('vouch-bench-http-'), 'data'), port: 0 });
  const results: Result[] = [];
  try {
    const body = (i: number) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'interceptor/executeChain', params: { event: 'tools/call', phase: 'request', payload: PAYLOADS[i % PAYLOADS.length], context: { sessionId: `s${i % 32}` } } });
    const decisions = (concurrency: number, total: number) =>
      runLoad({ port: server.port, path: '/mcp', method: 'POST', concurrency, total, bodies: Array.from({ length: total }, (_, i) => body(i)), expect: 'io.vouch/receipt' });
    await decisions(8, 200); // warm-up: JIT, Cedar, SQLite pages
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
        ctx.log(`http c=${c}: ${round(run.rate)} decisions/s (floor ${round(floor.rate)} req/s), p50 ${round(run.p50)} ms, p99 ${round(run.p99)} ms`);
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
  } finally {
    await server.close();
  }
  return results;
}
