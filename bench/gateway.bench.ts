// What the gateway adds to a tools/call: echo on the real server-everything (a child over stdio),
// called directly with the SDK Client (baseline) and through the gateway (in-process, worker-thread
// signer as `vouch gateway` runs it), interleaved call by call in one run so both see the same
// machine. Each gateway call is two durable appends (decision before forwarding; response decision
// after; the execution entry in the background). The default, wait "durable" (issue 17), forwards
// once the entry is committed and attaches signed receipts where they are ready: `added.*`. With
// wait "signed" each decision waits for its signed checkpoint too: `signed.added.*`, measured after
// the durable gateway has closed, so that neither's signing loads the other's measurement.
// `*2026.*` (issue 36): the same calls from the SDK v2 client pinned to MCP 2026-07-28 through the
// same gateway, in the same interleaving; its baseline is the SDK v2 client calling
// server-everything directly (a 2025-era server: that client negotiates 2025-11-25 there), and its
// `added2026.*` lines read against the 2025 path's `added.*` of the same run; `added2026.minus2025`
// pairs the two paths round by round, so a busy machine's drift cancels out.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Client as Client2, InMemoryTransport as InMemoryTransport2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransport2 } from '@modelcontextprotocol/client/stdio';
import { shipped } from './_shipped.js';
import { median, percentile, round } from './_stats.js';
import type { BenchContext, Result } from './_types.js';

const EVERYTHING = fileURLToPath(new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../fixtures/config/', import.meta.url));
export const MODERN = '2026-07-28';

/** How many calls each measurement makes. */
export interface GatewaySizes {
  /** Warm-up rounds (one call of each client) before anything is measured. */
  warm: number;
  /** Measured rounds, one call of each client per round, interleaved. */
  calls: number;
  /** Calls per client at 16 in flight. */
  concurrent: number;
  /** Sequential calls per client in each CPU block (repeated ctx.repeat times). */
  cpuCalls: number;
}
/** Warm-up before measuring: a gateway in an agent's loop runs warm (V8 optimizes the path over the first hundreds of calls). */
const FULL: GatewaySizes = { warm: 300, calls: 300, concurrent: 320, cpuCalls: 200 };
const QUICK: GatewaySizes = { warm: 300, calls: 60, concurrent: 64, cpuCalls: 60 };
/** CI's smoke (test/bench/gateway.test.ts): every line measured once, at toy size. Its numbers mean nothing. */
export const TOY: GatewaySizes = { warm: 4, calls: 8, concurrent: 16, cpuCalls: 4 };

/** The example chain (every built-in, Cedar) without its rate limit, which 300 calls would trip. */
function benchConfig(dir: string): string {
  const config = parse(readFileSync(join(EXAMPLE, 'vouch.example.yaml'), 'utf8'));
  config.interceptors = config.interceptors.filter((i: { use?: string }) => i.use !== 'rate-limit');
  config.policies = { files: config.policies.files.map((f: string) => join(EXAMPLE, f)), schema: join(EXAMPLE, config.policies.schema) };
  const path = join(dir, 'gateway-bench.json');
  writeFileSync(path, JSON.stringify(config));
  return path;
}

/** What the bench asks of a client, SDK v1 or v2. */
interface Caller {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<{ isError?: boolean; content?: unknown; _meta?: Record<string, unknown> }>;
  close(): Promise<void>;
}

async function echo(client: Caller, i: number): Promise<number> {
  const t0 = performance.now();
  const r = await client.callTool({ name: 'echo', arguments: { message: `hello ${i}` } });
  const ms = performance.now() - t0;
  if (r.isError) throw new Error(`echo failed: ${JSON.stringify(r.content)}`);
  return ms;
}

async function concurrent(client: Caller, concurrency: number, total: number): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await echo(client, next++);
    }),
  );
  return (total / (performance.now() - t0)) * 1000;
}

/** The four clients of one measurement: each era's direct call and the same era through the gateway. */
interface Clients {
  direct: Caller;
  gateway: Caller;
  direct2026: Caller;
  gateway2026: Caller;
}
type Who = keyof Clients;
const WHO: readonly Who[] = ['direct', 'gateway', 'direct2026', 'gateway2026'];

