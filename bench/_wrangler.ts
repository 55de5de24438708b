// Run wrangler offline (the bench, and the Node-side Worker tests through test/workers/_wrangler.ts):
// the dry-run build (what `npm run build:worker` does) and `wrangler dev --local` on a free
// loopback port, stopped by its process group. `wrangler dev` runs the Worker of wrangler.toml, or
// the same handler (src/worker/entry.ts) over another resolved config document: an entry file
// written next to it, given to wrangler in place of `main`, with every binding of wrangler.toml.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
const WRANGLER = fileURLToPath(new URL('../node_modules/.bin/wrangler', import.meta.url));

/** No metrics, no error reports, no request.cf fetch, no banner: nothing leaves the machine. */
export const OFFLINE_ENV = {
  WRANGLER_SEND_METRICS: 'false',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  WRANGLER_HIDE_BANNER: 'true',
  WRANGLER_SEND_ERROR_REPORTS: 'false',
};

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `wrangler deploy --dry-run --outdir <outdir> --metafile <outdir>/meta.json`. */
export function buildWorker(outdir: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(WRANGLER, ['deploy', '--dry-run', '--outdir', outdir, '--metafile', `${outdir}/meta.json`], { cwd: ROOT, env: { ...process.env, ...OFFLINE_ENV } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface DevServer {
  url: string;
  port: number;
  /** The pid of wrangler, the leader of the process group workerd runs in. */
  pid: number;
  output(): string;
  stop(): Promise<void>;
}

export interface DevOptions {
  /** Durable Object state (SQLite files) of this run. */
  persist: string;
  /** The secrets, in .dev.vars format. */
  envFile: string;
  /**
   * Run this resolved config document (what `npm run build:config` writes under `config`) instead of
   * the generated one: written with an entry file into `entryDir` (default: beside `persist`).
   */
  config?: unknown;
  entryDir?: string;
  timeoutMs?: number;
  /** Run in this project folder (its wrangler.toml, its [build]) instead of the repository; with these extra environment variables. */
  cwd?: string;
  env?: Record<string, string>;
}

/** The entry wrangler runs for a config document of its own: src/worker.ts over that document. */
function writeEntry(dir: string, config: unknown): string {
  const src = (p: string) => JSON.stringify(join(ROOT, 'src', p));
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  const entry = join(dir, 'entry.ts');
  writeFileSync(
    entry,
    [
      `import document from './config.json' with { type: 'json' };`,
      `import { embeddedOfDocument } from ${src('policy/config-embedded.ts')};`,
      `import { workerHandler } from ${src('worker/entry.ts')};`,
      `export { VouchLog } from ${src('worker/log-object.ts')};`,
      `export { VouchState } from ${src('worker/state-object.ts')};`,
      `export default workerHandler(embeddedOfDocument(document));`,
      '',
    ].join('\n'),
  );
  return entry;
}

/** Start `wrangler dev --local` (state under `persist`, secrets from `envFile`) and wait until it answers. */
export async function startDev(opts: DevOptions): Promise<DevServer> {
  const [port, inspector] = [await freePort(), await freePort()];
  // With an entry of its own, wrangler is pointed at wrangler.toml (else it looks beside the entry).
  const entry = opts.config === undefined ? [] : [writeEntry(opts.entryDir ?? join(opts.persist, '..'), opts.config), '--config', join(ROOT, 'wrangler.toml')];
  const args = ['dev', ...entry, '--local', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(inspector), '--persist-to', opts.persist, '--env-file', opts.envFile, '--show-interactive-dev-session=false', '--log-level', 'warn'];
  // Its own process group: wrangler starts workerd as a child, and both must go when we stop.
  const child: ChildProcess = spawn(WRANGLER, args, { cwd: opts.cwd ?? ROOT, env: { ...process.env, ...OFFLINE_ENV, ...opts.env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      return; // the group is already gone
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 5000);
    await exited;
    clearTimeout(timer);
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (opts.timeoutMs ?? 90_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      // Any answer: it is up (the callers check what it says). Bounded: while its build fails,
      // wrangler accepts connections and never answers them.
      await (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(10_000) })).arrayBuffer();
      return { url, port, pid: child.pid!, output: () => out, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error(`wrangler dev did not answer on ${url}:\n${out}`);
}
