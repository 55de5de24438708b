// What the gateway adds to a tools/call: echo on the real server-everything (a child over stdio),
// called directly with the SDK Client (baseline) and through the gateway (in-process, worker-thread
// signer as `vouch gateway` runs it), interleaved call by call in one run so both see the same
// machine. Each gateway call is two durable appends (decision before forwarding; response decision
// after; the execution entry in the background). With wait "signed" each waits for its signed
// checkpoint too; `durable.*` lines run a second gateway with wait "durable" (issue 17), which
// forwards once the entry is committed and attaches signed receipts where they are ready.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { openGateway } from '../src/mcp/gateway-node.js';
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

export async function run(ctx: BenchContext): Promise<Result[]> {
  const n = ctx.quick ? 60 : 300;
  const dir = ctx.tempDir('gateway');
  const direct = new Client({ name: 'bench-direct', version: '1' });
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
  // The example chain in front of the same server, as the CLI runs it.
  const rt = await openGateway({ data: join(dir, 'data'), config: benchConfig(dir), upstream: { command: `'${process.execPath}' '${EVERYTHING}' stdio`, stderr: 'ignore' } });
  const [down, up] = InMemoryTransport.createLinkedPair();
  await rt.start(up);
  const viaGateway = new Client({ name: 'bench-gateway', version: '1' });
  await viaGateway.connect(down);
  const rtd = await openGateway({ data: join(dir, 'data-durable'), config: benchConfig(dir), wait: 'durable', upstream: { command: `'${process.execPath}' '${EVERYTHING}' stdio`, stderr: 'ignore' } });
  const [downD, upD] = InMemoryTransport.createLinkedPair();
  await rtd.start(upD);
  const viaDurable = new Client({ name: 'bench-gateway-durable', version: '1' });
  await viaDurable.connect(downD);
  try {
    for (let i = 0; i < 30; i++) {
      await echo(direct, i);
      await echo(viaGateway, i); // warm-up: JIT, Cedar, SQLite pages, the signing worker
      await echo(viaDurable, i);
    }
    const base: number[] = [];
    const gw: number[] = [];
    const gwd: number[] = [];
    for (let i = 0; i < n; i++) {
      base.push(await echo(direct, i));
      gw.push(await echo(viaGateway, i));
      gwd.push(await echo(viaDurable, i));
    }
    const total = ctx.quick ? 64 : 320;
    const directRate = await concurrent(direct, 16, total);
    const gatewayRate = await concurrent(viaGateway, 16, total);
    const p = (xs: number[], q: number) => round(percentile(xs, q));
    ctx.log(`gateway echo: p50 ${p(gw, 50)} ms (direct ${p(base, 50)}), p99 ${p(gw, 99)} ms (direct ${p(base, 99)}); c=16 ${round(gatewayRate)} calls/s (direct ${round(directRate)})`);
    const note = `${n} sequential echo calls each, interleaved, after 30 warm-up calls`;
    const results: Result[] = [];
    for (const q of [50, 99]) {
      const g = percentile(gw, q);
      const b = percentile(base, q);
      results.push({ name: `echo.p${q}`, unit: 'ms', value: round(g), baseline: round(b), ratio: round(g / b), note });
      results.push({ name: `added.p${q}`, unit: 'ms', value: round(g - b), note: 'gateway minus direct at the same percentile' });
    }
    for (const q of [50, 99]) results.push({ name: `durable.added.p${q}`, unit: 'ms', value: round(percentile(gwd, q) - percentile(base, q)), note: 'wait "durable" gateway minus direct at the same percentile' });
    ctx.log(`gateway durable echo: p50 ${p(gwd, 50)} ms, p99 ${p(gwd, 99)} ms`);
    results.push({ name: 'echo.c16', unit: 'calls/s', value: round(gatewayRate), baseline: round(directRate), ratio: round(gatewayRate / directRate), note: `${total} echo calls, 16 in flight (group commit shares signatures)` });
    return results;
  } finally {
    await viaDurable.close().catch(() => undefined);
    await rtd.close();
    await viaGateway.close().catch(() => undefined);
    await direct.close().catch(() => undefined);
    await rt.close();
  }
}