/** The SDK v2 client straight to its own server-everything: the 2026 path's baseline (it negotiates 2025-11-25 with that server). */
async function direct2026Client(): Promise<Client2> {
  const client = new Client2({ name: 'bench-direct-v2', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StdioClientTransport2({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
  return client;
}

/** One gateway (in-process, worker-thread signer, as `vouch gateway` runs it), a 2025 and a 2026 session each in front of its own server-everything. */
async function gatewayClients(ctx: BenchContext, dir: string, name: string, wait: 'durable' | 'signed') {
  const { openGateway } = await shipped<typeof import('../src/mcp/gateway-node.js')>('mcp/gateway-node.js');
  const rt = await openGateway({ data: join(dir, name), config: benchConfig(dir), wait, upstream: { command: `'${process.execPath}' '${EVERYTHING}' stdio`, stderr: 'ignore' } });
  const [down, up] = InMemoryTransport.createLinkedPair();
  await rt.start(up);
  const client = new Client({ name: `bench-gateway-${name}`, version: '1' });
  await client.connect(down);
  const [down2, up2] = InMemoryTransport2.createLinkedPair();
  await rt.start(up2 as never);
  const client2026 = new Client2({ name: `bench-gateway-2026-${name}`, version: '1' }, { versionNegotiation: { mode: { pin: MODERN } } });
  await client2026.connect(down2);
  if (client2026.getNegotiatedProtocolVersion() !== MODERN) throw new Error(`the 2026 client negotiated ${client2026.getNegotiatedProtocolVersion()}, not ${MODERN}`);
  return {
    client,
    client2026,
    close: async () => {
      await client.close().catch(() => undefined);
      await client2026.close().catch(() => undefined);
      await rt.close();
    },
  };
}

/** Every client's calls interleaved round by round (all see the same machine), after the warm-up rounds. */
async function interleaved(clients: Clients, sizes: GatewaySizes): Promise<Record<Who, number[]>> {
  for (let i = 0; i < sizes.warm; i++) for (const w of WHO) await echo(clients[w], i); // JIT, Cedar, SQLite pages, the signing worker
  const out = { direct: [], gateway: [], direct2026: [], gateway2026: [] } as Record<Who, number[]>;
  for (let i = 0; i < sizes.calls; i++) for (const w of WHO) out[w].push(await echo(clients[w], i));
  return out;
}

/** After a block of gateway calls: its background work (execution entries, checkpoint signatures) finishes inside the block's CPU window. */
const SETTLE_MS = 300;

/**
 * CPU time of this process per sequential call, each client alone in its block (its background
 * work settled inside the block), blocks in turn, `ctx.repeat` rounds; median per client. The
 * process holds the clients, the in-memory transports and the gateway with its log and signing
 * threads; the upstream children are not counted, so a gateway minus its direct call is what the
 * gateway's process spends on a call.
 */
async function cpuPerCall(ctx: BenchContext, clients: Clients, calls: number): Promise<Record<Who, number>> {
  const rounds = { direct: [], gateway: [], direct2026: [], gateway2026: [] } as Record<Who, number[]>;
  await new Promise((ok) => setTimeout(ok, SETTLE_MS)); // what came before is not the first block's
  for (let r = 0; r < ctx.repeat; r++) {
    for (const w of WHO) {
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < calls; i++) await echo(clients[w], i);
      await new Promise((ok) => setTimeout(ok, SETTLE_MS));
      const cpu = process.cpuUsage(cpu0);
      rounds[w].push((cpu.user + cpu.system) / 1000 / calls);
    }
  }
  return { direct: median(rounds.direct), gateway: median(rounds.gateway), direct2026: median(rounds.direct2026), gateway2026: median(rounds.gateway2026) };
}

/** value against baseline; the ratio only where it means something (a positive baseline). */
function against(value: number, baseline: number): Pick<Result, 'value' | 'baseline' | 'ratio'> {
  return { value: round(value), baseline: round(baseline), ...(baseline > 0 && Number.isFinite(value / baseline) && { ratio: round(value / baseline) }) };
}

export async function run(ctx: BenchContext, sizes: GatewaySizes = ctx.quick ? QUICK : FULL): Promise<Result[]> {
  const dir = ctx.tempDir('gateway');
  const direct = new Client({ name: 'bench-direct', version: '1' });
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
  const direct2026 = await direct2026Client().catch(async (e) => {
    await direct.close().catch(() => undefined);
    throw e;
  });
  const directEra = direct2026.getNegotiatedProtocolVersion();
  const p = (xs: number[], q: number) => round(percentile(xs, q));
  const note = `${sizes.calls} sequential echo calls each, interleaved with direct calls, after ${sizes.warm} warm-up rounds`;
  const results: Result[] = [];
  try {
    // The default (wait "durable"), alone in the process: the signed gateway's signatures would
    // otherwise load the same two cores while it is measured.
    const durable = await gatewayClients(ctx, dir, 'data-durable', 'durable');
    try {
      const clients: Clients = { direct, gateway: durable.client, direct2026, gateway2026: durable.client2026 };
      const t = await interleaved(clients, sizes);
      const total = sizes.concurrent;
      const rate = {} as Record<Who, number>;
      for (const w of WHO) rate[w] = await concurrent(clients[w], 16, total);
      const cpu = await cpuPerCall(ctx, clients, sizes.cpuCalls);
      ctx.log(`gateway (durable, the default) echo: p50 ${p(t.gateway, 50)} ms (direct ${p(t.direct, 50)}), p99 ${p(t.gateway, 99)} ms (direct ${p(t.direct, 99)}); c=16 ${round(rate.gateway)} calls/s (direct ${round(rate.direct)}); cpu ${round(cpu.gateway)} ms/call (direct ${round(cpu.direct)})`);
      ctx.log(`gateway (durable) echo, MCP ${MODERN}: p50 ${p(t.gateway2026, 50)} ms (direct ${p(t.direct2026, 50)}), p99 ${p(t.gateway2026, 99)} ms (direct ${p(t.direct2026, 99)}); c=16 ${round(rate.gateway2026)} calls/s (direct ${round(rate.direct2026)}); cpu ${round(cpu.gateway2026)} ms/call (direct ${round(cpu.direct2026)})`);
      for (const q of [50, 99]) {
        const g = percentile(t.gateway, q);
        const b = percentile(t.direct, q);
        results.push({ name: `echo.p${q}`, unit: 'ms', ...against(g, b), note: `wait "durable" (the default): ${note}` });
        results.push({ name: `added.p${q}`, unit: 'ms', value: round(g - b), note: 'wait "durable" gateway minus direct at the same percentile' });
      }
      results.push({ name: 'echo.c16', unit: 'calls/s', ...against(rate.gateway, rate.direct), note: `wait "durable": ${total} echo calls, 16 in flight (group commit)` });
      results.push({ name: 'echo.cpu', unit: 'ms/call', ...against(cpu.gateway, cpu.direct), note: `CPU of the gateway's process per sequential call (clients, gateway, log and signing threads; not the upstream); baseline: the direct call's client` });
      results.push({ name: 'added.cpu', unit: 'ms/call', value: round(cpu.gateway - cpu.direct), note: `gateway minus direct, ${sizes.cpuCalls} calls a block, median of ${ctx.repeat}` });
      for (const q of [50, 99]) {
        const g = percentile(t.gateway2026, q);
        const b = percentile(t.direct2026, q);
        results.push({ name: `echo2026.p${q}`, unit: 'ms', ...against(g, b), note: `SDK v2 client pinned to ${MODERN}; baseline: the SDK v2 client direct (${directEra} with this server); ${note}` });
        results.push({ name: `added2026.p${q}`, unit: 'ms', ...against(g - b, percentile(t.gateway, q) - percentile(t.direct, q)), note: 'the 2026 path minus its direct call; baseline: added.p' + q + ' (the 2025 path) of the same run' });
      }
      // Paired within each round (the four calls of a round follow one another): robust to the machine's drift.
      const paired = t.gateway2026.map((g, i) => g - t.direct2026[i] - (t.gateway[i] - t.direct[i]));
      results.push({ name: 'added2026.minus2025.p50', unit: 'ms', value: round(median(paired)), note: 'median over the rounds of (2026 through the gateway minus its direct call) minus (2025 the same): what the 2026 path adds beyond the 2025 one' });
      results.push({ name: 'echo2026.c16', unit: 'calls/s', ...against(rate.gateway2026, rate.direct2026), note: `${MODERN}: ${total} echo calls, 16 in flight; baseline: the SDK v2 client direct` });
      results.push({ name: 'echo2026.cpu', unit: 'ms/call', ...against(cpu.gateway2026, cpu.direct2026), note: `${MODERN}: CPU of the gateway's process per sequential call; baseline: the SDK v2 client direct` });
      results.push({ name: 'added2026.cpu', unit: 'ms/call', ...against(cpu.gateway2026 - cpu.direct2026, cpu.gateway - cpu.direct), note: 'the 2026 path minus its direct call; baseline: added.cpu (the 2025 path) of the same run' });
    } finally {
      await durable.close();
    }
    // wait "signed": each forwarded decision waits for its signed checkpoint too.
    const signed = await gatewayClients(ctx, dir, 'data', 'signed');
    try {
      const t = await interleaved({ direct, gateway: signed.client, direct2026, gateway2026: signed.client2026 }, sizes);
      ctx.log(`gateway (signed) echo: p50 ${p(t.gateway, 50)} ms (direct ${p(t.direct, 50)}), p99 ${p(t.gateway, 99)} ms (direct ${p(t.direct, 99)}); ${MODERN}: p50 ${p(t.gateway2026, 50)} ms (direct ${p(t.direct2026, 50)}), p99 ${p(t.gateway2026, 99)} ms (direct ${p(t.direct2026, 99)})`);
      for (const q of [50, 99]) {
        const added = percentile(t.gateway, q) - percentile(t.direct, q);
        results.push({ name: `signed.added.p${q}`, unit: 'ms', value: round(added), note: `wait "signed" gateway minus direct at the same percentile (${note})` });
        results.push({ name: `signed.added2026.p${q}`, unit: 'ms', ...against(percentile(t.gateway2026, q) - percentile(t.direct2026, q), added), note: `wait "signed", ${MODERN} path minus its direct call; baseline: signed.added.p${q}` });
      }
    } finally {
      await signed.close();
    }
    return results;
  } finally {
    await direct.close().catch(() => undefined);
    await direct2026.close().catch(() => undefined);
  }
}
