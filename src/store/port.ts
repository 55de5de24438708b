// The Store port: everything the log core needs from storage, for one log. SQLite on Node and a
// Durable Object on Workers implement it; both are synchronous (their SQL APIs are), and the
// same conformance suite (test/store/conformance.ts) runs against each.
import type { Digest } from '../canonical/index.js';
import type { LogStorage, StoredEntry } from '../log/storage.js';

export type { Batch, EntryBatch, EntryCopies, LogStorage, StoredCheckpoint, StoredEntry } from '../log/storage.js';

export type DocumentKind = 'chain' | 'policy';

export interface LogStore extends LogStorage {
  /** Payloads (inputs, intents, executed parameters) by digest, erasable. */
  putPayload(digest: Digest, bytes: Uint8Array): void;
  payload(digest: Digest): Uint8Array | undefined;
  erasePayload(digest: Digest): boolean;
  /**
   * Payload retention (audit/retention.ts), optional: up to `limit` payloads no entry at or after
   * `beforeSeq` names, and the erase that deletes one only if that is still so when it runs.
   */
  expiredPayloads?(beforeSeq: number, limit: number): Digest[];
  eraseExpiredPayload?(digest: Digest, beforeSeq: number): boolean;

  /** Chain configs and policy sets by digest (never erased: replay needs them). */
  putDocument(kind: DocumentKind, digest: Digest, bytes: Uint8Array): void;
  document(digest: Digest): { kind: DocumentKind; bytes: Uint8Array } | undefined;

  /** The newest `policy` entry (the rules in force come from it, never from meta); optional: else found by a scan. */
  latestPolicyEntry?(): StoredEntry | undefined;

  /** The `pin` entries (tool definitions pinned, changed, approved), in seq order; optional: else found by a scan. */
  pinEntries?(): Iterable<{ seq: number; bytes: Uint8Array }>;

  /** The `key` entries (key rotations and revocations), in seq order; optional: else found by a scan. */
  keyEntries?(): Iterable<{ seq: number; bytes: Uint8Array }>;

  /** Small key/value facts about the log, each set once (origin; legacy policy pins are read only). */
  meta(key: string): string | undefined;
  setMeta(key: string, value: string): void;

  close(): void;
}
