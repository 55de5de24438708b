// The data directory opened (Node only, 0700): its keys and key history, and its tenant logs, each
// opened at first use and closed one by one or all at once. Layout: data-dir-layout.ts; `vouch init`:
// data-dir-init.ts; key files: data-dir-key-files.ts; one tenant's log: data-dir-log.ts.
import { createVerifier, signInContext, type Jwks } from '../crypto/index.js';
import { StoreError } from '../errors.js';
import { logOriginOf, noteSignerFor, noteVerifierFor, type BatchStats, type HistoryKey, type KeyHistory, type NoteSigner, type NoteVerifier } from '../log/index.js';
import type { LogLock } from './lock.js';
import { startLogThread, type LogThread, type LogThreadOptions } from './log-thread.js';
import { DataDirKeys, type RotationResult } from './data-dir-keys.js';
import { listTenants } from './data-dir-layout.js';
import { DEFAULT_KEY_NAME, keyInfo, keysOfSeeds, readKeySeeds, type KeyInfo, type LoadedKeys } from './data-dir-key-files.js';
import { openTenantLog, rotatable, type TenantLog } from './data-dir-log.js';
import { unopenedKeyHistories } from './data-dir-unopened.js';

export interface DataDir {
  dir: string;
  keyName: string;
  keys: KeyInfo[];
  signers: NoteSigner[];
  /**
   * The key files' keys under the data directory's key name: what logs made before issue 18 sign
   * under. A log made since signs under its origin: verify a log with its `TenantLog.verifiers`.
   */
  verifiers: NoteVerifier[];
  /** Every key with the tree sizes it signs per log (JWK member `vouch_logs`): the key history. With `tenant`: that log's only. */
  jwks(tenant?: string): Jwks;
  /** vkeys of every key of the logs' histories (with `tenant`: that log's), with `# key ...` lines giving their sizes. */
  vkeys(tenant?: string): string[];
  /** An open log's key history. */
  keyHistory(tenant: string): KeyHistory | undefined;
  /**
   * Rotate every log to new keys (a `key` entry each, signed by the outgoing keys); old key files
   * kept in keys/history/. `by`: who asked (an operator's principal, `cli:<user>`), recorded in each entry.
   */
  rotateKeys(time: string, by?: string): Promise<RotationResult>;
  /** Refuse a retired key's checkpoints of one log after `after` (a `key` revoke entry recording `by`). */
  revokeKey(tenant: string, keyId: string, after: number, time: string, by?: string): Promise<{ key: HistoryKey; seq: number }>;
  originOf(tenant: string): string;
  /**
   * The current ML-DSA-65 key over `message` under a FIPS 204 context (crypto/context.ts): what
   * the key signs besides notes. Never with the empty context: that one is the checkpoints'.
   */
  signInContext(message: Uint8Array, context: Uint8Array): Promise<Uint8Array>;
  /** Open (creating on first use) the tenant's log; the same object on every call until `closeLog`. */
  log(tenant: string): TenantLog;
  /** Tenants whose logs are open now. */
  openTenants(): string[];
  /** The tenant's log object if it is open or still closing, never opening one (health reads its halt). */
  peekLog(tenant: string): TenantLog | undefined;
  /**
   * Close one tenant's log (many tenants: an idle log gives back its file handles): its appends made
   * before are committed and signed first; later appends on the old object are refused
   * (ERR_STORE_CLOSED). `log(tenant)` afterwards opens it again, checked like any open.
   */
  closeLog(tenant: string): Promise<void>;
  /** Finish in-flight batches, close databases and the signing thread. */
  close(): Promise<void>;
}

export interface OpenOptions {
  keyName?: string;
  /** How long a tenant log's writer lock held by a live process may take to be let go (store/lock.ts); 0 by default. */
  lockWaitMs?: number;
  /** Sign ML-DSA-65 in a worker thread (the service); in-process for short CLI runs. */
  thread?: boolean;
  /**
   * The service: appenders, their SQLite write connections and checkpoint signing in a log writer
   * thread (store/log-thread.ts), keeping the event loop free for requests and the chain.
   */
  logThread?: boolean;
  onBatch?: (tenant: string, stats: BatchStats) => void;
  /** `vouch keys rotate`: open even though a rotation stopped half way (keys/next/), to finish it. */
  resumeRotation?: boolean;
  /** With a log thread: progress of each log's background leaf audit. */
  onAudit?: LogThreadOptions['onAudit'];
  /** With a log thread: entries per page of that audit. */
  auditPage?: number;
  /** With a log thread: milliseconds after a log opens before its audit starts. */
  auditDelayMs?: number;
  /** With a log thread: the tile archive root its audit reads sealed history from (archive-read.ts). */
  archiveRoot?: string;
  monotonic?: () => number;
  maxBatch?: number;
}

