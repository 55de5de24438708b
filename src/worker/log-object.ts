// VouchLog: the Durable Object that is the single writer of one tenant's log. It holds the
// SQLite store and the group-commit Appender (signing with the secret set the log's key history
// names, log-keys.ts), hands the log over to new secrets on activation (a key rotation, as
// Node's), and answers the LogPort operations over RPC. Every method returns an RpcResult. With
// witnesses configured (VOUCH_WITNESSES), its alarm submits new checkpoints to them (witnessing.ts)
// and the checkpoints it serves carry the cosignatures kept in its storage; with VOUCH_RETENTION,
// the same alarm runs a payload retention pass every `everyMinutes` (retention.ts, alarm-schedule.ts);
// with an R2 bucket bound (VOUCH_ARCHIVE), it writes the log's new tiles there (archiving.ts).
import { DurableObject } from 'cloudflare:workers';
import type { Digest } from '../canonical/index.js';
import { toHex } from '../canonical/index.js';
import { noteKeyId } from '../crypto/index.js';
import { ConfigError, InputError, StoreError } from '../errors.js';
import { Appender, revokeEntryBody, rotateEntryBody, sameKey, type Appended, type Attachment, type EntryBody, type Hash, type HistoryKey, type NoteSigner, type StoredCheckpoint } from '../log/index.js';
import { recordPolicyDocuments } from '../decide/index.js';
import { logPortOf, type LogPort } from '../store/log-port.js';
import { openDurableObjectStore } from '../store/durable-object.js';
import type { DocumentKind, LogStore } from '../store/port.js';
import { tenantKeys, type TenantKeys } from '../store/tenant-keys.js';
import { keyNameOf, originOf, type WorkerEnv } from './env.js';
import { noteSignersOf, readKeySets, type WorkerKeySet } from './keys.js';
import { openLogKeys } from './log-keys.js';
import { WORKER_MIGRATIONS } from './migrations.js';
import { toResult, type RpcResult } from './rpc-result.js';
import { withCosignatures } from '../witness/attach.js';
import type { WitnessingConfig } from '../witness/config.js';
import type { CosignatureStore, NewestCosigned } from '../witness/cosig-store.js';
import { openDurableCosignatureStore } from '../witness/durable-cosig-store.js';
import { openWitnessRecord, witnessingOf, witnessRound, workerWitnessLines, type WitnessProgress, type WitnessRecord } from './witnessing.js';
import type { RetentionPolicy } from '../audit/index.js';
import { openAlarmSchedule, type AlarmSchedule } from './alarm-schedule.js';
import { retentionOf, retentionPass } from './retention.js';
import { archiveBucketOf, archivePass, checkR2Archive, openArchiveRecord, type ArchiveCheck, type ArchiveRecord, type ArchiveStatus } from './archiving.js';
import type { R2Bucket } from '@cloudflare/workers-types/index.ts';

/** Least time between checkpoint signatures under load on a Worker (noble, unmeasurable there). */
const NOBLE_INTERVAL_MS = 25;

/** Entries per `entries` page: bounded so one RPC message stays far below the runtime's limit. */
export const ENTRY_PAGE = 256;
const PAGE_BYTES = 4 * 1024 * 1024;

/** What the Worker records when a policy is in force for this log: decide's PolicyDocuments (as Node's recordActivation). */
export interface Activation {
  chain: Digest;
  policySet: Digest;
  /** Canonical bytes of the resolved config document and of the policy source. */
  chainBytes: Uint8Array;
  policyBytes: Uint8Array;
  engines: Record<string, string>;
  /** Decision time of the `policy` entry, chosen by the Worker (the object reads no clock). */
  time: string;
}

/** The object's RPC surface, as the Worker's stub sees it. */
/** Who a handover entry records as having asked for it (`by`): the operator, through the secrets. */
export const HANDOVER_BY = 'operator:secrets';

