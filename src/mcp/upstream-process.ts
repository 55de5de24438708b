// NODE-ONLY: an upstream server's process, started in a process group of its own and stopped whole.
// `npx pkg` (the README's form) is a wrapper whose child is the server: signalling the wrapper alone
// left the server running, holding the gateway's pipes open, and the gateway hung on disconnect
// (issue 37). On POSIX the child leads its own group (spawn `detached`), and stopping signals the
// group: end of input first (MCP stdio shutdown), then SIGTERM, then SIGKILL after a grace period.
import { spawn, type ChildProcess, type IOType } from 'node:child_process';

export interface UpstreamProcessSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  stderr?: IOType;
}

export interface UpstreamProcess {
  child: ChildProcess;
  /** Resolves once the process runs; rejects when it cannot be started (ENOENT, EACCES). */
  started: Promise<void>;
  /** Resolves when the process has exited and its pipes have closed (its whole group is gone). */
  closed: Promise<void>;
  /** Stop it and everything it started: input ended, then SIGTERM, then SIGKILL, to the group. */
  stop(): Promise<void>;
}

/** The MCP stdio shutdown's "reasonable time" between steps, as the SDK's own stdio client waits. */
const GRACE_MS = 2_000;
/** No process groups on Windows: the child alone is signalled there. */
const GROUPS = process.platform !== 'win32';

const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

export function startUpstreamProcess(spec: UpstreamProcessSpec, opts: { graceMs?: number } = {}): UpstreamProcess {
  const grace = opts.graceMs ?? GRACE_MS;
  const child = spawn(spec.command, spec.args, { env: spec.env, cwd: spec.cwd, stdio: ['pipe', 'pipe', spec.stderr ?? 'inherit'], shell: false, windowsHide: true, detached: GROUPS });
  const started = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  started.catch(() => undefined); // the caller's to handle; never an unhandled rejection here
  // `close`: the process exited and every stdio pipe closed. A pipe held by a grandchild keeps it from
  // coming: when the leader exits, what is left of its group is stopped, so it does come.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  const signal = (sig: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      if (GROUPS) process.kill(-child.pid, sig);
      else child.kill(sig);
    } catch {
      // ESRCH: the group is gone already
    }
  };
  let stopping: Promise<void> | undefined;
  /** From SIGTERM on: the group is signalled until its pipes close (a leader gone first leaves members). */
  const terminate = async () => {
    signal('SIGTERM');
    if (await settles(closed, grace)) return;
    signal('SIGKILL');
    await settles(closed, grace);
  };
  void exited.then(() => {
    if (!stopping && child.pid !== undefined) stopping = terminate(); // the leader died: its group goes with it
  });
  const stop = () =>
    (stopping ??= (async () => {
      if (child.pid === undefined) return; // never started
      try {
        child.stdin?.end();
      } catch {
        // already closed
      }
      if (await settles(closed, grace)) return;
      await terminate();
    })());
  return { child, started, closed, stop };
}

/** Whether `p` settles within `ms`. */
async function settles(p: Promise<void>, ms: number): Promise<boolean> {
  let done = false;
  await Promise.race([p.then(() => (done = true)), wait(ms)]);
  return done;
}
