// One writer per tenant log (Node only): `<data>/logs/<tenant>.lock`, created with O_EXCL and
// holding the writer's pid. SQLite would let two processes write, but two group-commit appenders
// would both sign a checkpoint for the same size: a fork. A lock whose process is gone is stale.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StoreError } from '../errors.js';

export interface LogLock {
  path: string;
  release(): void;
}

export function lockPath(dir: string, tenant: string): string {
  return join(dir, 'logs', `${tenant}.lock`);
}

function holderOf(path: string): number | undefined {
  try {
    const m = /^(\d+)\n?$/.exec(readFileSync(path, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0); // signal 0: existence check only
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // alive, owned by someone else
  }
}

/** Blocks this thread (start-up only: nothing else runs until the log is open). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Take the tenant's writer lock or throw ERR_STORE naming the process that holds it. `waitMs`: how
 * long a live holder may take to let go first (a gateway an MCP client started only to probe its
 * era, still shutting down while the client starts the real one); 0 refuses at once.
 */
export function acquireLogLock(dir: string, tenant: string, waitMs = 0): LogLock {
  const path = lockPath(dir, tenant);
  const deadline = Date.now() + waitMs;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        writeSync(fd, `${process.pid}\n`);
      } finally {
        closeSync(fd);
      }
      return {
        path,
        release: () => {
          if (holderOf(path) !== process.pid) return;
          try {
            unlinkSync(path);
          } catch {
            // already gone
          }
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new StoreError('ERR_STORE', `cannot create lock ${path}: ${(e as Error).message}`, { cause: e });
    }
    const holder = holderOf(path);
    if (holder !== undefined && isAlive(holder)) {
      if (holder !== process.pid && Date.now() < deadline) {
        sleepSync(Math.min(50, Math.max(1, deadline - Date.now())));
        attempt = -1; // waiting is not a change of hands
        continue;
      }
      const who = holder === process.pid ? 'this process' : `process ${holder}`;
      throw new StoreError('ERR_STORE', `the log of tenant ${tenant} is in use by ${who} (${path}): to read it while that runs, attach read-only (\`vouch serve --read-only --data ${dir}\`: audit routes and the console; \`vouch keys export --data ${dir}\`: its public keys); to change it, use that server's REST API, or stop it first`);
    }
    // Stale: its writer died (kill -9, power loss). Remove it if it is still the one we read.
    if (holderOf(path) === holder) {
      try {
        unlinkSync(path);
      } catch {
        // someone else removed it first
      }
    }
  }
  throw new StoreError('ERR_STORE', `cannot take the lock ${path}: it keeps changing hands`);
}
