// ML-DSA-65 signing in a node:worker_threads Worker (NODE-ONLY), so the HTTP server's event
// loop keeps serving while a batch checkpoint is signed (a few ms of pure JS per signature).
// Requests carry ids; a worker crash rejects every pending sign with ERR_SIGN_FAILED.
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { bytesEqual } from '../canonical/index.js';
import { CryptoError } from '../errors.js';
import { createSigner } from './by-alg.js';
import { MLDSA65_SEED_BYTES } from './mldsa.js';
import { mldsaBackend } from './mldsa-backend.js';
import { createNativeMldsaSigner } from './native-mldsa.js';
import type { SignatureAlg, Signer } from './types.js';

export interface WorkerSignerOptions {
  /** Zero `rnd` (FIPS 204 deterministic variant) instead of hedged signing. */
  deterministic?: boolean;
  /** The worker script; defaults to sign-worker.mjs next to this file. */
  workerUrl?: URL;
  /**
   * The public key the seed gives, when the caller has derived it already (key files read at
   * start-up): the signer is returned at once and the first sign() waits for the thread, instead
   * of start-up waiting for the thread to load. The thread derives the key again; a different
   * key fails every signature with ERR_SIGN_FAILED.
   */
  publicKey?: Uint8Array;
  /** With `publicKey`: start the thread on the first sign() rather than now (nothing may ever sign). */
  lazy?: boolean;
}

interface Pending {
  resolve: (sig: Uint8Array) => void;
  reject: (e: Error) => void;
}
type Reply =
  | { type: 'ready'; publicKey: Uint8Array }
  | { type: 'signed'; id: number; signature: Uint8Array }
  | { type: 'failed'; id: number; error: string };

/** The worker script: the bundled copy when the build made one (scripts/bundle-dist.mjs), else the file. */
function signWorkerUrl(): URL {
  if (import.meta.url.endsWith('.js')) {
    const bundled = new URL('../.bundle/sign-worker.mjs', import.meta.url);
    if (existsSync(bundled)) return bundled;
  }
  return new URL('./sign-worker.mjs', import.meta.url);
}

interface Prestarted {
  worker: Worker;
  /** It ended before anyone took it (it failed to load): a new one is started instead. */
  ended: boolean;
}
let prestarted: Prestarted | undefined;

/**
 * Start this thread's signing worker before its key is known (the log writer thread does, at its
 * start: store/log-thread-host.ts). The worker loads and warms up with a throwaway key while the
 * key files are read and the policy loaded; the next createWorkerSigner takes it and sends it the
 * seed, so the first checkpoint does not wait for a cold thread. Unreferenced until taken.
 */
export function prestartSignWorker(): void {
  if (prestarted) return;
  const p: Prestarted = { worker: new Worker(signWorkerUrl(), { workerData: { prestart: true, engine: threadEngine(false) } }), ended: false };
  p.worker.unref();
  p.worker.once('error', () => void (p.ended = true));
  p.worker.once('exit', () => void (p.ended = true));
  prestarted = p;
}

/** What the signing thread signs with: pqclean when selected (mldsa-backend.ts) and not deterministic, else noble. */
function threadEngine(deterministic: boolean): 'pqclean' | 'noble' {
  return !deterministic && mldsaBackend() === 'pqclean' ? 'pqclean' : 'noble';
}

function takePrestarted(): Worker | undefined {
  const p = prestarted;
  prestarted = undefined;
  if (!p || p.ended) {
    void p?.worker.terminate();
    return undefined;
  }
  p.worker.ref();
  return p.worker;
}

