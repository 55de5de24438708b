// `vouch serve` as a child process for the start-up benches (startup, tenants): spawned with the
// node flags of bin/vouch.js's shebang line (as installed), its URL from the ready line, its CPU
// and resident memory read from /proc, and one decision to time the first answer by.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../bin/vouch.js', import.meta.url));
/** The node flags of bin/vouch.js's `#!/usr/bin/env -S node ...` line: `vouch serve` as installed starts with them. */
export const BIN_FLAGS = readFileSync(BIN, 'utf8').split('\n', 1)[0].split(/\s+/).slice(3);

/** The one decision the start-up benches send (the first, and every one of the c=64 load). */
export const DECISION = JSON.stringify({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: 'hi' } } });

export interface Served {
  child: ChildProcess;
  /** performance.now() at spawn. */
  t0: number;
  /** From the ready line. */
  url: string;
}

/** Spawns `vouch serve --port 0 --data DIR --checkpoint-idle 0` and waits for its ready line. */
export async function startServe(data: string): Promise<Served> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [...BIN_FLAGS, BIN, 'serve', '--port', '0', '--data', data, '--checkpoint-idle', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d) => {
        out += d;
        const m = /vouch ready on (http:\/\/[^\s]+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });
    return { child, t0, url };
  } catch (e) {
    await stopServe(child);
    throw e;
  }
}

/** SIGTERM, and wait for the exit (an already exited child returns at once). */
export async function stopServe(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** POST /v1/authorize (development mode, tenant default): throws unless it is answered 200. */
export async function firstDecision(url: string): Promise<void> {
  const res = await fetch(`${url}/v1/authorize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: DECISION });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`first decision answered ${res.status}`);
}

/** user + system CPU of a process so far, ms, from /proc (Linux; NaN elsewhere). */
export function cpuMsOf(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime, stime in USER_HZ (100)
  } catch {
    return NaN;
  }
}

/** Resident set of a process, MiB (Linux /proc; NaN elsewhere). */
export function rssMbOf(pid: number | undefined): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}