export interface LogObjectRpc {
  /** Records the policy in force, after handing the log over to new secrets when the previous ones still sign it; answers its key history. */
  activate(tenant: string, a: Activation): Promise<RpcResult<{ origin: string; appended: boolean; keys: HistoryKey[] }>>;
  /** The log's checked key history. */
  keyHistory(tenant: string): Promise<RpcResult<HistoryKey[]>>;
  /** A retired key's checkpoints refused after `after` (a `key` revoke entry recording `by`), as Node's `vouch keys revoke`. */
  revoke(tenant: string, keyId: string, after: number, time: string, by: string): Promise<RpcResult<{ key: HistoryKey; seq: number; keys: HistoryKey[] }>>;
  append(tenant: string, body: EntryBody, attachments?: Attachment[]): Promise<RpcResult<Appended>>;
  size(tenant: string): Promise<RpcResult<number>>;
  entry(tenant: string, seq: number): Promise<RpcResult<Uint8Array | undefined>>;
  latestCheckpoint(tenant: string): Promise<RpcResult<StoredCheckpoint | undefined>>;
  checkpointAt(tenant: string, size: number): Promise<RpcResult<StoredCheckpoint | undefined>>;
  inclusionProof(tenant: string, seq: number, size: number): Promise<RpcResult<Hash[]>>;
  consistencyProof(tenant: string, size1: number, size2: number): Promise<RpcResult<Hash[]>>;
  payload(tenant: string, digest: Digest): Promise<RpcResult<Uint8Array | undefined>>;
  erasePayload(tenant: string, digest: Digest): Promise<RpcResult<boolean>>;
  document(tenant: string, digest: Digest): Promise<RpcResult<{ kind: DocumentKind; bytes: Uint8Array } | undefined>>;
  putDocument(tenant: string, kind: DocumentKind, digest: Digest, bytes: Uint8Array): Promise<RpcResult<void>>;
  /** Entries [from, min(to, from + ENTRY_PAGE)), fewer if the page grows past a few MiB. */
  entries(tenant: string, from: number, to: number): Promise<RpcResult<{ seq: number; bytes: Uint8Array }[]>>;
  /** Stored nodes of one tree level, lo..hi inclusive (tlog-tiles: at most 256 per call). */
  nodes(tenant: string, level: number, lo: number, hi: number): Promise<RpcResult<Hash[]>>;
  /** The newest checkpoint a witness cosigned (undefined before any, or without witnessing). */
  witnessed(tenant: string): Promise<RpcResult<NewestCosigned | undefined>>;
  /** Each configured witness's progress and failures on this log (empty without witnessing). */
  witnessProgress(tenant: string): Promise<RpcResult<WitnessProgress[]>>;
  /** The R2 tile archive's record (undefined without the VOUCH_ARCHIVE binding). */
  archiveStatus(tenant: string): Promise<RpcResult<ArchiveStatus | undefined>>;
  /** The R2 tile archive read back and verified against the log's signed checkpoints (ERR_CONFIG without the binding). */
  checkArchive(tenant: string): Promise<RpcResult<ArchiveCheck>>;
}

/**
 * Sign after yielding once to the event loop. Signing is synchronous CPU work in the object, so
 * without a yield no other request could be delivered while a batch is in flight; with it, the
 * appends that arrive meanwhile queue up and the next batch (one signature) covers them all.
 */
function yieldingSigner(s: NoteSigner): NoteSigner {
  return {
    ...s,
    sign: async (m) => {
      await new Promise((r) => setTimeout(r, 0));
      return s.sign(m);
    },
  };
}

interface OpenLog {
  tenant: string;
  origin: string;
  store: LogStore;
  port: LogPort;
  appender: Appender;
  keys: TenantKeys;
  /** The current secrets, while the previous ones still sign this log (its handover is due). */
  handoverTo?: WorkerKeySet;
  /** With witnessing: the port whose checkpoints carry their cosignatures (what the RPC serves), the record and the status. */
  witness?: { served: LogPort; cosigs: CosignatureStore; record: WitnessRecord; config: WitnessingConfig };
  /** With payload retention (VOUCH_RETENTION): the policy its passes follow. */
  retention?: RetentionPolicy;
  /** With the R2 tile archive (VOUCH_ARCHIVE): the bucket and what was written to it. */
  archive?: { bucket: R2Bucket; record: ArchiveRecord };
}

