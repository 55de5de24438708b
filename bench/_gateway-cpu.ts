// Where the gateway's CPU per relayed call goes (issue 36; docs/performance-gateway.md): the same
// four clients as gateway.bench.ts (each era direct and through one in-process gateway, wait
// "durable"), sequential echo calls in blocks, the process's CPU per call and each thread's
// (user and system time from /proc/self/task: the main thread holds the clients, the gateway and
// SQLite; the rest is the signing worker and V8's helpers). Linux only. Env: N calls a block
// (300), R rounds (3), WARM rounds (300), DIST another build's dist/ (a before/after in turn),
// PROF=gateway|gateway2026 writes that block's V8 CPU profile to PROF_DIR (a wall-clock sampler:
// time blocked in SQLite's fsync shows up as `run`). Usage: node --import tsx bench/_gateway-cpu.ts
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Client as Client2, InMemoryTransport as InMemoryTransport2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransport2 } from '@modelcontextprotocol/client/stdio';
import { shipped } from './_shipped.js';
import { median } from './_stats.js';

const EVERYTHING = fileURLToPath(new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../fixtures/config/', import.meta.url));
const N = Number(process.env.N ?? 300);
const R = Number(process.env.R ?? 3);
const WARM = Number(process.env.WARM ?? 300);
const PROF = process.env.PROF;
const PROF_DIR = process.env.PROF_DIR ?? tmpdir();

type Gw = typeof import('../src/mcp/gateway-node.js');
const { openGateway } = (process.env.DIST ? await import(join(process.env.DIST, 'mcp/gateway-node.js')) : await shipped<Gw>('mcp/gateway-node.js')) as Gw;

// The bench's chain: the example config without its rate limit (gateway.bench.ts benchConfig).
const dir = mkdtempSync(join(tmpdir(), 'vouch-gateway-cpu-'));
const config = parse(readFileSync(join(EXAMPLE, 'vouch.example.yaml'), 'utf8'));
config.interceptors = config.interceptors.filter((i: { use?: string }) => i.use !== 'rate-limit');
config.policies = { files: config.policies.files.map((f: string) => join(EXAMPLE, f)), schema: join(EXAMPLE, config.policies.schema) };
writeFileSync(join(dir, 'config.json'), JSON.stringify(config));

const rt = await openGateway({ data: join(dir, 'data'), config: join(dir, 'config.json'), wait: 'durable', upstream: { command: `'${process.execPath}' '${EVERYTHING}' stdio`, stderr: 'ignore' } });
const [down, up] = InMemoryTransport.createLinkedPair();
await rt.start(up);
const gateway = new Client({ name: 'cpu-gateway', version: '1' });
await gateway.connect(down);
const [down2, up2] = InMemoryTransport2.createLinkedPair();
await rt.start(up2 as never);
const gateway2026 = new Client2({ name: 'cpu-gateway-2026', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
await gateway2026.connect(down2);
const direct = new Client({ name: 'cpu-direct', version: '1' });
await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
const direct2026 = new Client2({ name: 'cpu-direct-2026', version: '1' }, { versionNegotiation: { mode: 'auto' } });
await direct2026.connect(new StdioClientTransport2({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));

interface Caller {
  callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<{ isError?: boolean; content?: unknown }>;
  close(): Promise<void>;
}
const clients = { direct, gateway, direct2026, gateway2026 } as unknown as Record<string, Caller>;
const echo = async (c: Caller, i: number) => {
  const r = await c.callTool({ name: 'echo', arguments: { message: `hello ${i}` } });
  if (r.isError) throw new Error(`echo failed: ${JSON.stringify(r.content)}`);
};
const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** CPU ticks (user, system) of each thread, by name; the main thread as `main`. */
function threads(): Record<string, [number, number]> {
  const out: Record<string, [number, number]> = {};
  for (const t of readdirSync('/proc/self/task')) {
    try {
      const name = t === String(process.pid) ? 'main' : readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trim();
      const f = readFileSync(`/proc/self/task/${t}/stat`, 'utf8').split(') ')[1].split(' ');
      const acc = (out[name] ??= [0, 0]);
      acc[0] += Number(f[11]);
      acc[1] += Number(f[12]);
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return out;
}

for (let i = 0; i < WARM; i++) for (const c of Object.values(clients)) await echo(c, i);
await sleep(300);
const session = PROF ? new Session() : undefined;
if (session) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
}
const perCall: Record<string, number[]> = {};
const ticks: Record<string, Record<string, [number, number]>> = {};
const tick = 1000 / 100; // ms a clock tick (USER_HZ 100)
for (let r = 0; r < R; r++) {
  for (const [who, c] of Object.entries(clients)) {
    if (who === PROF) await session!.post('Profiler.start');
    const t0 = threads();
    const c0 = process.cpuUsage();
    for (let i = 0; i < N; i++) await echo(c, i);
    await sleep(300); // the block's background work (execution entries, checkpoints) settles inside it
    const cpu = process.cpuUsage(c0);
    const t1 = threads();
    if (who === PROF) writeFileSync(join(PROF_DIR, `${who}-${r}.cpuprofile`), JSON.stringify((await session!.post('Profiler.stop')).profile));
    (perCall[who] ??= []).push((cpu.user + cpu.system) / 1000 / N);
    const acc = (ticks[who] ??= {});
    for (const [name, [u, s]] of Object.entries(t1)) {
      const a = (acc[name] ??= [0, 0]);
      a[0] += u - (t0[name]?.[0] ?? 0);
      a[1] += s - (t0[name]?.[1] ?? 0);
    }
  }
}
const m = Object.fromEntries(Object.entries(perCall).map(([k, v]) => [k, median(v)]));
const f = (x: number) => x.toFixed(3);
console.log(`cpu ms/call (median of ${R} blocks of ${N}): gateway ${f(m.gateway)} (direct ${f(m.direct)}, added ${f(m.gateway - m.direct)}); 2026 ${f(m.gateway2026)} (direct ${f(m.direct2026)}, added ${f(m.gateway2026 - m.direct2026)})`);
for (const [who, t] of Object.entries(ticks)) {
  const rows = Object.entries(t).filter(([, [u, s]]) => u + s > 0).map(([name, [u, s]]) => `${name} user ${f((u * tick) / (N * R))} sys ${f((s * tick) / (N * R))}`);
  console.log(`  ${who} per call: ${rows.join(' | ')}`);
}
await Promise.all(Object.values(clients).map((c) => c.close().catch(() => undefined)));
await rt.close();
rmSync(dir, { recursive: true, force: true });
