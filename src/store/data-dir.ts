// The data directory (Node only, 0700): the signing keys (0600 files) and one SQLite log per tenant
// (0600 files, store/sqlite.ts). `vouch init` creates it; `serve` and the CLI open it. Keys are
// never overwritten.
import { chmodSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { toHex } from '../canonical/index.js';
import { createEd25519Verifier, createMldsa44Verifier, createMldsaVerifier, createVerifier, mldsa44KeyFromSeed, mldsaKeyFromSeed, noteKeyId, signInContext, toJwks, type Jwks, type SignatureAlg, type Signer } from '../crypto/index.js';
import { createNodeEd25519Signer, createSignerFromSeed, generateSeed, nodeEd25519PublicKeyFromSeed, readKeyFile, writeKeyFile } from '../crypto/node.js';
import { ConfigError, StoreError } from '../errors.js';
import { Appender, assertTenant, commitKeyOf, isTenant, logOriginOf, formatVkey, noteSignerFor, noteVerifierFor, type BatchStats, type HistoryKey, type KeyHistory, type LogAppender, type NoteSigner, type NoteVerifier } from '../log/index.js';
import { KEY_FILES, logSignersOf, RESTORE_ADVICE } from './key-files-check.js';
import { rotationPending } from './key-rotation.js';
import { acquireLogLock, type LogLock } from './lock.js';
import { startLogThread, wireKeys, type LogThread, type LogThreadOptions, type ThreadedLog } from './log-thread.js';
import { DataDirKeys, type RotatableLog, type RotationResult } from './data-dir-keys.js';
import { tenantKeysForVerify, type TenantKeys } from './tenant-keys.js';
import type { LogStore } from './port.js';
import { openSqliteStore } from './sqlite.js';

export const DEFAULT_DATA_DIR = '.vouch';
export const DEFAULT_KEY_NAME = 'vouch.local';

export interface KeyInfo {
  alg: SignatureAlg;
  name: string;
  publicKey: Uint8Array;
  /** C2SP key id, hex. */
  keyId: string;
  vkey: string;
}

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

export interface InitResult {
  created: string[];
  kept: string[];
}

export function keyPaths(dir: string) {
  return { mldsa: join(dir, 'keys', 'mldsa65.key'), ed25519: join(dir, 'keys', 'ed25519.key'), mldsa44: join(dir, 'keys', 'mldsa44.key') };
}

/**
 * Create keys where missing; existing keys are kept, never overwritten. Only a directory without a
 * log gets new keys (its first run): a key made beside a log it did not sign would only be refused
 * as a stranger's, and the log's own key would look lost. There, a missing key file is an error.
 */
export function initDataDir(dir: string, opts: { ed25519?: boolean; mldsa44?: boolean } = {}): InitResult {
  const out: InitResult = { created: [], kept: [] };
  if (listTenants(dir).length > 0) {
    const paths = keyPaths(dir);
    if (!existsSync(paths.mldsa)) throw missingKeyFile(dir, 'ML-DSA-65');
    // Nor an Ed25519 or ML-DSA-44 file: whether the log needs one, opening it says (tenant-keys.ts).
    // A log made before ML-DSA-44 log signatures gains that key with \`vouch keys rotate\` (a signed
    // key entry), never by a file appearing beside it (its checkpoints would then lack a line).
    out.kept.push(...[paths.mldsa, paths.ed25519, paths.mldsa44].filter((p) => existsSync(p)));
    return out;
  }
  // The directory itself only when vouch creates it (it may be one the operator made for more);
  // keys/ and logs/ are vouch's own: 0700 whatever they were.
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  }
  for (const sub of ['keys', 'logs']) {
    mkdirSync(join(dir, sub), { recursive: true, mode: 0o700 });
    chmodSync(join(dir, sub), 0o700);
  }
  const paths = keyPaths(dir);
  const want: [string, SignatureAlg][] = [[paths.mldsa, 'ML-DSA-65']];
  if (opts.ed25519 !== false) want.push([paths.ed25519, 'Ed25519']);
  // tlog-checkpoint: logs SHOULD sign with ML-DSA-44 (type 0x06), what public witnesses read.
  if (opts.mldsa44 !== false) want.push([paths.mldsa44, 'ML-DSA-44']);
  for (const [path, alg] of want) {
    if (existsSync(path)) out.kept.push(path);
    else {
      writeKeyFile(path, generateSeed(), alg);
      out.created.push(path);
    }
  }
  return out;
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
  // With a log thread, the thread derives the ML-DSA-65 public key (it signs with it) and hands it
  // back: until then this thread goes on with what the caller does next (start-up loads the policy).
  let thread: LogThread | undefined;
  if (opts.logThread) thread = await startLogThread({ keyName, mldsaSeed: seeds.mldsaSeed, ed25519Seed: seeds.ed25519Seed, mldsa44Seed: seeds.mldsa44Seed, maxBatch: opts.maxBatch, onBatch: opts.onBatch, onAudit: opts.onAudit, auditPage: opts.auditPage, auditDelayMs: opts.auditDelayMs, archiveRoot: opts.archiveRoot });
  let loaded: LoadedKeys;
  // Key history (issue 18, data-dir-keys.ts): each log signs with the keys its history says, checked at open.
  let keeper: DataDirKeys;
  try {
    loaded = keysOfSeeds(seeds, keyName, thread?.mldsaPublicKey);
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
  /**
   * The key histories of logs on disk this process has not opened (read-only), for the published
   * key set. Only a history without problems is published, and a log whose history has problems
   * (an index hiding a revocation, a forged key entry: issue 35) makes the key set refuse, with the
   * reason, rather than publish keys without what the log says of them.
   */
  const unopened = (only?: string): TenantKeys[] =>
    listTenants(dir)
      .filter((t) => !keeper.tenants.has(t) && (only === undefined || t === only))
      .flatMap((t) => {
        let store;
        try {
          store = openSqliteStore(logPath(dir, t), { readonly: true });
        } catch {
          return [];
        }
        try {
          // Signed key entries only: one in an unsigned tail is anyone's until that tail is signed.
          const v = tenantKeysForVerify(store, store.meta('origin') ?? originOf(t), keeper.current.keys, keyName, { tail: false });
          if (v.problems.length) throw new StoreError('ERR_STORE_INCONSISTENT', `refusing to publish keys: the key history of tenant ${t} cannot be trusted: ${v.problems.map((p) => p.message).join('; ')}`);
          return [v.keys];
        } finally {
          store.close();
        }
      });

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
        logs.set(tenant, t);
        locks.set(tenant, lock);
        return t;
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

/** What key rotation needs of a tenant log: in process, the Appender swaps signers; in the log thread, the writer does. */
function rotatable(t: TenantLog): RotatableLog {
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

/** Read the data directory's key files: public key facts, verifiers, and the seeds for signers. */
export interface LoadedKeys {
  keys: KeyInfo[];
  verifiers: NoteVerifier[];
  mldsaSeed: Uint8Array;
  ed25519Seed?: Uint8Array;
  mldsa44Seed?: Uint8Array;
}

/** The signing seeds in the key files, each checked for its algorithm. */
export function readKeySeeds(dir: string): { mldsaSeed: Uint8Array; ed25519Seed?: Uint8Array; mldsa44Seed?: Uint8Array } {
  const paths = keyPaths(dir);
  if (!existsSync(paths.mldsa)) {
    if (listTenants(dir).length > 0) throw missingKeyFile(dir, 'ML-DSA-65');
    throw new ConfigError('ERR_CONFIG', `no signing key at ${paths.mldsa}: run \`vouch init --data ${dir}\` first`);
  }
  const mldsa = readKeyFile(paths.mldsa);
  if (mldsa.alg !== 'ML-DSA-65') throw new ConfigError('ERR_CONFIG', `${paths.mldsa} holds a ${mldsa.alg} key, not ML-DSA-65`);
  const optional = (path: string, alg: SignatureAlg): Uint8Array | undefined => {
    if (!existsSync(path)) return undefined;
    const k = readKeyFile(path);
    if (k.alg !== alg) throw new ConfigError('ERR_CONFIG', `${path} holds a ${k.alg} key, not ${alg}`);
    return k.seed;
  };
  const ed25519Seed = optional(paths.ed25519, 'Ed25519');
  const mldsa44Seed = optional(paths.mldsa44, 'ML-DSA-44');
  return { mldsaSeed: mldsa.seed, ...(ed25519Seed && { ed25519Seed }), ...(mldsa44Seed && { mldsa44Seed }) };
}

/**
 * The keys of the seeds. `mldsaPublicKey`: the ML-DSA-65 public key when it was derived already
 * (the log thread derives it while this thread loads the policy: 80 ms of start-up otherwise).
 */
export function keysOfSeeds(seeds: { mldsaSeed: Uint8Array; ed25519Seed?: Uint8Array; mldsa44Seed?: Uint8Array }, keyName: string, mldsaPublicKey?: Uint8Array): LoadedKeys {
  const mldsaPub = mldsaPublicKey ?? mldsaKeyFromSeed(seeds.mldsaSeed).publicKey;
  const keys = [keyInfo('ML-DSA-65', keyName, mldsaPub)];
  const verifiers = [noteVerifierFor(keyName, createMldsaVerifier(mldsaPub))];
  if (seeds.ed25519Seed) {
    const pub = nodeEd25519PublicKeyFromSeed(seeds.ed25519Seed);
    keys.push(keyInfo('Ed25519', keyName, pub));
    verifiers.push(noteVerifierFor(keyName, createEd25519Verifier(pub)));
  }
  if (seeds.mldsa44Seed) {
    const pub = mldsa44KeyFromSeed(seeds.mldsa44Seed).publicKey;
    keys.push(keyInfo('ML-DSA-44', keyName, pub));
    verifiers.push(noteVerifierFor(keyName, createMldsa44Verifier(pub)));
  }
  return { keys, verifiers, mldsaSeed: seeds.mldsaSeed, ...(seeds.ed25519Seed && { ed25519Seed: seeds.ed25519Seed }), ...(seeds.mldsa44Seed && { mldsa44Seed: seeds.mldsa44Seed }) };
}

export function loadKeys(dir: string, keyName = DEFAULT_KEY_NAME): LoadedKeys {
  return keysOfSeeds(readKeySeeds(dir), keyName);
}

/** ERR_KEY_MISSING for a data directory with a log: which file, the key its logs are signed with, how to restore it. */
function missingKeyFile(dir: string, alg: SignatureAlg): StoreError {
  const signers = new Set<string>();
  for (const t of listTenants(dir)) {
    try {
      const store = openSqliteStore(logPath(dir, t), { readonly: true });
      try {
        const note = store.latestCheckpoint()?.note;
        if (note) for (const l of logSignersOf(note)) if (l.alg === alg) signers.add(`${l.label} (log of tenant ${t})`);
      } finally {
        store.close();
      }
    } catch {
      // An unreadable log names no key; the file is missing all the same.
    }
  }
  const by = signers.size ? `; its logs are signed by key ${[...signers].join(', ')}` : '';
  const next = rotationPending(dir) ? ` (a key rotation stopped half way: ${join(dir, 'keys', 'next')} holds its incoming keys and keys/history/ the outgoing ones; the key id above is the one the logs need)` : '';
  return new StoreError('ERR_KEY_MISSING', `${join(dir, KEY_FILES[alg])} is missing, and ${dir} holds a log${by}: ${RESTORE_ADVICE}${next}`);
}

/** Tenants with a log in this data directory. */
export function listTenants(dir: string): string[] {
  const logs = join(dir, 'logs');
  if (!existsSync(logs)) return [];
  return readdirSync(logs).filter((f) => f.endsWith('.db')).map((f) => f.slice(0, -3)).filter(isTenant).sort();
}

export function logPath(dir: string, tenant: string): string {
  assertTenant(tenant);
  return join(dir, 'logs', `${tenant}.db`);
}

function keyInfo(alg: SignatureAlg, name: string, publicKey: Uint8Array): KeyInfo {
  return { alg, name, publicKey, keyId: toHex(noteKeyId(name, alg, publicKey)), vkey: formatVkey(name, alg, publicKey) };
}
