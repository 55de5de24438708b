// Real processes for the witness tests: `vouch witness` children (ready JSON line: url, vkeys),
// a log started with `vouch serve`, and small helpers to decide, fetch and verify over loopback.
import { request as httpRequest } from 'node:http';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, ROOT, startServe, type ServeChild } from '../cli/_serve.js';

export interface WitnessChild {
  url: string;
  name: string;
  vkeys: string[];
  /** Origins with classical signatures accepted (--classical-ok). */
  classical?: string[];
  stderr(): string;
  stop(): Promise<number | null>;
}

export async function startWitness(data: string, args: string[]): Promise<WitnessChild> {
  const child: ChildProcess = spawn(process.execPath, [BIN, 'witness', '--data', data, '--port', '0', '--json', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  const deadline = Date.now() + 90_000;
  while (!out.includes('\n')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`witness did not start (exit ${child.exitCode}): ${out} ${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const ready = JSON.parse(out.split('\n')[0]) as { url: string; name: string; vkeys: string[]; classical?: string[] };
  return {
    ...ready,
    stderr: () => err,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

export async function startLog(data: string, witnesses: WitnessChild[], extra: string[] = []): Promise<ServeChild> {
  const cfg = join(data, 'witnesses.json');
  writeFileSync(cfg, JSON.stringify({ witnesses: witnesses.map((w) => ({ url: w.url, vkeys: w.vkeys })), intervalMs: 150, timeoutMs: 1500, retries: 1 }));
  return startServe(['--port', '0', '--data', data, '--checkpoint-idle', '0', ...extra]);
}

export async function decide(url: string, text = 'hi'): Promise<{ seq: number; ms: number }> {
  const t0 = Date.now();
  const r = await postFresh(`${url}/v1/authorize`, JSON.stringify({ event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text } } }));
  if (r.status !== 200) throw new Error(`decision failed: ${r.status} ${r.text}`);
  return { seq: (JSON.parse(r.text) as { seq: number }).seq, ms: Date.now() - t0 };
}

/**
 * A POST on a connection of its own: these tests pause for seconds between decisions, and a pooled
 * socket the server was closing at its 5 s keep-alive limit failed a decision with "other side
 * closed" in CI (the request was sent; retrying it could record it twice).
 */
function postFresh(url: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export async function checkpointOf(url: string): Promise<{ origin: string; size: number; checkpoint: string }> {
  return (await (await fetch(`${url}/v1/checkpoint`)).json()) as { origin: string; size: number; checkpoint: string };
}

/** Poll until `test` holds (or fail after `ms`). */
export async function until<T>(what: string, get: () => Promise<T>, test: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (test(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function vouch(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