export async function createWorkerSigner(seed: Uint8Array, opts: WorkerSignerOptions = {}): Promise<Signer> {
  if (!(seed instanceof Uint8Array) || seed.length !== MLDSA65_SEED_BYTES) {
    throw new CryptoError('ERR_KEY_FORMAT', `ML-DSA-65 seed must be ${MLDSA65_SEED_BYTES} bytes`);
  }
  const seedCopy = seed.slice();
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let failure: CryptoError | undefined;
  let closed = false;
  let worker: Worker | undefined;
  let started: Promise<Uint8Array> | undefined;

  // Keep the process alive only while signatures are owed, so a forgotten close() cannot hang a CLI.
  const settle = (): void => void (pending.size === 0 ? worker?.unref() : worker?.ref());
  const failAll = (reason: string, cause?: unknown): void => {
    failure ??= new CryptoError('ERR_SIGN_FAILED', reason, { cause });
    for (const p of pending.values()) p.reject(failure);
    pending.clear();
    settle();
  };

  /** Start the thread; resolves with the public key it derived (checked against opts.publicKey). */
  const start = (): Promise<Uint8Array> =>
    (started ??= new Promise<Uint8Array>((resolve, reject) => {
      const early = opts.workerUrl ? undefined : takePrestarted();
      const w =
        early ??
        new Worker(opts.workerUrl ?? signWorkerUrl(), {
          workerData: { seed: seedCopy, deterministic: opts.deterministic === true, engine: threadEngine(opts.deterministic === true) },
        });
      if (early) early.postMessage({ t: 'seed', seed: seedCopy, deterministic: opts.deterministic === true, engine: threadEngine(opts.deterministic === true) });
      seedCopy.fill(0); // workerData or the message was copied into the thread
      worker = w;
      w.on('message', (msg: Reply) => {
        if (msg.type === 'ready') {
          if (opts.publicKey && !bytesEqual(msg.publicKey, opts.publicKey)) {
            failAll('ML-DSA-65 signing worker derived a public key other than the one given: refusing to sign');
            void w.terminate();
            return reject(failure);
          }
          resolve(msg.publicKey);
          settle();
          return;
        }
        const p = pending.get(msg.id);
        if (!p) return;
        pending.delete(msg.id);
        if (msg.type === 'signed') p.resolve(msg.signature);
        else p.reject(new CryptoError('ERR_SIGN_FAILED', `ML-DSA-65 signing failed: ${msg.error}`));
        settle();
      });
      w.on('error', (e) => {
        failAll(`signing worker crashed: ${e.message}`, e);
        reject(failure);
      });
      w.on('exit', (code) => {
        failAll(closed ? 'signer is closed' : `signing worker exited with code ${code}`);
        reject(failure);
      });
      // Referenced until it is ready (a sign() is waiting for it); then only while signatures are owed.
    }));

  let publicKey: Uint8Array;
  let ready: Promise<void> | undefined;
  if (opts.publicKey) {
    publicKey = opts.publicKey.slice();
    // A failure before the first sign() is reported by that sign() and by `ready`, never as an
    // unhandled rejection.
    if (!opts.lazy) (ready = start().then(() => undefined)).catch(() => undefined);
  } else {
    publicKey = await start();
  }

  /** One signature by the thread; with `context`, under it (the thread signs those with noble). */
  const request = async (message: Uint8Array, context?: Uint8Array): Promise<Uint8Array> => {
    if (closed) throw new CryptoError('ERR_SIGN_FAILED', 'signer is closed');
    if (failure) throw failure;
    const bytes = message.slice();
    await start();
    if (closed) throw new CryptoError('ERR_SIGN_FAILED', 'signer is closed');
    if (failure) throw failure;
    return new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      settle();
      worker!.postMessage(context ? { id, message: bytes, context: context.slice() } : { id, message: bytes });
    });
  };

  return {
    alg: 'ML-DSA-65',
    publicKey,
    ...(ready && { ready }),
    sign: (message: Uint8Array) => request(message),
    signWithContext: (message: Uint8Array, context: Uint8Array) => request(message, context),
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      seedCopy.fill(0);
      if (worker) await worker.terminate();
      failAll('signer is closed');
    },
  };
}

/**
 * The signer a Node process should use. ML-DSA-65: native (node:crypto, about a millisecond, no
 * thread needed) when the runtime has it (mldsa-backend.ts), else pqclean or noble in a worker thread when
 * `thread`, else in-process. `deterministic` needs noble: node:crypto signs hedged only.
 */
export async function createSignerFromSeed(
  seed: Uint8Array,
  opts: { thread: boolean; alg?: SignatureAlg; deterministic?: boolean; publicKey?: Uint8Array; lazy?: boolean },
): Promise<Signer> {
  const alg = opts.alg ?? 'ML-DSA-65';
  if (alg === 'ML-DSA-65' && !opts.deterministic && mldsaBackend() === 'native') return createNativeMldsaSigner(seed);
  if (opts.thread && alg === 'ML-DSA-65') return createWorkerSigner(seed, { deterministic: opts.deterministic, publicKey: opts.publicKey, lazy: opts.lazy });
  return createSigner(alg, seed, { deterministic: opts.deterministic });
}
