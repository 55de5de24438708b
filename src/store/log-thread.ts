// The log writer thread (NODE-ONLY). The service's appenders (entry encoding, leaf hashes, the
// Merkle tree, group commit with its fsync, checkpoint signing) run in one worker thread with
// their own SQLite write connections, so the event loop that answers HTTP and runs the chain
// spends no time on them (measured: about half of its time per decision before). The main thread
// keeps a connection of its own for reads; WAL lets it read while the writer commits.
// Protocol (log-thread-protocol.ts, both sides): open, append, checkpoint, close; every append is
// answered once durable (when asked), once signed, or with a coded error. If the thread dies,
// every owed and every later append fails with ERR_STORE: nothing is answered as appended that was not.
import { Worker } from 'node:worker_threads';
import { StoreError, type VouchError } from '../errors.js';
import { NOT_FOLLOWED, type Appended, type Attachment, type AuditProgress, type BatchStats, type Durable, type EntryBody, type LogAppender, type LogHealth, type NoteVerifier, type Pacing, type SignedTree } from '../log/index.js';
import { hostUrl, takePrestarted } from './log-thread-start.js';
import { fromWireError, type Answers, type HostMessage, type LogThreadData, type MainMessage, type RotateKeys, type WireKey } from './log-thread-protocol.js';

export interface LogThreadOptions {
  keyName: string;
  mldsaSeed: Uint8Array;
  /** The seed's public key (the key files'): the writer then starts without waiting for its signing thread. */
  mldsaPublicKey?: Uint8Array;
  ed25519Seed?: Uint8Array;
  mldsa44Seed?: Uint8Array;
  maxBatch?: number;
  /** Pacing overrides (log/pacing.ts: intervals, signShare, the coverage bound, retry): absent, the one default policy of every appender. */
  pacing?: Partial<Pacing>;
  onBatch?: (tenant: string, stats: BatchStats) => void;
  /** Entries per page of the background audit (default 2048). */
  auditPage?: number;
  /** Milliseconds after a log opens before its audit starts (default DEFAULT_AUDIT_DELAY_MS). */
  auditDelayMs?: number;
  /** Tile archive root: the audit reads sealed entries and tiles from it (archive-read.ts). */
  archiveRoot?: string;
  /** Progress of each log's background audit of its stored leaves (leaf-audit.ts). */
  onAudit?: (tenant: string, progress: Omit<AuditProgress, 'error'> & { error?: VouchError }) => void;
  /** The host script; defaults to log-thread-worker.mjs next to this file. */
  workerUrl?: URL;
}

export interface ThreadedLog extends LogAppender {
  /** Resolves once the writer has opened the log and checked it against its newest signed checkpoint (open-check.ts). */
  ready: Promise<void>;
  checkpointNow(): Promise<SignedTree>;
  health(): LogHealth;
  /** Key rotation (key-history.ts): the writer appends `body` signed by the outgoing keys, then signs with `keys`. */
  rotateKeys(body: EntryBody, keys: RotateKeys): Promise<Appended>;
}

/** A log's key history for the writer (WireKey). */
export function wireKeys(verifiers: NoteVerifier[]): WireKey[] {
  return verifiers.map((v) => ({ name: v.name, alg: v.alg, publicKey: v.publicKey, ...(v.window ? { window: v.window } : {}) }));
}

export interface LogThread {
  /** The ML-DSA-65 public key the writer derived from its seed (and signs with). */
  mldsaPublicKey: Uint8Array;
  /** Its ML-DSA-44 public key, when it was given that seed. */
  mldsa44PublicKey?: Uint8Array;
  /** Hand the tenant's log to the writer; `committed` is its size as this thread reads it now. */
  open(tenant: string, path: string, origin: string, committed: number, keys?: { keyName: string; keys: WireKey[] }): ThreadedLog;
  close(): Promise<void>;
}

