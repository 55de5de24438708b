// What the gateway adds to a tools/call: echo on the real server-everything (a child over stdio),
// called directly with the SDK Client (baseline) and through the gateway (in-process, worker-thread
// signer as `vouch gateway` runs it), interleaved call by call in one run so both see the same
// machine. Each gateway call is two durable appends (decision before forwarding; response decision
// after; the execution entry in the background). The default, wait "durable" (issue 17), forwards
// once the entry is committed and attaches signed receipts where they are ready: `added.*`. With
// wait "signed" each decision waits for its signed checkpoint too: `signed.added.*`, measured after
// the durable gateway has closed, so that neither's signing loads the other's measurement.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { shipped } from './_shipped.js';
import { percentile, round } from './_stats.js';
import type { BenchContext, Result } from './_types.js';

const EVERYTHING = fileURLToPath(new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../fixtures/config/', import.meta.url));

/** The example chain (every built-in, Cedar) without its rate limit, which 300 calls would trip. */
function benchConfig(dir: string): string {
  const config = parse(readFileSync(join(EXAMPLE, 'vouch.example.yaml'), 'utf8'));
  config.interceptors = config.interceptors.filter((i: { use?: string }) => i.use !== 'rate-limit');
  config.policies = { files: config.policies.files.map((f: string) => join(EXAMPLE, f)), schema: join(EXAMPLE, config.policies.schema) };
  const path = join(dir, 'gateway-bench.json');
  writeFileSync(path, JSON.stringify(config));
  return path;
}

async function echo(client: Client, i: number): Promise<number> {
  const t0 = performance.now();
  const r = await client.callTool({ name: 'echo', arguments: { message: `hello ${i}` } });
  const ms = performance.now() - t0;
  if (r.isError) throw new Error(`echo failed: ${JSON.stringify(r.content)}`);
  return ms;
}

async function concurrent(client: Client, concurrency: number, total: number): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await echo(client, next++);
    }),
  );
  return (total / (performance.now() - t0)) * 1000;
}

/** One gateway (in-process, worker-thread signer, as `vouch gateway` runs it) in front of its own server-everything. */
async function gatewayClient(ctx: BenchContext, dir: string, name: string, wait: 'durable' | 'signed') {
  const { openGateway } = await shipped<typeof import('../src/mcp/gateway-node.js')>('mcp/gateway-node.js');
  const rt = await openGateway({ data: join(dir, name), config: benchConfig(dir), wait, upstream: { command: `'${process.execPath}' '${EVERYTHING}' stdio`, stderr: 'ignore' } });
  const [down, up] = InMemoryTransport.createLinkedPair();
  await rt.start(up);
  const client = new Client({ name: `bench-gateway-${name}`, version: '1' });
  await client.connect(down);
  return {
    client,
    close: async () => {
      await client.close().catch(() => undefined);
      await rt.close();
    },
  };
}

/** Warm-up pairs before measuring: a gateway in an agent's loop runs warm (V8 optimizes the path over the first hundreds of calls). */
const WARM_UP = 300;

/** Direct and gateway calls interleaved one by one (both see the same machine), after the warm-up pairs. */
async function interleaved(direct: Client, gateway: Client, n: number): Promise<{ base: number[]; gw: number[] }> {
  for (let i = 0; i < WARM_UP; i++) {
    await echo(direct, i);
    await echo(gateway, i); // warm-up: JIT, Cedar, SQLite pages, the signing worker
  }
  const base: number[] = [];
  const gw: number[] = [];
  for (let i = 0; i < n; i++) {
    base.push(await echo(direct, i));
    gw.push(await echo(gateway, i));
  }
  return { base, gw };
}

export async function run(ctx: BenchContext): Promise<Result[]> {
  const n = ctx.quick ? 60 : 300;
  const dir = ctx.tempDir('gateway');
  const direct = new Client({ name: 'bench-direct', version: '1' });
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
  const p = (xs: number[], q: number) => round(percentile(xs, q));
  const note = `${n} sequential echo calls each, interleaved with direct calls, after ${WARM_UP} warm-up calls`;
  const results: Result[] = [];
  try {
    // The default (wait "durable"), alone in the process: the signed gateway's signatures would
    // otherwise load the same two cores while it is measured.
    const durable = await gatewayClient(ctx, dir, 'data-durable', 'durable');
    try {
      const { base, gw } = await interleaved(direct, durable.client, n);
      const total = ctx.quick ? 64 : 320;
      const directRate = await concurrent(direct, 16, total);
      const gatewayRate = await concurrent(durable.client, 16, total);
      ctx.log(`gateway (durable, the default) echo: p50 ${p(gw, 50)} ms (direct ${p(base, 50)}), p99 ${p(gw, 99)} ms (direct ${p(base, 99)}); c=16 ${round(gatewayRate)} calls/s (direct ${round(directRate)})`);
      for (const q of [50, 99]) {
        const g = percentile(gw, q);
        const b = percentile(base, q);
        results.push({ name: `echo.p${q}`, unit: 'ms', value: round(g), baseline: round(b), ratio: round(g / b), note: `wait "durable" (the default): ${note}` });
        results.push({ name: `added.p${q}`, unit: 'ms', value: round(g - b), note: 'wait "durable" gateway minus direct at the same percentile' });
      }
      results.push({ name: 'echo.c16', unit: 'calls/s', value: round(gatewayRate), baseline: round(directRate), ratio: round(gatewayRate / directRate), note: `wait "durable": ${total} echo calls, 16 in flight (group commit)` });
    } finally {
      await durable.close();
    }
    // wait "signed": each forwarded decision waits for its signed checkpoint too.
    const signed = await gatewayClient(ctx, dir, 'data', 'signed');
    try {
      const { base, gw } = await interleaved(direct, signed.client, n);
      ctx.log(`gateway (signed) echo: p50 ${p(gw, 50)} ms (direct ${p(base, 50)}), p99 ${p(gw, 99)} ms (direct ${p(base, 99)})`);
      for (const q of [50, 99]) results.push({ name: `signed.added.p${q}`, unit: 'ms', value: round(percentile(gw, q) - percentile(base, q)), note: `wait "signed" gateway minus direct at the same percentile (${note})` });
    } finally {
      await signed.close();
    }
    return results;
  } finally {
    await direct.close().catch(() => undefined);
  }
}
