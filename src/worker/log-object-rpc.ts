// The tenant log object's RPC surface as the Worker's stub sees it (log-object.ts implements it):
// every method returns an RpcResult.
import type { Digest } from '../canonical/index.js';
import type { Appended, Attachment, EntryBody, Hash, HistoryKey, StoredCheckpoint } from '../log/index.js';
import type { DocumentKind } from '../store/port.js';
import type { NewestCosigned } from '../witness/cosig-store.js';
import type { RpcResult } from './rpc-result.js';
import type { WitnessProgress } from './witnessing.js';
import type { ArchiveCheck, ArchiveStatus } from './archiving.js';

/** Entries per `entries` page: bounded so one RPC message stays far below the runtime's limit. */
export const ENTRY_PAGE = 256;

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

/** Who a handover entry records as having asked for it (`by`): the operator, through the secrets. */
export const HANDOVER_BY = 'operator:secrets';

/** The object's RPC surface, as the Worker's stub sees it. */
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
