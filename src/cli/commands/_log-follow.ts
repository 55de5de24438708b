// `vouch log tail --follow`: new entries of the tenant logs as they are appended, for SIEM
// pipelines. Polls the SQLite read side (read-only connections): each poll is one indexed
// MAX(seq) per log and a seq-range read of what is new, so an idle follow costs next to nothing.
import { existsSync } from 'node:fs';
import { listTenants, logPath, openSqliteStore } from '../../store/node.js';
import type { LogStore } from '../../store/port.js';
import type { StoredEntry } from '../../log/storage.js';

export interface FollowOptions {
  data: string;
  /** One tenant; all (including logs created while following) when absent. */
  tenant?: string;
  /** Entries already in each log to print first (the newest `last`); new entries follow. */
  last: number;
  intervalMs: number;
  signal: AbortSignal;
  emit(tenant: string, e: StoredEntry): void;
}

const MAX_PER_POLL = 1000;

export async function followLogs(o: FollowOptions): Promise<void> {
  const open = new Map<string, { store: LogStore; next: number }>();
  const poll = () => {
    const tenants = o.tenant !== undefined ? [o.tenant] : listTenants(o.data);
    for (const t of tenants) {
      let log = open.get(t);
      if (!log) {
        if (!existsSync(logPath(o.data, t))) continue; // not created yet: looked for again next poll
        const store = openSqliteStore(logPath(o.data, t), { readonly: true });
        log = { store, next: Math.max(0, store.size() - o.last) };
        open.set(t, log);
      }
      // Bounded reads: a large backlog is drained over several polls without holding a read long.
      for (;;) {
        const size = log.store.size();
        if (size <= log.next) break;
        const to = Math.min(size, log.next + MAX_PER_POLL);
        for (const e of log.store.entries(log.next, to)) {
          if (o.signal.aborted) return;
          o.emit(t, e);
          log.next = e.seq + 1;
        }
        if (to === size) break;
      }
    }
  };
  try {
    while (!o.signal.aborted) {
      poll();
      if (o.signal.aborted) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, o.intervalMs);
        function done() {
          clearTimeout(timer);
          o.signal.removeEventListener('abort', done);
          resolve();
        }
        o.signal.addEventListener('abort', done, { once: true });
      });
    }
  } finally {
    for (const l of open.values()) l.store.close();
  }
}
