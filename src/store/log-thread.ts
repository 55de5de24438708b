// The log writer thread (NODE-ONLY). The service's appenders (entry encoding, leaf hashes, the
// Merkle tree, group commit with its fsync, checkpoint signing) run in one worker thread with
// their own SQLite write connections, so the event loop that answers HTTP and runs the chain
// spends no time on them (measured: about half of its time per decision before). The main thread
// keeps a connection of its own for reads; WAL lets it read while the writer commits.
// Protocol (log-thread-host.ts answers): open, append, close; every append is answered once,
// after its batch is durable and signed, or with a coded error. If the thread dies, every owed
// and every later append fails with ERR_STORE: nothing is answered as appended that was not.
import { Worker } from 'node:worker_threads';
import { StoreError, VouchError, type ErrorCode } from '../errors.js';
import type { Appended, Attachment, AuditProgress, BatchStats, EntryBody, LogAppender, LogHealth, SignedTree } from '../log/index.js';

export interface LogThreadOptions {
  keyName: string;
  mldsaSeed: Uint8Array;
  ed25519Seed?: Uint8Array;
  maxBatch?: number;
  /** The appenders' `minIntervalMs` (default 25: measured best for throughput at 64 callers). */
  minIntervalMs?: number;
  onBatch?: (tenant: string, stats: BatchStats) => void;
  /** Entries per page of the background audit (default 2048). */
  auditPage?: number;
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
}

export interface LogThread {
  /** Hand the tenant's log to the writer; `committed` is its size as this thread reads it now. */
  open(tenant: string, path: string, origin: string, committed: number): ThreadedLog;
  close(): Promise<void>;
}

export interface WireError {
  code: ErrorCode;
  message: string;
}

/** Messages from the host. Appended items: [id, seq, bytes, leaf, size, proof, note index]. */
export type HostMessage =
  | { t: 'ready' }
  | { t: 'opened'; tenant: string }
  | { t: 'openFailed'; tenant: string; error: WireError }
  | { t: 'done'; notes: string[]; ok: [number, number, Uint8Array, Uint8Array, number, Uint8Array[], number][]; failed: [number, WireError][] }
  | { t: 'batch'; tenant: string; stats: BatchStats }
  | { t: 'audit'; tenant: string; checked: number; total: number; complete: boolean; error?: WireError }
  | { t: 'signed'; id: number; size: number; note: string }
  | { t: 'signFailed'; id: number; error: WireError }
  | { t: 'closed' };

export type MainMessage =
  | { t: 'open'; tenant: string; path: string; origin: string }
  | { t: 'append'; tenant: string; id: number; body: EntryBody; attachments: Attachment[] }
  | { t: 'checkpoint'; tenant: string; id: number }
  | { t: 'close' };

export function toWireError(e: unknown): WireError {
  return e instanceof VouchError ? { code: e.code, message: e.message } : { code: 'ERR_STORE', message: `append failed: ${(e as Error)?.message ?? String(e)}` };
}

function fromWireError(w: WireError): VouchError {
  return w.code.startsWith('ERR_STORE') ? new StoreError(w.code, w.message) : new VouchError(w.code, w.message);
}

interface Owed {
  resolve: (a: Appended) => void;
  reject: (e: unknown) => void;
  log: { size: number };
}

export async function startLogThread(opts: LogThreadOptions): Promise<LogThread> {
  const worker = new Worker(opts.workerUrl ?? new URL('./log-thread-worker.mjs', import.meta.url), {
    workerData: { keyName: opts.keyName, mldsaSeed: opts.mldsaSeed.slice(), ed25519Seed: opts.ed25519Seed?.slice(), maxBatch: opts.maxBatch, minIntervalMs: opts.minIntervalMs ?? 25, auditPage: opts.auditPage },
  });
  const owed = new Map<number, Owed>();
  const opening = new Map<string, { resolve: () => void; reject: (e: unknown) => void }>();
  const signing = new Map<number, { resolve: (s: SignedTree) => void; reject: (e: unknown) => void }>();
  const health = new Map<string, LogHealth>();
  let nextId = 1;
  let failure: StoreError | undefined;
  let closing: Promise<void> | undefined;
  let onClosed: (() => void) | undefined;

  const failAll = (why: string, cause?: unknown): void => {
    failure ??= new StoreError('ERR_STORE', why, { cause });
    for (const o of owed.values()) o.reject(failure);
    owed.clear();
    for (const o of opening.values()) o.reject(failure);
    opening.clear();
    for (const o of signing.values()) o.reject(failure);
    signing.clear();
  };

  await new Promise<void>((resolve, reject) => {
    worker.on('message', (m: HostMessage) => {
      switch (m.t) {
        case 'ready':
          return resolve();
        case 'opened':
          opening.get(m.tenant)?.resolve();
          return void opening.delete(m.tenant);
        case 'openFailed':
          opening.get(m.tenant)?.reject(fromWireError(m.error));
          return void opening.delete(m.tenant);
        case 'done':
          for (const [id, seq, bytes, leaf, size, proof, note] of m.ok) {
            const o = owed.get(id);
            if (!o) continue;
            owed.delete(id);
            if (size > o.log.size) o.log.size = size;
            o.resolve({ seq, bytes, leaf, size, proof, checkpoint: m.notes[note] });
          }
          for (const [id, error] of m.failed) {
            owed.get(id)?.reject(fromWireError(error));
            owed.delete(id);
          }
          return;
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
        case 'signed':
          signing.get(m.id)?.resolve({ size: m.size, note: m.note });
          return void signing.delete(m.id);
        case 'signFailed':
          signing.get(m.id)?.reject(fromWireError(m.error));
          return void signing.delete(m.id);
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

  const post = (m: MainMessage): void => worker.postMessage(m);

  return {
    open(tenant, path, origin, committed) {
      const log = { size: committed };
      const ready = new Promise<void>((resolve, reject) => {
        if (failure) return reject(failure);
        opening.set(tenant, { resolve, reject });
        post({ t: 'open', tenant, path, origin });
      });
      ready.catch(() => undefined); // appends report the same failure
      return {
        origin,
        ready,
        get size() {
          return log.size;
        },
        append(body, attachments = []) {
          if (closing) return Promise.reject(new StoreError('ERR_STORE_CLOSED', 'log is closed'));
          if (failure) return Promise.reject(failure);
          const halted = health.get(tenant)?.halted;
          if (halted) return Promise.reject(halted);
          return new Promise<Appended>((resolve, reject) => {
            const id = nextId++;
            owed.set(id, { resolve, reject, log });
            post({ t: 'append', tenant, id, body, attachments });
          });
        },
        checkpointNow() {
          if (failure) return Promise.reject(failure);
          return new Promise<SignedTree>((resolve, reject) => {
            const id = nextId++;
            signing.set(id, { resolve, reject });
            post({ t: 'checkpoint', tenant, id });
          });
        },
        health: () => ({ ...health.get(tenant), ...(failure ? { halted: failure } : {}) }),
        // The thread closes every log at once (LogThread.close); one tenant's close only stops its appends.
        close: async () => undefined,
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
