// vouch serve's tile archiver: after commits, off the decision path, each open tenant log's newest
// checkpoint and the tiles it completes are written to its archive (store/archive-write.ts). One
// sync per tenant at a time, coalesced; an integrity alarm stops that tenant's archive, never a decision.
import { codeOf } from '../errors.js';
import type { LogStorage } from '../log/index.js';
import { syncArchive, tenantArchiveDir } from '../store/node.js';

export interface LogArchiverOptions {
  root: string;
  /** The tenant's open store (reads only), or undefined when its log is closed: it is synced at its next open. */
  storeOf: (tenant: string) => LogStorage | undefined;
  /** Wait this long after a commit before syncing (commits meanwhile join the same sync). */
  delayMs?: number;
  logLine?: (line: Record<string, unknown>) => void;
  /** After each pass over an open log: the size the archive holds, or how it failed (for /metrics; kept there, not read back here). */
  onPass?: (tenant: string, pass: ArchivePass) => void;
}

/** One pass's outcome: the archive's checkpoint size, or a failure (`mismatch`: the integrity alarm, ERR_ARCHIVE_MISMATCH). */
export type ArchivePass = { ok: true; size: number } | { ok: false; mismatch: boolean };

interface TenantState {
  /** Size the archive holds (written by this process), once known. */
  size?: number;
  timer?: ReturnType<typeof setTimeout>;
  running?: Promise<void>;
  again?: boolean;
  /** An integrity alarm: nothing more is written for this tenant until restart. */
  stopped?: boolean;
}

export const DEFAULT_ARCHIVE_DELAY_MS = 1000;

export function createLogArchiver(opts: LogArchiverOptions) {
  const tenants = new Map<string, TenantState>();
  const delay = opts.delayMs ?? DEFAULT_ARCHIVE_DELAY_MS;
  let closed = false;
  // One sync at a time across tenants: file handles and CPU stay bounded by a constant, not by
  // the open tenants (test/http/many-tenants.test.ts counts handles).
  let lane: Promise<unknown> = Promise.resolve();
  const serial = <T>(f: () => Promise<T>): Promise<T> => {
    const r = lane.then(f);
    lane = r.catch(() => undefined);
    return r;
  };
  const stateOf = (t: string): TenantState => tenants.get(t) ?? (tenants.set(t, {}), tenants.get(t)!);

  const run = (tenant: string): Promise<void> => {
    const s = stateOf(tenant);
    if (s.timer) (clearTimeout(s.timer), (s.timer = undefined));
    if (s.running) return ((s.again = true), s.running);
    if (s.stopped) return Promise.resolve();
    s.running = (async () => {
      do {
        s.again = false;
        try {
          const r = await serial(async () => {
            const store = opts.storeOf(tenant); // read when its turn comes: the log may have closed meanwhile
            return store && syncArchive(tenantArchiveDir(opts.root, tenant), store, s.size);
          });
          if (!r) return void (s.size = undefined); // closed: its next open starts from the archive's checkpoint
          if (r.written > 0) opts.logLine?.({ level: 'debug', msg: 'archive synced', tenant, size: r.size, written: r.written, kept: r.kept });
          s.size = r.size;
          opts.onPass?.(tenant, { ok: true, size: r.size });
        } catch (e) {
          const code = codeOf(e);
          s.size = undefined; // re-read from the archive next time
          if (code === 'ERR_ARCHIVE_MISMATCH') s.stopped = true;
          opts.onPass?.(tenant, { ok: false, mismatch: code === 'ERR_ARCHIVE_MISMATCH' });
          opts.logLine?.({ level: code === 'ERR_ARCHIVE_MISMATCH' ? 'error' : 'warn', msg: s.stopped ? 'archive integrity alarm: archiving stopped for this tenant' : 'archive sync failed (retried after the next commit)', tenant, code, error: (e as Error).message });
        }
      } while (s.again && !s.stopped);
    })().finally(() => (s.running = undefined));
    return s.running;
  };

  return {
    /** After a commit: sync in `delayMs` (once, however many commits come meanwhile). */
    schedule(tenant: string): void {
      const s = stateOf(tenant);
      if (closed || s.timer || s.stopped) return;
      s.timer = setTimeout(() => void run(tenant), delay);
      s.timer.unref?.();
    },
    /** Sync now and wait (a log about to close, after its last checkpoint). */
    flush: (tenant: string): Promise<void> => run(tenant),
    /** Forget a closed log's progress: its next open reads the archive's checkpoint again. */
    forget(tenant: string): void {
      const s = tenants.get(tenant);
      if (s?.timer) clearTimeout(s.timer);
      if (s && !s.running) tenants.delete(tenant);
    },
    /** Final syncs of the open logs (after their shutdown checkpoints) and of any sync pending, then no more. */
    async close(open: string[]): Promise<void> {
      const pending = [...tenants.entries()].filter(([, s]) => s.timer || s.running).map(([t]) => t);
      await Promise.allSettled([...new Set([...open, ...pending])].map((t) => run(t)));
      closed = true;
    },
    /** Tenants whose archive raised the integrity alarm. */
    alarms: (): string[] => [...tenants.entries()].filter(([, s]) => s.stopped).map(([t]) => t),
  };
}

export type LogArchiver = ReturnType<typeof createLogArchiver>;
