// RFC 3161 time-stamping for a Node service (Node only): reads the pinned TSA certificate(s),
// opens <data>/timestamps.db and per tenant log runs a stamper on its own timer. Decisions never
// wait for it: it reads signed checkpoints after the fact, and a TSA that is down is only counted.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { Certificate } from 'pkijs';
import { ConfigError } from '../errors.js';
import type { TimestampingConfig } from './config.js';
import { TimestampStamper, type StampSource, type TsaStatus } from './stamper.js';
import { openTimestampStore, type TimestampReads } from './store.js';
import { parseCertificates } from './token.js';

export const TIMESTAMPS_DB = 'timestamps.db';

export interface NodeTimestamping {
  reads: TimestampReads;
  /** Start stamping a tenant's log (its port as the log signed its notes: no cosignature lines). */
  track(tenant: string, source: StampSource): void;
  untrack(tenant: string): Promise<void>;
  close(): Promise<void>;
}

/** The pinned certificate file, relative to the config file: a bad or missing one is a start-up error. */
export function readPinnedCertificates(path: string, configPath?: string): Certificate[] {
  const p = isAbsolute(path) || configPath === undefined ? path : resolve(dirname(configPath), path);
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(p);
  } catch (e) {
    throw new ConfigError('ERR_CONFIG', `timestamping.certificates: cannot read ${p}: ${(e as NodeJS.ErrnoException).code ?? 'unreadable'}`, [{ path: '/timestamping/certificates', message: 'unreadable' }]);
  }
  try {
    return parseCertificates(bytes);
  } catch (e) {
    throw new ConfigError('ERR_CONFIG', `timestamping.certificates: ${p}: ${(e as Error).message}`, [{ path: '/timestamping/certificates', message: 'not a certificate' }]);
  }
}

/** The stamps a service in `data` kept, read-only (`vouch export`, `vouch receipt`): undefined when it never stamped. */
export function readTimestamps(data: string): (TimestampReads & { close(): void }) | undefined {
  const path = join(data, TIMESTAMPS_DB);
  return existsSync(path) ? openTimestampStore(path, { readonly: true }) : undefined;
}

export function openNodeTimestamping(opts: {
  data: string;
  config: TimestampingConfig;
  pinned: Certificate[];
  onStatus?(tenant: string, s: TsaStatus): void;
  logLine?(l: Record<string, unknown>): void;
  /** Tests: the cadence check and the first retry delay. */
  tickMs?: number;
  backoffMs?: number;
}): NodeTimestamping {
  const store = openTimestampStore(join(opts.data, TIMESTAMPS_DB));
  const stampers = new Map<string, TimestampStamper>();
  const failing = new Set<string>();
  const c = opts.config;
  return {
    reads: store,
    track(tenant, source) {
      const s = new TimestampStamper({
        source,
        store,
        url: c.url,
        pinned: opts.pinned,
        everyEntries: c.everyEntries,
        everyMs: c.everyMinutes === undefined ? undefined : c.everyMinutes * 60_000,
        timeoutMs: c.timeoutMs,
        tickMs: opts.tickMs,
        backoffMs: opts.backoffMs,
        nowMs: () => Date.now(),
        onStatus: (st) => {
          opts.onStatus?.(tenant, st);
          // One warn line when stamps stop (and one info line when they resume), the retries at debug.
          if (!st.ok) opts.logLine?.({ level: failing.has(tenant) ? 'debug' : 'warn', msg: 'TSA time-stamp failed (retried with backoff; decisions are not affected)', tenant, size: st.size, error: st.error });
          else opts.logLine?.({ level: failing.has(tenant) ? 'info' : 'debug', msg: 'checkpoint time-stamped', tenant, size: st.size, genTime: st.stamped?.genTime });
          if (st.ok) failing.delete(tenant);
          else failing.add(tenant);
        },
      }).start();
      const before = stampers.get(tenant);
      stampers.set(tenant, s);
      void before?.close();
    },
    async untrack(tenant) {
      const s = stampers.get(tenant);
      stampers.delete(tenant);
      await s?.close();
    },
    async close() {
      await Promise.all([...stampers.values()].map((s) => s.close()));
      store.close();
    },
  };
}
