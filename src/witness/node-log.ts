// Witnessing for a Node service (Node only): opens <data>/witness-cosignatures.db, and per tenant
// log starts a submitter and wraps its port so served checkpoints carry the cosignatures. The log's
// own ML-DSA-44 signature is no cosignature: it is one of the log's keys (keys/mldsa44.key, in the
// key history) and in every checkpoint as signed (store/data-dir.ts).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJson } from '../canonical/index.js';
import { ConfigError } from '../errors.js';
import type { LogPort } from '../store/log-port.js';
import { parseWitnessingConfig, type WitnessingConfig } from './config.js';
import { openCosignatureStore, type CosignatureStore } from './cosig-store.js';
import { withCosignatures } from './attach.js';
import { WitnessSubmitter, type WitnessStatus } from './submitter.js';
import { witnessStatusLines } from './status-lines.js';

export interface NodeWitnessing {
  /** Start witnessing a tenant's log; returns the port to serve (checkpoints with cosignatures). */
  track(tenant: string, port: LogPort): LogPort;
  /** Stop submitting a tenant's checkpoints (its log closed when idle); `track` starts again. */
  untrack(tenant: string): Promise<void>;
  close(): Promise<void>;
}

/** The witness config: `path` if given, else <data>/witnesses.json if present, else undefined (witnessing off). */
export function readWitnessingConfig(data: string, path?: string): WitnessingConfig | undefined {
  if (path === undefined) {
    if (!existsSync(join(data, 'witnesses.json'))) return undefined;
    path = join(data, 'witnesses.json');
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError('ERR_CONFIG', `cannot read witness config ${path}: ${(e as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  return parseWitnessingConfig(parseJson(text));
}

/**
 * The cosignatures a service in `data` collected, read-only (`vouch export` beside a running
 * service): undefined when it never witnessed. Checkpoints read through `withCosignatures` carry them.
 */
export function readCosignatures(data: string): CosignatureStore | undefined {
  const path = join(data, 'witness-cosignatures.db');
  return existsSync(path) ? openCosignatureStore(path, { readonly: true }) : undefined;
}

export function openNodeWitnessing(opts: { data: string; config?: WitnessingConfig; onStatus?(tenant: string, s: WitnessStatus): void; logLine?(l: Record<string, unknown>): void }): NodeWitnessing {
  const store = openCosignatureStore(join(opts.data, 'witness-cosignatures.db'));
  // One submitter per open tenant log: an idle close stops it, a reopen starts it again (issue 40).
  const submitters = new Map<string, WitnessSubmitter>();
  const cfg = opts.config;
  const statusLine = opts.logLine && witnessStatusLines(opts.logLine);
  return {
    track(tenant, port) {
      const s = new WitnessSubmitter({
        source: port,
        witnesses: cfg?.witnesses ?? [],
        store,
        timeoutMs: cfg?.timeoutMs,
        retries: cfg?.retries,
        intervalMs: cfg?.intervalMs ?? 1000,
        nowSeconds: () => Math.floor(Date.now() / 1000),
        onStatus: (st) => {
          opts.onStatus?.(tenant, st);
          statusLine?.(tenant, st);
        },
      }).start();
      const before = submitters.get(tenant);
      submitters.set(tenant, s);
      void before?.close();
      return withCosignatures(port, store);
    },
    async untrack(tenant) {
      const s = submitters.get(tenant);
      submitters.delete(tenant);
      await s?.close();
    },
    async close() {
      await Promise.all([...submitters.values()].map((s) => s.close()));
      store.close();
    },
  };
}