export async function openDataDir(dir: string, opts: OpenOptions = {}): Promise<DataDir> {
  const keyName = opts.keyName ?? DEFAULT_KEY_NAME;
  const seeds = readKeySeeds(dir);
  // With a log thread, the thread derives the ML-DSA-65 and ML-DSA-44 public keys (it signs with them)
  // and hands them back: until then this thread goes on with what the caller does next (start-up loads the policy).
  let thread: LogThread | undefined;
  if (opts.logThread) thread = await startLogThread({ keyName, mldsaSeed: seeds.mldsaSeed, ed25519Seed: seeds.ed25519Seed, mldsa44Seed: seeds.mldsa44Seed, maxBatch: opts.maxBatch, onBatch: opts.onBatch, onAudit: opts.onAudit, auditPage: opts.auditPage, auditDelayMs: opts.auditDelayMs, archiveRoot: opts.archiveRoot });
  let loaded: LoadedKeys;
  // Key history (issue 18, data-dir-keys.ts): each log signs with the keys its history says, checked at open.
  let keeper: DataDirKeys;
  try {
    loaded = keysOfSeeds(seeds, keyName, thread?.mldsaPublicKey, thread?.mldsa44PublicKey);
    keeper = await DataDirKeys.open(dir, keyName, { mldsaSeed: loaded.mldsaSeed, ed25519Seed: loaded.ed25519Seed, mldsa44Seed: loaded.mldsa44Seed, keys: loaded.keys }, { thread: opts.thread ?? false, resume: opts.resumeRotation });
  } catch (e) {
    await thread?.close();
    throw e;
  }
  const { keys, verifiers } = loaded;
  const initialSet = keeper.current;
  const noteSigners = initialSet.signers.map((s) => noteSignerFor(keyName, s));
  const logs = new Map<string, TenantLog>();
  const locks = new Map<string, LogLock>();
  /** Logs being closed: opened again only once the close is over (one writer per file). */
  const closingLogs = new Map<string, Promise<void>>();
  const originOf = (tenant: string) => logOriginOf(keyName, tenant);
  const unopened = (only?: string) => unopenedKeyHistories(dir, keeper, keyName, originOf, only);

  const self: DataDir = {
    dir,
    keyName,
    // The key files' keys under the data directory's key name (they change with a rotation).
    get keys() {
      return keeper.current === initialSet ? keys : keeper.current.keys.map((k) => keyInfo(k.alg, keyName, k.publicKey));
    },
    get signers() {
      return keeper.current === initialSet ? noteSigners : keeper.current.signers.map((s) => noteSignerFor(keyName, s));
    },
    get verifiers() {
      return keeper.current === initialSet ? verifiers : keeper.current.keys.map((k) => noteVerifierFor(keyName, createVerifier(k.alg, k.publicKey)));
    },
    originOf,
    signInContext: (message, context) => signInContext(keeper.current.signers[0], message, context),
    jwks: (tenant) => keeper.jwks(unopened(tenant), tenant),
    vkeys: (tenant) => keeper.vkeys(unopened(tenant), tenant),
    keyHistory: (tenant) => keeper.tenants.get(tenant)?.history,
    async rotateKeys(time, by) {
      const all = [...new Set([...listTenants(dir), ...logs.keys()])].map((t) => self.log(t));
      return keeper.rotate(all.map(rotatable), time, by);
    },
    async revokeKey(tenant, keyId, after, time, by) {
      return keeper.revoke(rotatable(self.log(tenant)), keyId, after, time, by);
    },
    openTenants: () => [...logs.keys()],
    peekLog: (tenant) => logs.get(tenant),
    closeLog(tenant: string): Promise<void> {
      const t = logs.get(tenant);
      if (!t) return closingLogs.get(tenant) ?? Promise.resolve();
      const done = (async () => {
        try {
          await t.appender.close(); // what was appended before is committed and signed
        } finally {
          t.store.close();
          logs.delete(tenant);
          keeper.tenants.delete(tenant); // its key history is read from the file again (unopened) until reopened
          locks.get(tenant)?.release();
          locks.delete(tenant);
          closingLogs.delete(tenant);
        }
      })();
      closingLogs.set(tenant, done);
      return done;
    },
    log(tenant: string): TenantLog {
      // Its close is still finishing appends: the caller waits for closeLog's promise, then opens.
      if (closingLogs.has(tenant)) throw new StoreError('ERR_STORE_CLOSED', `log of tenant ${tenant} is being closed: open it again once closed`);
      const open = logs.get(tenant);
      if (open) return open;
      const { log: t, lock } = openTenantLog({ dir, tenant, originOf, keeper, thread, lockWaitMs: opts.lockWaitMs, maxBatch: opts.maxBatch, monotonic: opts.monotonic, onBatch: opts.onBatch });
      logs.set(tenant, t);
      locks.set(tenant, lock);
      return t;
    },
    async close() {
      await Promise.allSettled([...closingLogs.values()]);
      for (const t of logs.values()) await t.appender.close();
      await thread?.close(); // finishes every queued and in-flight batch first
      for (const t of logs.values()) t.store.close();
      logs.clear();
      for (const l of locks.values()) l.release();
      locks.clear();
      await keeper.close();
    },
  };
  return self;
}