/** The first retention pass of a log, after it first opens with the var set: off its first decisions. */
const FIRST_RETENTION_DELAY_MS = 60_000;

/**
 * An archive pass this long after a commit: the commits in between share it (each pass puts the
 * partial tiles at the log's edge and the checkpoint again, R2 class A operations), so the bucket
 * trails the log by about this much. After a refusal or failure, the next try waits the longer delay.
 */
const ARCHIVE_DELAY_MS = 30_000;
const ARCHIVE_RETRY_MS = 15 * 60_000;

const signing = (signers: NoteSigner[]) => [yieldingSigner(signers[0]), ...signers.slice(1)];

export class VouchLog extends DurableObject<WorkerEnv> implements LogObjectRpc {
  private open: OpenLog | undefined;
  /** Activations run one after another: the meta check and the append must not interleave. */
  private activating: Promise<unknown> = Promise.resolve();
  /** A witness round is scheduled (set by an append, cleared when the alarm runs). */
  private witnessPending = false;
  /** An archive pass is scheduled (set by a commit, cleared when the pass runs). */
  private archivePending = false;
  private schedule: AlarmSchedule | undefined;
  private witnessLines = workerWitnessLines();

  /** The tenant's log, opened on first use: migrations, origin check, key history checked and the tree recomputed before any signing. */
  private log(tenant: string): OpenLog {
    if (this.open) {
      if (this.open.tenant !== tenant) throw new StoreError('ERR_STORE_INCONSISTENT', `this log object belongs to tenant ${this.open.tenant}, not ${tenant}`);
      return this.open;
    }
    const legacy = keyNameOf(this.env);
    const origin = originOf(legacy, tenant);
    const store = openDurableObjectStore(this.ctx.storage, WORKER_MIGRATIONS);
    const recorded = store.meta('origin');
    if (recorded === undefined) store.setMeta('origin', origin);
    else if (recorded !== origin) throw new StoreError('ERR_STORE_INCONSISTENT', `log object was created for origin ${recorded}, not ${origin}`);
    // The secret set the log's history says signs now (a new log: under its origin; a log made
    // before, under the deployment's key name until its first handover), else a coded refusal.
    const opened = openLogKeys(store, origin, legacy, readKeySets(this.env));
    // Pacing: ML-DSA-65 here is noble in the isolate, and a deployed Worker's clock does not move
    // during pure computation, so the appender cannot measure it to stretch the interval (pacing.ts
    // signShare): the 25 ms noble's 7-12 ms signatures get elsewhere is set outright.
    const appender = Appender.open({ origin, storage: store, signers: signing(noteSignersOf(opened.set, opened.keys.name)), verifiers: opened.keys.verifiers, minIntervalMs: NOBLE_INTERVAL_MS });
    const port = logPortOf(origin, store, appender);
    const witness = this.witnessingOf(tenant, port);
    const retention = retentionOf(this.env);
    const schedule = this.alarms();
    if (schedule.tenant() !== tenant) schedule.setTenant(tenant);
    if (retention) {
      // The next pass: the one recorded, brought forward when the var now asks for a shorter period.
      const soonest = Date.now() + (schedule.due('retention') === undefined ? FIRST_RETENTION_DELAY_MS : retention.everyMinutes * 60_000);
      if ((schedule.due('retention') ?? Infinity) > soonest) {
        schedule.want('retention', soonest);
        this.arm();
      }
    }
    const bucket = archiveBucketOf(this.env);
    const archive = bucket && { bucket, record: openArchiveRecord(this.ctx.storage) };
    this.open = { tenant, origin, store, appender, port, keys: opened.keys, ...(opened.handoverTo && { handoverTo: opened.handoverTo }), ...(witness && { witness }), ...(retention && { retention }), ...(archive && { archive }) };
    // A bucket bound to a log that holds more than it (newly bound, or commits before a restart), or
    // a refused pass with no retry waiting: a pass soon (the retry's delay after a refusal).
    if (archive && schedule.due('archive') === undefined) {
      const { size, error } = archive.record.status();
      if (error !== undefined || (store.latestCheckpoint()?.size ?? 0) > size) {
        schedule.want('archive', Date.now() + (error !== undefined ? ARCHIVE_RETRY_MS : ARCHIVE_DELAY_MS));
        this.arm();
      }
    }
    return this.open;
  }

