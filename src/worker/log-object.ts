// VouchLog: the Durable Object that is the single writer of one tenant's log. It holds the
// SQLite store and the group-commit Appender (signing with the secret set the log's key history
// names, open-log.ts), hands the log over to new secrets on activation (a key rotation, as
// Node's: log-key-changes.ts), and answers the LogPort operations over RPC (log-object-rpc.ts).
// Every method returns an RpcResult. Its one alarm runs witnessing (VOUCH_WITNESSES), payload
// retention (VOUCH_RETENTION) and the R2 tile archive (VOUCH_ARCHIVE): log-alarm.ts.
import { DurableObject } from 'cloudflare:workers';
import type { Digest } from '../canonical/index.js';
import { InputError, ConfigError, StoreError } from '../errors.js';
import { recordPolicyDocuments } from '../decide/index.js';
import type { Appended, Attachment, EntryBody, HistoryKey } from '../log/index.js';
import type { LogPort } from '../store/log-port.js';
import type { DocumentKind } from '../store/port.js';
import { keyNameOf, type WorkerEnv } from './env.js';
import { toResult, type RpcResult } from './rpc-result.js';
import { checkR2Archive } from './archiving.js';
import { ENTRY_PAGE, type Activation, type LogObjectRpc } from './log-object-rpc.js';
import { openTenantLog, type OpenLog } from './open-log.js';
import { LogAlarm } from './log-alarm.js';
import { handOver, revokeKey } from './log-key-changes.js';

const PAGE_BYTES = 4 * 1024 * 1024;

export class VouchLog extends DurableObject<WorkerEnv> implements LogObjectRpc {
  private open: OpenLog | undefined;
  /** Activations run one after another: the meta check and the append must not interleave. */
  private activating: Promise<unknown> = Promise.resolve();
  /** Witness rounds, retention passes and archive passes, all from the object's one alarm. */
  private jobs = new LogAlarm(this.ctx.storage);

  /** The tenant's log, opened on first use: migrations, origin check, key history checked and the tree recomputed before any signing. */
  private log(tenant: string): OpenLog {
    if (this.open) {
      if (this.open.tenant !== tenant) throw new StoreError('ERR_STORE_INCONSISTENT', `this log object belongs to tenant ${this.open.tenant}, not ${tenant}`);
      return this.open;
    }
    const log = openTenantLog(this.ctx.storage, this.env, tenant);
    this.jobs.opening(log);
    this.open = log;
    this.jobs.opened(log);
    return this.open;
  }

  /** The port RPC reads go through: with witnessing, checkpoints carry their cosignatures (as Node's served port). */
  private served(tenant: string): LogPort {
    const log = this.log(tenant);
    return log.witness?.served ?? log.port;
  }

  /** A commit's follow-ups, all from the alarm: the witness round and the archive pass. */
  private committed(log: OpenLog): void {
    this.jobs.committed(log);
  }

  /** The alarm: the jobs whose time has come (log-alarm.ts). */
  async alarm(): Promise<void> {
    await this.jobs.run(this.open?.tenant, (tenant) => this.log(tenant));
  }

  activate(tenant: string, a: Activation): Promise<RpcResult<{ origin: string; appended: boolean; keys: HistoryKey[] }>> {
    const run = this.activating.then(() =>
      toResult(async () => {
        const log = this.log(tenant);
        // New secrets with the old ones as _PREVIOUS: hand over before the policy entry (time from the Worker: the object reads no clock).
        if (log.handoverTo) await handOver(log, a.time, keyNameOf(this.env));
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
      return revokeKey(log, { keyId, after, time, by }, keyNameOf(this.env), () => this.committed(log));
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
