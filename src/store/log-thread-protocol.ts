// The log writer thread's message protocol (NODE-ONLY), defined once and imported by both sides
// (log-thread.ts on the main thread, log-thread-host.ts in the writer): named fields, no tuples.
// Every append is answered: `durable` (only when asked for) once its batch is committed, then
// `signed` once a signed checkpoint covers it, or `failed` at either stage with a coded error.
import type { SignatureAlg } from '../crypto/index.js';
import { StoreError, VouchError, type ErrorCode } from '../errors.js';
import type { Attachment, BatchStats, EntryBody, Hash, Pacing } from '../log/index.js';

export interface WireError {
  code: ErrorCode;
  message: string;
}

/** What the main thread hands the writer at start (workerData). */
export interface LogThreadData {
  keyName: string;
  mldsaSeed: Uint8Array;
  /** The seed's public key, derived by the parent: the writer starts without waiting for its signing thread. */
  mldsaPublicKey?: Uint8Array;
  ed25519Seed?: Uint8Array;
  /** The ML-DSA-44 key (timestamped tlog-cosignature lines, c2sp.org/tlog-checkpoint). */
  mldsa44Seed?: Uint8Array;
  maxBatch?: number;
  /** Pacing overrides (log/pacing.ts), every one of them; absent: the defaults every appender uses. */
  pacing?: Partial<Pacing>;
  auditPage?: number;
  auditDelayMs?: number;
  /** Tile archive root (archive-read.ts): the audit reads each log's sealed part from `<root>/<tenant>/`. */
  archiveRoot?: string;
}

export interface DurableItem {
  id: number;
  seq: number;
  bytes: Uint8Array;
  leaf: Hash;
}

export interface SignedItem extends Omit<DurableItem, 'bytes' | 'leaf'> {
  /** Absent for an append answered durable first: that answer carried them (2 KB an entry less to copy). */
  bytes?: Uint8Array;
  leaf?: Hash;
  /** Index into the message's `notes`: the checkpoint that covers it. */
  note: number;
  size: number;
  proof: Hash[];
}

/** The writer's answers for one turn of its loop, in one message. */
export interface Answers {
  durable: DurableItem[];
  signed: SignedItem[];
  /** Checkpoint notes the signed items name by index (a batch shares one). */
  notes: string[];
  failed: { id: number; error: WireError }[];
}

export type HostMessage =
  /**
   * The writer's signers are made; `mldsaPublicKey` is the one it derived from its seed, and
   * `mldsa44PublicKey` its ML-DSA-44 key's (the parent need not derive it: about 55 ms of start-up).
   */
  | { t: 'ready'; mldsaPublicKey: Uint8Array; mldsa44PublicKey?: Uint8Array }
  | { t: 'opened'; tenant: string }
  | { t: 'openFailed'; tenant: string; error: WireError }
  | ({ t: 'answers' } & Answers)
  | { t: 'batch'; tenant: string; stats: BatchStats }
  | { t: 'audit'; tenant: string; checked: number; total: number; complete: boolean; error?: WireError }
  | { t: 'checkpointed'; id: number; size: number; note: string }
  | { t: 'checkpointFailed'; id: number; error: WireError }
  /** One tenant's log closed (`closeLog`): everything appended before it is committed and signed. */
  | { t: 'logClosed'; id: number; error?: WireError }
  | { t: 'closed' };

/** A log key with the sizes it signs (key history, issue 18): the writer checks the newest checkpoint with these. */
export interface WireKey {
  name: string;
  alg: SignatureAlg;
  publicKey: Uint8Array;
  window?: { from: number; to?: number; revokedAfter?: number };
}

/** The incoming keys of a rotation: the writer signs the handover with the current keys, then with these. */
export interface RotateKeys {
  keyName: string;
  mldsaSeed: Uint8Array;
  ed25519Seed?: Uint8Array;
  mldsa44Seed?: Uint8Array;
}

export type MainMessage =
  /** The first message to a thread started before its keys were read (prestartLogThread): what workerData holds otherwise. */
  | { t: 'init'; data: LogThreadData }
  /** `keyName`, `keys`: the log's signing name and key history (absent: the thread's keys under its key name). */
  | { t: 'open'; tenant: string; path: string; origin: string; keyName?: string; keys?: WireKey[] }
  /** Answered like an append: the rotation entry, signed by the outgoing keys. */
  | { t: 'rotate'; tenant: string; id: number; body: EntryBody; keys: RotateKeys }
  /** `durable`: answer once committed as well as once signed; with `follow: false`, once committed only (no proof is made). */
  | { t: 'append'; tenant: string; id: number; body: EntryBody; attachments: Attachment[]; durable: boolean; follow?: false }
  | { t: 'checkpoint'; tenant: string; id: number }
  /** Appends of one turn of the main thread's loop, in order: one message instead of one each. */
  | { t: 'appends'; appends: Extract<MainMessage, { t: 'append' }>[] }
  /** Close one tenant's log (idle, many tenants): after what was appended before it is committed and signed. */
  | { t: 'closeLog'; tenant: string; id: number }
  | { t: 'close' };

export function toWireError(e: unknown): WireError {
  return e instanceof VouchError ? { code: e.code, message: e.message } : { code: 'ERR_STORE', message: `append failed: ${(e as Error)?.message ?? String(e)}` };
}

export function fromWireError(w: WireError): VouchError {
  return w.code.startsWith('ERR_STORE') ? new StoreError(w.code, w.message) : new VouchError(w.code, w.message);
}