  private alarms(): AlarmSchedule {
    return (this.schedule ??= openAlarmSchedule(this.ctx.storage));
  }

  /** The object's one alarm, set to the earliest job's time (a storage write, ordered with the others). */
  private arm(onError?: () => void): void {
    const at = this.alarms().next();
    if (at !== undefined) this.ctx.storage.setAlarm(at).catch(() => onError?.());
  }

  private witnessingOf(tenant: string, port: LogPort): OpenLog['witness'] {
    const config = witnessingOf(this.env);
    if (!config) return undefined;
    const cosigs = openDurableCosignatureStore(this.ctx.storage);
    const record = openWitnessRecord(this.ctx.storage);
    if (record.tenant() !== tenant) record.setTenant(tenant);
    return { served: withCosignatures(port, cosigs), cosigs, record, config };
  }

  /** The port RPC reads go through: with witnessing, checkpoints carry their cosignatures (as Node's served port). */
  private served(tenant: string): LogPort {
    const log = this.log(tenant);
    return log.witness?.served ?? log.port;
  }

  /**
   * After a commit, make sure a witness round follows (the alarm, one interval later): the reply
   * never waits on a witness. setAlarm is a storage write, ordered with the append's.
   */
  private witnessSoon(log: OpenLog): void {
    if (!log.witness || this.witnessPending) return;
    this.witnessPending = true;
    // The earlier of this round and one already waiting; a retention pass due sooner keeps the alarm.
    this.alarms().want('witness', Date.now() + log.witness.config.intervalMs, { earliest: true });
    this.arm(() => (this.witnessPending = false));
  }

  /**
   * After a commit, an archive pass one ARCHIVE_DELAY_MS later (the commits meanwhile share it).
   * While the last pass was refused or failed, its retry (ARCHIVE_RETRY_MS) stands: a bucket with a
   * changed object is not asked again at every commit.
   */
  private archiveSoon(log: OpenLog): void {
    if (!log.archive || this.archivePending || log.archive.record.status().error !== undefined) return;
    this.archivePending = true;
    this.alarms().want('archive', Date.now() + ARCHIVE_DELAY_MS, { earliest: true });
    this.arm(() => (this.archivePending = false));
  }

  /** A commit's follow-ups, all from the alarm: the witness round and the archive pass. */
  private committed(log: OpenLog): void {
    this.witnessSoon(log);
    this.archiveSoon(log);
  }

