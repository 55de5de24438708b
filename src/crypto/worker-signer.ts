// ML-DSA-65 signing in a node:worker_threads Worker (NODE-ONLY), so the HTTP server's event
// loop keeps serving while a batch checkpoint is signed (a few ms of pure JS per signature).
// Requests carry ids; a worker crash rejects every pending sign with ERR_SIGN_FAILED.
import { Worker } from 'node:worker_threads';
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
}

interface Pending {
  resolve: (sig: Uint8Array) => void;
  reject: (e: Error) => void;
}
type Reply =
  | { type: 'ready'; publicKey: Uint8Array }
  | { type: 'signed'; id: number; signature: Uint8Array }
  | { type: 'failed'; id: number; error: string };

export async function createWorkerSigner(seed: Uint8Array, opts: WorkerSignerOptions = {}): Promise<Signer> {
  if (!(seed instanceof Uint8Array) || seed.length !== MLDSA65_SEED_BYTES) {
    throw new CryptoError('ERR_KEY_FORMAT', `ML-DSA-65 seed must be ${MLDSA65_SEED_BYTES} bytes`);
  }
  const worker = new Worker(opts.workerUrl ?? new URL('./sign-worker.mjs', import.meta.url), {
    workerData: { seed: seed.slice(), deterministic: opts.deterministic === true },
  });
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let failure: CryptoError | undefined;
  let closed = false;

  // Keep the process alive only while signatures are owed, so a forgotten close() cannot hang a CLI.
  const settle = (): void => void (pending.size === 0 ? worker.unref() : worker.ref());
  const failAll = (reason: string, cause?: unknown): void => {
    failure ??= new CryptoError('ERR_SIGN_FAILED', reason, { cause });
    for (const p of pending.values()) p.reject(failure);
    pending.clear();
    settle();
  };

  const publicKey = await new Promise<Uint8Array>((resolve, reject) => {
    worker.on('message', (msg: Reply) => {
      if (msg.type === 'ready') return resolve(msg.publicKey);
      const p = pending.get(msg.id);
      if (!p) return;
      pending.delete(msg.id);
      if (msg.type === 'signed') p.resolve(msg.signature);
      else p.reject(new CryptoError('ERR_SIGN_FAILED', `ML-DSA-65 signing failed: ${msg.error}`));
      settle();
    });
    worker.on('error', (e) => {
      failAll(`signing worker crashed: ${e.message}`, e);
      reject(failure);
    });
    worker.on('exit', (code) => {
      failAll(closed ? 'signer is closed' : `signing worker exited with code ${code}`);
      reject(failure);
    });
  });
  settle();

  return {
    alg: 'ML-DSA-65',
    publicKey,
    sign(message: Uint8Array): Promise<Uint8Array> {
      if (closed) return Promise.reject(new CryptoError('ERR_SIGN_FAILED', 'signer is closed'));
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        settle();
        worker.postMessage({ id, message: message.slice() });
      });
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await worker.terminate();
    },
  };
}

/**
 * The signer a Node process should use. ML-DSA-65: native (node:crypto, about a millisecond, no
 * thread needed) when the runtime has it (mldsa-backend.ts), else noble in a worker thread when
 * `thread`, else in-process. `deterministic` needs noble: node:crypto signs hedged only.
 */
export async function createSignerFromSeed(
  seed: Uint8Array,
  opts: { thread: boolean; alg?: SignatureAlg; deterministic?: boolean },
): Promise<Signer> {
  const alg = opts.alg ?? 'ML-DSA-65';
  if (alg === 'ML-DSA-65' && !opts.deterministic && mldsaBackend() === 'native') return createNativeMldsaSigner(seed);
  if (opts.thread && alg === 'ML-DSA-65') return createWorkerSigner(seed, { deterministic: opts.deterministic });
  return createSigner(alg, seed, { deterministic: opts.deterministic });
}
