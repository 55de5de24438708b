// One tenant's log as the service sees it: async reads and proofs over a LogStore, appends
// through its group-commit Appender. Portable: Node wraps SQLite with it, and the Durable
// Object wraps its own SQL storage the same way before answering the Worker.
import type { Digest } from '../canonical/index.js';
import { consistencyProof, inclusionProof, type Hash, type LogAppender, type LogWriter, type StoredCheckpoint } from '../log/index.js';
import type { DocumentKind, LogStore } from './port.js';

export interface LogPort extends LogWriter {
  origin: string;
  size(): Promise<number>;
  entry(seq: number): Promise<Uint8Array | undefined>;
  latestCheckpoint(): Promise<StoredCheckpoint | undefined>;
  checkpointAt(size: number): Promise<StoredCheckpoint | undefined>;
  inclusionProof(seq: number, size: number): Promise<Hash[]>;
  consistencyProof(size1: number, size2: number): Promise<Hash[]>;
  payload(digest: Digest): Promise<Uint8Array | undefined>;
  erasePayload(digest: Digest): Promise<boolean>;
  /** Payload retention (LogStore.expiredPayloads): absent on ports whose store cannot. */
  expiredPayloads?(beforeSeq: number, limit: number): Promise<Digest[]>;
  eraseExpiredPayload?(digest: Digest, beforeSeq: number): Promise<boolean>;
  document(digest: Digest): Promise<{ kind: DocumentKind; bytes: Uint8Array } | undefined>;
  putDocument(kind: DocumentKind, digest: Digest, bytes: Uint8Array): Promise<void>;
  /** Entries [from, to) as exact bytes, streamed. */
  entries(from: number, to: number): AsyncIterable<{ seq: number; bytes: Uint8Array }>;
  /** Stored complete nodes of one tree level, lo..hi inclusive (tlog-tiles: log/tiles.ts); absent on ports that cannot. */
  nodes?(level: number, lo: number, hi: number): Promise<Hash[]>;
  /**
   * The newest checkpoint a witness cosigned (witness/attach.ts): present only when witnessing is
   * configured, so absent means no witness, undefined means none cosigned yet.
   */
  witnessed?(): Promise<{ size: number; witnesses: string[]; ts: number } | undefined>;
}

const ENTRY_PAGE = 512;

export function logPortOf(origin: string, store: LogStore, appender: LogAppender): LogPort {
  const port: LogPort = {
    origin,
    append: (body, attachments) => appender.append(body, attachments),
    appendDurable: appender.appendDurable && ((body, attachments, opts) => appender.appendDurable!(body, attachments, opts)),
    size: async () => appender.size,
    entry: async (seq) => store.entry(seq)?.bytes,
    latestCheckpoint: async () => store.latestCheckpoint(),
    checkpointAt: async (size) => store.checkpointAt(size),
    inclusionProof: async (seq, size) => inclusionProof(seq, size, store),
    consistencyProof: async (a, b) => consistencyProof(a, b, store),
    payload: async (d) => store.payload(d),
    erasePayload: async (d) => store.erasePayload(d),
    document: async (d) => store.document(d),
    putDocument: async (k, d, b) => store.putDocument(k, d, b),
    nodes: async (level, lo, hi) => {
      if (store.nodeRange) return [...store.nodeRange(level, lo, hi)].map((n) => n.hash);
      const out: Hash[] = [];
      for (let i = lo; i <= hi; i++) out.push(store.node(level, i));
      return out;
    },
    // Pages read synchronously: an SQLite iterator held open across awaits would make the
    // appender's own writes fail ("connection is busy") while a reader streams.
    async *entries(from, to) {
      for (let start = from; start < to; start += ENTRY_PAGE) {
        const page = [...store.entries(start, Math.min(to, start + ENTRY_PAGE))];
        for (const e of page) yield { seq: e.seq, bytes: e.bytes };
        if (page.length === 0) return;
      }
    },
  };
  if (store.expiredPayloads && store.eraseExpiredPayload) {
    port.expiredPayloads = async (beforeSeq, limit) => store.expiredPayloads!(beforeSeq, limit);
    port.eraseExpiredPayload = async (d, beforeSeq) => store.eraseExpiredPayload!(d, beforeSeq);
  }
  return port;
}