  /**
   * The alarm: the jobs whose time has come. The witness round sends the newest checkpoint to every
   * witness (again after the interval while one is behind or failing); the retention pass erases
   * expired payloads (again after everyMinutes). Never on the decision path: its appends queue
   * behind decisions like any other.
   */
  async alarm(): Promise<void> {
    this.witnessPending = false;
    const schedule = this.alarms();
    const tenant = this.open?.tenant ?? schedule.tenant() ?? openWitnessRecord(this.ctx.storage).tenant();
    if (tenant === undefined) return;
    // The alarm was set for the earliest job: that one is due even if this clock reads a little earlier.
    const now = Date.now();
    const jobs = schedule.take(Math.max(now, schedule.next() ?? now));
    let log: OpenLog;
    try {
      log = this.log(tenant);
    } catch (e) {
      // A log that cannot open (keys that do not match, a bad var) signs nothing new: nothing to witness or erase until it does.
      console.error(JSON.stringify({ level: 'error', msg: 'alarm: log cannot be opened', tenant, error: (e as Error).message }));
      return;
    }
    // Every alarm brings a witness round, its own or not: one an earlier version set (no job
    // recorded), or one whose alarm a retention pass moved, is never lost. A caught-up witness costs one request.
    if (log.witness) {
      const w = log.witness;
      const { behind } = await witnessRound({ tenant, port: log.port, config: w.config, cosigs: w.cosigs, record: w.record, line: this.witnessLines });
      if (behind) this.witnessSoon(log);
    }
    if (log.retention && jobs.includes('retention')) {
      const run = await retentionPass({ tenant, port: log.port, policy: log.retention, now: new Date().toISOString() });
      schedule.want('retention', Date.now() + log.retention.everyMinutes * 60_000);
      // Its erasure entries are new checkpoints for the witnesses and the archive.
      if (run?.seqs.length) this.committed(log);
    }
    if (log.archive && jobs.includes('archive')) {
      // Cleared first: a commit during the pass schedules the next one.
      this.archivePending = false;
      const { ok } = await archivePass({ tenant, bucket: log.archive.bucket, storage: log.store, record: log.archive.record });
      if (!ok) schedule.want('archive', Date.now() + ARCHIVE_RETRY_MS, { earliest: true });
      else if ((log.store.latestCheckpoint()?.size ?? 0) > log.archive.record.status().size) this.archiveSoon(log);
    }
    // This alarm is spent: set it again for the earliest job still waiting (one not due yet).
    this.arm();
  }

  /**
   * The handover (Node's rotation): a `key` rotate entry naming the outgoing and incoming keys,
   * committed alone and covered by a checkpoint of exactly its size signed by the outgoing keys;
   * the incoming keys sign every later checkpoint, under the log's origin.
   */
  private async handOver(log: OpenLog, time: string): Promise<void> {
    const next = log.handoverTo!;
    const body = rotateEntryBody(time, log.keys.history.current, { name: log.origin, keys: next.keys }, HANDOVER_BY);
    await log.appender.rotate(body, signing(noteSignersOf(next, log.origin)));
    log.keys = tenantKeys(log.store, log.origin, next.keys, keyNameOf(this.env));
    log.handoverTo = undefined;
  }

  activate(tenant: string, a: Activation): Promise<RpcResult<{ origin: string; appended: boolean; keys: HistoryKey[] }>> {
    const run = this.activating.then(() =>
      toResult(async () => {
        const log = this.log(tenant);
        // New secrets with the old ones as _PREVIOUS: hand over before the policy entry (time from the Worker: the object reads no clock).
        if (log.handoverTo) await this.handOver(log, a.time);
        // The same recording as Node's (decide/policy-in-force.ts): documents checked against their digests, then the policy entry.
        const seq = await recordPolicyDocuments(log.port, log.store, a, a.time);
        this.committed(log);
        return { origin: log.port.origin, appended: seq !== undefined, keys: log.keys.history.keys };
      }),
    );
    this.activating = run;
    return run;
  }

  keyHistory(tenant: string) {
    return toResult(() => this.log(tenant).keys.history.keys);
  }

  /** As DataDirKeys.revoke on Node: KEYID is any id of the key (under the log's names, or the JWKS kid's). */
  revoke(tenant: string, keyId: string, after: number, time: string, by: string) {
    return toResult(async () => {
      const log = this.log(tenant);
      const legacy = keyNameOf(this.env);
      const ids = (k: HistoryKey) => [k.keyId, toHex(noteKeyId(legacy, k.alg, k.publicKey)), toHex(noteKeyId(log.origin, k.alg, k.publicKey))];
      const key = log.keys.history.keys.find((k) => ids(k).includes(keyId.toLowerCase()));
      if (!key) throw new ConfigError('ERR_CONFIG', `no key ${keyId} in the history of ${log.origin} (GET /v1/keys lists it)`);
      if (log.keys.history.current.keys.some((k) => sameKey(k, key))) throw new ConfigError('ERR_CONFIG', `key ${keyId} still signs ${log.origin}: hand the log over to new secrets first (docs/workers-keys.md), then revoke it`);
      if (!Number.isSafeInteger(after) || after < 0) throw new ConfigError('ERR_CONFIG', 'after must be a tree size (a non-negative integer)');
      const a = await log.appender.append(revokeEntryBody(time, key, after, by));
      this.committed(log);
      log.keys = tenantKeys(log.store, log.origin, log.keys.history.current.keys, legacy);
      const now = log.keys.history.keys;
      return { key: now.find((k) => k.name === key.name && sameKey(k, key)) ?? key, seq: a.seq, keys: now };
    });
  }