export { prestartLogThread } from './log-thread-start.js';
export { toWireError, type HostMessage, type MainMessage, type WireError } from './log-thread-protocol.js';

interface Owed {
  /** Set until the durable answer came (appendDurable only). */
  durable?: { resolve: (d: Durable) => void; reject: (e: unknown) => void };
  /** What the durable answer carried: its signed answer then leaves them out. */
  entry?: { bytes: Uint8Array; leaf: Uint8Array };
  signed: Promise<Appended>;
  resolve: (a: Appended) => void;
  reject: (e: unknown) => void;
  log: { size: number };
  /** Appended with `follow: false`: the durable answer is the last; `signed` is NOT_FOLLOWED. */
  unfollowed?: boolean;
}

function owe(log: { size: number }, unfollowed: boolean): Owed {
  const o = { log } as Owed;
  if (unfollowed) {
    // Nothing will settle it: no promise is made for it.
    o.unfollowed = true;
    o.signed = NOT_FOLLOWED;
    o.resolve = o.reject = () => undefined;
    return o;
  }
  o.signed = new Promise<Appended>((resolve, reject) => {
    o.resolve = resolve;
    o.reject = reject;
  });
  o.signed.catch(() => undefined); // a durable-only caller may never look
  return o;
}

export async function startLogThread(opts: LogThreadOptions): Promise<LogThread> {
  const data: LogThreadData = { keyName: opts.keyName, mldsaSeed: opts.mldsaSeed.slice(), mldsaPublicKey: opts.mldsaPublicKey?.slice(), ed25519Seed: opts.ed25519Seed?.slice(), mldsa44Seed: opts.mldsa44Seed?.slice(), maxBatch: opts.maxBatch, pacing: opts.pacing, auditPage: opts.auditPage, auditDelayMs: opts.auditDelayMs, archiveRoot: opts.archiveRoot };
  const early = opts.workerUrl ? undefined : takePrestarted();
  const worker = early ?? new Worker(opts.workerUrl ?? hostUrl(), { workerData: data });
  if (early) worker.postMessage({ t: 'init', data } satisfies MainMessage);
  data.mldsaSeed.fill(0); // copied into the thread (workerData or the message)
  data.ed25519Seed?.fill(0);
  data.mldsa44Seed?.fill(0);
  const owed = new Map<number, Owed>();
  const opening = new Map<string, { resolve: () => void; reject: (e: unknown) => void }>();
  const signing = new Map<number, { resolve: (s: SignedTree) => void; reject: (e: unknown) => void }>();
  const closingLogs = new Map<number, { resolve: () => void; reject: (e: unknown) => void }>();
  const health = new Map<string, LogHealth>();
  let nextId = 1;
  let failure: StoreError | undefined;
  let closing: Promise<void> | undefined;
  let onClosed: (() => void) | undefined;

  const failAll = (why: string, cause?: unknown): void => {
    failure ??= new StoreError('ERR_STORE', why, { cause });
    for (const o of owed.values()) (o.durable ?? o).reject(failure);
    owed.clear();
    for (const o of opening.values()) o.reject(failure);
    opening.clear();
    for (const o of signing.values()) o.reject(failure);
    signing.clear();
    for (const o of closingLogs.values()) o.reject(failure);
    closingLogs.clear();
  };

  let mldsaPublicKey: Uint8Array | undefined;
  let mldsa44PublicKey: Uint8Array | undefined;
  await new Promise<void>((resolve, reject) => {
    worker.on('message', (m: HostMessage) => {
      switch (m.t) {
        case 'ready':
          mldsaPublicKey = m.mldsaPublicKey;
          mldsa44PublicKey = m.mldsa44PublicKey;
          return resolve();
        case 'opened':
          opening.get(m.tenant)?.resolve();
          return void opening.delete(m.tenant);
        case 'openFailed':
          opening.get(m.tenant)?.reject(fromWireError(m.error));
          return void opening.delete(m.tenant);
        case 'answers':
          return settle(m);
        case 'batch':
          return opts.onBatch?.(m.tenant, m.stats);
        case 'audit': {
          const error = m.error && fromWireError(m.error);
          const h = health.get(m.tenant) ?? {};
          h.audit = { checked: m.checked, total: m.total, complete: m.complete };
          if (error) h.halted ??= error;
          health.set(m.tenant, h);
          return opts.onAudit?.(m.tenant, { checked: m.checked, total: m.total, complete: m.complete, error });
        }
        case 'checkpointed':
          signing.get(m.id)?.resolve({ size: m.size, note: m.note });
          return void signing.delete(m.id);
        case 'checkpointFailed':
          signing.get(m.id)?.reject(fromWireError(m.error));
          return void signing.delete(m.id);
        case 'logClosed': {
          const c = closingLogs.get(m.id);
          closingLogs.delete(m.id);
          return void (m.error ? c?.reject(fromWireError(m.error)) : c?.resolve());
        }
        case 'closed':
          return onClosed?.();
      }
    });
    worker.on('error', (e) => {
      failAll(`log thread crashed: ${e.message}`, e);
      reject(failure);
    });
    worker.on('exit', (code) => {
      failAll(closing ? 'log is closed' : `log thread exited with code ${code}`);
      reject(failure);
    });
  });

  // Appends go out once per turn of the loop, as the thread's answers come back: at 64 callers a
  // turn holds many, and a message each cost more CPU on both sides than the entries' encoding.
  // Anything else flushes them first, so the thread sees every message in the order posted.
  let appends: Extract<MainMessage, { t: 'append' }>[] = [];
  const flush = (): void => {
    if (appends.length === 0) return;
    const batch = appends;
    appends = [];
    try {
      worker.postMessage(batch.length === 1 ? batch[0] : ({ t: 'appends', appends: batch } satisfies MainMessage));
    } catch {
      // One of them cannot be sent (a value that does not clone): the others go one by one, and
      // the one that fails fails alone, as it did when each append was sent by its caller.
      for (const m of batch) {
        try {
          worker.postMessage(m);
        } catch (e) {
          refuse(m.id, new StoreError('ERR_STORE', `append failed: ${(e as Error)?.message ?? String(e)}`, { cause: e }));
        }
      }
    }
  };
  const refuse = (id: number, e: StoreError): void => {
    const o = owed.get(id);
    if (!o) return;
    owed.delete(id);
    o.durable?.reject(e);
    o.durable = undefined;
    o.reject(e);
  };
  const post = (m: MainMessage): void => {
    if (m.t === 'append') {
      if (appends.push(m) === 1) setImmediate(flush);
      return;
    }
    flush();
    worker.postMessage(m);
  };

  function settle(m: Answers): void {
    for (const d of m.durable) {
      const o = owed.get(d.id);
      if (!o?.durable) continue;
      if (d.seq + 1 > o.log.size) o.log.size = d.seq + 1;
      o.durable.resolve({ seq: d.seq, bytes: d.bytes, leaf: d.leaf, signed: o.signed });
      // No signed answer follows an unfollowed append (the thread sends none): nothing more is owed.
      if (o.unfollowed) {
        owed.delete(d.id);
        continue;
      }
      o.durable = undefined;
      o.entry = { bytes: d.bytes, leaf: d.leaf };
    }
    for (const a of m.signed) {
      const o = owed.get(a.id);
      if (!o) continue;
      owed.delete(a.id);
      if (a.size > o.log.size) o.log.size = a.size;
      const bytes = a.bytes ?? o.entry?.bytes;
      const leaf = a.leaf ?? o.entry?.leaf;
      if (!bytes || !leaf) {
        (o.durable ?? o).reject(new StoreError('ERR_STORE', 'log thread answered signed without the entry'));
        continue;
      }
      const appended = { seq: a.seq, bytes, leaf, size: a.size, proof: a.proof, checkpoint: m.notes[a.note] };
      o.durable?.resolve({ seq: a.seq, bytes, leaf, signed: o.signed });
      o.resolve(appended);
    }
    for (const f of m.failed) {
      const o = owed.get(f.id);
      if (!o) continue;
      owed.delete(f.id);
      (o.durable ?? o).reject(fromWireError(f.error));
    }
  }

  const send = (tenant: string, log: { size: number; closed?: boolean }, body: EntryBody, attachments: Attachment[], durable: boolean, rotate?: RotateKeys, follow?: boolean): Owed | Error => {
    if (closing || log.closed) return new StoreError('ERR_STORE_CLOSED', 'log is closed');
    if (failure) return failure;
    const halted = health.get(tenant)?.halted;
    if (halted) return halted;
    const id = nextId++;
    const unfollowed = durable && follow === false;
    const o = owe(log, unfollowed);
    owed.set(id, o);
    post(rotate ? { t: 'rotate', tenant, id, body, keys: rotate } : unfollowed ? { t: 'append', tenant, id, body, attachments, durable, follow: false } : { t: 'append', tenant, id, body, attachments, durable });
    return o;
  };

  return {
    mldsaPublicKey: mldsaPublicKey!,
    mldsa44PublicKey,
    open(tenant, path, origin, committed, keys) {
      const log: { size: number; closed?: boolean } = { size: committed };
      let closed: Promise<void> | undefined;
      const ready = new Promise<void>((resolve, reject) => {
        if (failure) return reject(failure);
        opening.set(tenant, { resolve, reject });
        post({ t: 'open', tenant, path, origin, ...(keys ? { keyName: keys.keyName, keys: keys.keys } : {}) });
      });
      ready.catch(() => undefined); // appends report the same failure
      return {
        origin,
        ready,
        get size() {
          return log.size;
        },
        append(body, attachments = []) {
          const o = send(tenant, log, body, attachments, false);
          return o instanceof Error ? Promise.reject(o) : o.signed;
        },
        rotateKeys(body, next) {
          const o = send(tenant, log, body, [], false, next);
          return o instanceof Error ? Promise.reject(o) : o.signed;
        },
        appendDurable(body, attachments = [], opts) {
          return new Promise<Durable>((resolve, reject) => {
            const o = send(tenant, log, body, attachments, true, undefined, opts?.follow);
            if (o instanceof Error) return reject(o);
            o.durable = { resolve, reject };
          });
        },
        checkpointNow() {
          if (failure) return Promise.reject(failure);
          if (log.closed) return Promise.reject(new StoreError('ERR_STORE_CLOSED', 'log is closed'));
          return new Promise<SignedTree>((resolve, reject) => {
            const id = nextId++;
            signing.set(id, { resolve, reject });
            post({ t: 'checkpoint', tenant, id });
          });
        },
        health: () => ({ ...health.get(tenant), ...(failure ? { halted: failure } : {}) }),
        // One tenant's log (idle, many tenants): later appends are refused here; the writer finishes
        // the earlier ones (committed and signed) and closes its connection. A thread closing, or
        // gone, closes every log itself.
        close: () =>
          (closed ??= (async () => {
            log.closed = true;
            if (closing || failure) return;
            await ready.catch(() => undefined);
            await new Promise<void>((resolve, reject) => {
              const id = nextId++;
              closingLogs.set(id, { resolve, reject });
              post({ t: 'closeLog', tenant, id });
            });
          })()),
      };
    },
    close() {
      return (closing ??= (async () => {
        if (!failure) {
          // The host finishes what is queued and in flight, closes its connections and the signer.
          await new Promise<void>((resolve) => {
            onClosed = resolve;
            worker.once('exit', () => resolve());
            post({ t: 'close' });
          });
        }
        await worker.terminate();
      })());
    },
  };
}
