// A real `vouch serve` (or `npm start`) child process on 127.0.0.1 and a free port, for the CLI
// tests: its ready block, its stderr as it grows, and a SIGTERM stop that waits for the exit.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = fileURLToPath(new URL('../../bin/vouch.js', import.meta.url));

export interface ServeChild {
  url: string;
  /** The ready block (stdout up to and including the policy lines). */
  ready: string;
  stderr(): string;
  /** Wait until stderr matches (polling), or fail with what it holds. */
  waitErr(re: RegExp, ms?: number): Promise<RegExpExecArray>;
  stop(): Promise<number | null>;
}

/** `vouch serve ARGS` (default), or `npm start -- ARGS` (the README's first command, prestart included). */
export async function startServe(args: string[], opts: { npm?: boolean; timeoutMs?: number } = {}): Promise<ServeChild> {
  const child: ChildProcess = opts.npm
    ? spawn('npm', ['start', '--silent', '--', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    : spawn(process.execPath, [BIN, 'serve', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  child.stdout!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM'); // its own group: npm and the node under it
    return exited;
  };
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  // The block ends with one `policy` line per tenant (or the "no tenant log yet" line); --json: one line.
  const done = args.includes('--json') ? /^\{"msg":"vouch ready".*\n/m : /vouch ready on [\s\S]*\n {2}policy {3}.*\n/;
  while (!done.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`no ready block (exit ${child.exitCode}); stdout: ${out}\nstderr: ${err}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 100)); // the start-up warnings follow the block
  const url = /(?:vouch ready on |"url":")(http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1];
  return {
    url,
    ready: out,
    stderr: () => err,
    async waitErr(re, ms = 15_000) {
      const end = Date.now() + ms;
      for (;;) {
        const m = re.exec(err);
        if (m) return m;
        if (Date.now() > end) throw new Error(`stderr never matched ${re}: ${err}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    stop,
  };
}