  append(tenant: string, body: EntryBody, attachments: Attachment[] = []): Promise<RpcResult<Appended>> {
    return toResult(async () => {
      const log = this.log(tenant);
      const appended = await log.port.append(body, attachments);
      this.committed(log);
      return appended;
    });
  }

  size(tenant: string) {
    return toResult(() => this.log(tenant).port.size());
  }

  entry(tenant: string, seq: number) {
    return toResult(() => this.log(tenant).port.entry(seq));
  }

  latestCheckpoint(tenant: string) {
    return toResult(() => this.served(tenant).latestCheckpoint());
  }

  checkpointAt(tenant: string, size: number) {
    return toResult(() => this.served(tenant).checkpointAt(size));
  }

  inclusionProof(tenant: string, seq: number, size: number) {
    return toResult(() => this.log(tenant).port.inclusionProof(seq, size));
  }

  consistencyProof(tenant: string, size1: number, size2: number) {
    return toResult(() => this.log(tenant).port.consistencyProof(size1, size2));
  }

  payload(tenant: string, digest: Digest) {
    return toResult(() => this.log(tenant).port.payload(digest));
  }

  erasePayload(tenant: string, digest: Digest) {
    return toResult(() => this.log(tenant).port.erasePayload(digest));
  }

  document(tenant: string, digest: Digest) {
    return toResult(() => this.log(tenant).port.document(digest));
  }

  putDocument(tenant: string, kind: DocumentKind, digest: Digest, bytes: Uint8Array) {
    return toResult(() => this.log(tenant).port.putDocument(kind, digest, bytes));
  }

  entries(tenant: string, from: number, to: number) {
    return toResult(() => {
      const { store } = this.log(tenant);
      const page: { seq: number; bytes: Uint8Array }[] = [];
      let bytes = 0;
      for (const e of store.entries(from, Math.min(to, from + ENTRY_PAGE))) {
        page.push({ seq: e.seq, bytes: e.bytes });
        bytes += e.bytes.length;
        if (bytes >= PAGE_BYTES) break;
      }
      return page;
    });
  }

  nodes(tenant: string, level: number, lo: number, hi: number) {
    return toResult(() => {
      if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || hi - lo >= 256) throw new InputError('ERR_INPUT', 'at most 256 nodes per read');
      return this.log(tenant).port.nodes!(level, lo, hi);
    });
  }

  witnessed(tenant: string) {
    return toResult(async () => {
      const log = this.log(tenant);
      return log.witness && log.witness.cosigs.newestCosigned(log.origin, log.origin);
    });
  }

  archiveStatus(tenant: string) {
    return toResult(() => this.log(tenant).archive?.record.status());
  }

  checkArchive(tenant: string) {
    return toResult(async () => {
      const log = this.log(tenant);
      if (!log.archive) throw new ConfigError('ERR_CONFIG', 'no tile archive: bind an R2 bucket as VOUCH_ARCHIVE (docs/workers-archive.md)');
      return checkR2Archive({ tenant, bucket: log.archive.bucket, storage: log.store, origin: log.origin, verifiers: log.keys.verifiers });
    });
  }

  witnessProgress(tenant: string) {
    return toResult(() => {
      const log = this.log(tenant);
      return log.witness ? log.witness.record.progress(log.origin) : [];
    });
  }
}
