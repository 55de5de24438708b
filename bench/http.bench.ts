// executeChain decisions per second over HTTP (POST /mcp, JSON-RPC) with the default chain (the
// example config: redactors, guards, Cedar, rate limit, observer), at fixed concurrency 1, 16
// and 64, with p50/p99 latency. Every decision is signed and durable before it is answered.
// Baseline in the same run: GET /healthz through the same server and HTTP client (the floor of
// one request without a decision), so the ratio shows what a signed decision costs on top.
import { join } from 'node:path';
import { startServer } from '../src/http/node-server.js';
import { median, percentile, round } from './_stats.js';
import type { BenchContext, Result } from './_types.js';

const PAYLOADS = [
  { name: 'echo', arguments: { text: 'hello there' } },
  { name: 'echo', arguments: { text: 'call me at 415 555 0199' } }, // mutated by the PII redactor
  { name: 'dangerous_tool', arguments: {} }, // denied by Cedar
];

async function load(url: string, body: (i: number) => string | undefined, concurrency: number, total: number): Promise<{ rate: number; lat: number[]; errors: number }> {
  let next = 0;
  let errors = 0;
  const lat: number[] = [];
  const t0 = performance.now();
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const b = body(i);
      const s = performance.now();
      const res = await fetch(url, b === undefined ? undefined : { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: b });
      const text = await res.text();
      lat.push(performance.now() - s);
      if (res.status !== 200 || (b !== undefined && !text.includes('io.vouch/receipt'))) errors++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { rate: (total / (performance.now() - t0)) * 1000, lat, errors };
}

export async function run(ctx: BenchContext): Promise<Result[]> {
  const server = await startServer({ data: join(ctx.tempDir('vouch-bench-http-'), 'data'), port: 0 });
  const results: Result[] = [];
  try {
    const mcp = `${server.url}/mcp`;
    const body = (i: number) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'interceptor/executeChain', params: { event: 'tools/call', phase: 'request', payload: PAYLOADS[i % PAYLOADS.length], context: { sessionId: `s${i % 32}` } } });
    await load(mcp, body, 8, 200); // warm-up: JIT, Cedar, SQLite pages
    for (const c of [1, 16, 64]) {
      const total = ctx.quick ? (c === 1 ? 100 : 500) : c === 1 ? 300 : 3000;
      const rates: number[] = [];
      const p50s: number[] = [];
      const p99s: number[] = [];
      const floors: number[] = [];
      let errors = 0;
      for (let r = 0; r < ctx.repeat; r++) {
        const floor = await load(`${server.url}/healthz`, () => undefined, c, total);
        const run = await load(mcp, body, c, total);
        floors.push(floor.rate);
        rates.push(run.rate);
        p50s.push(percentile(run.lat, 50));
        p99s.push(percentile(run.lat, 99));
        errors += run.errors;
        ctx.log(`http c=${c}: ${round(run.rate)} decisions/s (floor ${round(floor.rate)} req/s), p50 ${round(percentile(run.lat, 50))} ms, p99 ${round(percentile(run.lat, 99))} ms`);
      }
      const rate = median(rates);
      const floor = median(floors);
      results.push({ name: `executeChain.c${c}`, unit: 'decisions/s', value: round(rate), baseline: round(floor), ratio: round(rate / floor), note: `baseline: GET /healthz at the same concurrency; ${errors} errors` });
      results.push({ name: `executeChain.c${c}.p50`, unit: 'ms', value: round(median(p50s)) });
      results.push({ name: `executeChain.c${c}.p99`, unit: 'ms', value: round(median(p99s)) });
    }
  } finally {
    await server.close();
  }
  return results;
}
