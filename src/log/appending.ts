// What a caller of a log's appender sees (the contract), apart from how appender.ts makes it true:
// an entry is durable once its batch commits (`Durable`) and signed once a checkpoint covers it
// (`Appended`). The log thread's proxy (store/log-thread.ts) and every log port implement
// `LogAppender` too, so they depend on this and not on the Appender.
import { VouchError } from '../errors.js';
import type { EntryBody } from './entry.js';
import type { Hash } from './merkle.js';
import type { Attachment } from './storage.js';

export interface Appended {
  seq: number;
  bytes: Uint8Array;
  leaf: Hash;
  /** Tree size of the checkpoint that covers this entry. */
  size: number;
  proof: Hash[];
  /** The signed checkpoint note covering this entry. */
  checkpoint: string;
}

/**
 * Options of `appendDurable`. `follow: false`: the caller will not read `signed` (an HTTP answer
 * that names where the receipt will be instead): no inclusion proof is made for the entry when its
 * checkpoint is signed, and `signed` rejects at once with ERR_NOT_FOUND. The entry is signed and
 * counted for pacing and the coverage bound as any other.
 */
export interface DurableOptions {
  follow?: boolean;
}

/** What `signed` of an entry appended with `follow: false` rejects with (shared, already handled). */
export const NOT_FOLLOWED: Promise<Appended> = Promise.reject(new VouchError('ERR_NOT_FOUND', 'this append did not follow its receipt: read it from the log (GET /v1/entries/:seq) once a signed checkpoint covers the entry'));
NOT_FOLLOWED.catch(() => undefined);

/** A committed (fsync'd) entry; `signed` resolves once a signed checkpoint covers it. */
export interface Durable {
  seq: number;
  bytes: Uint8Array;
  leaf: Hash;
  signed: Promise<Appended>;
}

/** What a service needs of a log's appender: this Appender, or the log thread's proxy of one (store/log-thread.ts). */
export interface LogAppender {
  readonly origin: string;
  /** Entries committed. */
  readonly size: number;
  /** Append one entry and wait until a signed checkpoint covers it. */
  append(body: EntryBody, attachments?: Attachment[]): Promise<Appended>;
  /** Append one entry and wait only until it is durable (absent: use `append`). */
  appendDurable?(body: EntryBody, attachments?: Attachment[], opts?: DurableOptions): Promise<Durable>;
  /** Sign a fresh checkpoint over everything committed (after what is queued): shutdown and idle checkpoints. */
  checkpointNow?(): Promise<SignedTree>;
  /** Whether it can sign now, and how far the background audit of its stored leaves has got. */
  health?(): LogHealth;
  close(): Promise<void>;
}

export interface LogHealth {
  /** Why it refuses to sign (every append fails with this). */
  halted?: VouchError;
  audit?: { checked: number; total: number; complete: boolean };
}

export interface SignedTree {
  size: number;
  note: string;
}

/** One committed batch, reported once a signed checkpoint covers it. */
export interface BatchStats {
  entries: number;
  /** Tree size after the batch. */
  size: number;
  /** How long the covering checkpoint took to sign. */
  signMs?: number;
  /** From the batch's commit to the covering checkpoint's commit: the coverage delay of its entries. */
  coverMs?: number;
}
