// The contract between http.bench.ts and its load generator (bench/_http-load.ts), and `runLoad`,
// which runs one job in a fresh child process and returns the one JSON line it prints.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run$ = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHILD = fileURLToPath(new URL('./_http-load.ts', import.meta.url));
/** Far above any full run; past it the child is killed and the measurement fails. */
const TIMEOUT_MS = 300_000;

export interface LoadJob {
  /** The server, on 127.0.0.1. */
  port: number;
  path: string;
  method: 'GET' | 'POST';
  /** Keep-alive connections, each with one request in flight at a time. */
  concurrency: number;
  total: number;
  /** POST only: request i sends bodies[i % bodies.length]. */
  bodies?: string[];
  /** POST only: header lines sent after Content-Type and Accept (the MCP 2026 headers). */
  headers?: Record<string, string>;
  /** A 200 response whose body lacks this string (any of these strings) still counts as an error. */
  expect?: string | string[];
}

export interface LoadResult {
  /** Requests per second over the whole job. */
  rate: number;
  /** Latency percentiles, ms. */
  p50: number;
  p99: number;
  errors: number;
  n: number;
  /** The load client's own CPU time per request (it shares the machine's cores with the server). */
  clientCpuMs: number;
}

export async function runLoad(job: LoadJob): Promise<LoadResult> {
  const pending = run$(process.execPath, ['--import', 'tsx', CHILD], { cwd: ROOT, timeout: TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: 1 << 20 });
  // A child that dies before reading its job breaks this pipe; the rejected `pending` says why.
  pending.child.stdin!.on('error', () => {});
  pending.child.stdin!.end(JSON.stringify(job));
  try {
    const { stdout } = await pending;
    return JSON.parse(stdout) as LoadResult;
  } catch (e) {
    if ((e as { killed?: boolean }).killed) throw new Error(`http load client killed after ${TIMEOUT_MS / 1000} s: ${job.method} ${job.path} c=${job.concurrency}`);
    throw e;
  }
}
