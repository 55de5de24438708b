// One tenant's log in the data directory (Node only), opened: its writer lock, the SQLite file and
// origin check, the keys its history names, and its appender (in process or in the log thread).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, StoreError } from '../errors.js';
import { Appender, assertTenant, commitKeyOf, noteSignerFor, type BatchStats, type LogAppender, type NoteVerifier } from '../log/index.js';
import { acquireLogLock, type LogLock } from './lock.js';
import { wireKeys, type LogThread, type ThreadedLog } from './log-thread.js';
import type { DataDirKeys, RotatableLog } from './data-dir-keys.js';
import type { LogStore } from './port.js';
import { openSqliteStore } from './sqlite.js';
import { logPath } from './data-dir-layout.js';

export interface TenantLog {
  tenant: string;
  origin: string;
  /** Reads (and the few writes that are not entries: meta, documents, payload erasure). */
  store: LogStore;
  appender: LogAppender;
  /**
   * Verifiers of every key of this log's checked key history, under the names they sign with (a log
   * made since issue 18: its origin), each with the tree sizes it signs; they follow rotations.
   */
  readonly verifiers: NoteVerifier[];
  /** With a log thread: resolves once the writer has opened and checked the log; rejects if it refused. */
  ready?: Promise<void>;
}

export interface TenantLogOpening {
  dir: string;
  tenant: string;
  /** The log's origin (log/origin.ts), under the data directory's key name. */
  originOf(tenant: string): string;
  keeper: DataDirKeys;
  /** The log writer thread, when the service runs one; else the appender runs in process. */
  thread?: LogThread;
  lockWaitMs?: number;
  maxBatch?: number;
  monotonic?: () => number;
  onBatch?: (tenant: string, stats: BatchStats) => void;
}

/** Open (creating on first use) the tenant's log, holding its writer lock; on any refusal the lock and file are let go. */
export function openTenantLog(opts: TenantLogOpening): { log: TenantLog; lock: LogLock } {
  const { dir, tenant, originOf, keeper, thread } = opts;
  assertTenant(tenant);
  mkdirSync(join(dir, 'logs'), { recursive: true, mode: 0o700 });
  // One writer per log: serve and the CLI writers (policy activate, payload erase) both lock.
  const lock = acquireLogLock(dir, tenant, opts.lockWaitMs);
  let store: LogStore;
  try {
    store = openSqliteStore(logPath(dir, tenant));
  } catch (e) {
    lock.release();
    throw e;
  }
  const origin = originOf(tenant);
  const recorded = store.meta('origin');
  if (recorded === undefined) store.setMeta('origin', origin);
  else if (recorded !== origin) {
    store.close();
    lock.release();
    throw new StoreError('ERR_STORE_INCONSISTENT', `log of tenant ${tenant} was created for origin ${recorded}, not ${origin}`);
  }
  let fk: ReturnType<DataDirKeys['forTenant']>;
  try {
    fk = keeper.forTenant(tenant, store, origin);
  } catch (e) {
    store.close();
    lock.release();
    throw e;
  }
  const verifiersOf = () => keeper.tenants.get(tenant)?.verifiers ?? fk.keys.verifiers;
  if (thread) {
    const appender = thread.open(tenant, logPath(dir, tenant), origin, store.size(), { keyName: fk.keys.name, keys: wireKeys(fk.keys.verifiers) });
    const t: TenantLog = { tenant, origin, store, appender, ready: appender.ready, get verifiers() { return verifiersOf(); } };
    return { log: t, lock };
  }
  let appender: Appender;
  try {
    appender = Appender.open({
      origin,
      storage: store,
      signers: fk.signers,
      verifiers: fk.keys.verifiers,
      commitKey: commitKeyOf(fk.set.mldsaSeed),
      formerCommitKeys: keeper.seedSets().filter((s) => s !== fk.set).map((s) => commitKeyOf(s.mldsaSeed)),
      maxBatch: opts.maxBatch,
      monotonic: opts.monotonic,
      onBatch: opts.onBatch && ((s) => opts.onBatch!(tenant, s)),
    });
  } catch (e) {
    store.close();
    lock.release();
    throw e;
  }
  const t: TenantLog = { tenant, origin, store, appender, get verifiers() { return verifiersOf(); } };
  return { log: t, lock };
}

/** What key rotation needs of a tenant log: in process, the Appender swaps signers; in the log thread, the writer does. */
export function rotatable(t: TenantLog): RotatableLog {
  return {
    tenant: t.tenant,
    origin: t.origin,
    store: t.store,
    ready: t.ready,
    append: (body) => t.appender.append(body),
    rotate(body, next, name) {
      const a = t.appender as LogAppender & { rotate?: Appender['rotate']; rotateKeys?: ThreadedLog['rotateKeys'] };
      if (a.rotateKeys) return a.rotateKeys(body, { keyName: name, mldsaSeed: next.mldsaSeed, ed25519Seed: next.ed25519Seed, mldsa44Seed: next.mldsa44Seed });
      if (a.rotate) return a.rotate(body, next.signers.map((s) => noteSignerFor(name, s)), commitKeyOf(next.mldsaSeed));
      throw new ConfigError('ERR_CONFIG', `log of tenant ${t.tenant} cannot rotate keys`);
    },
  };
}
