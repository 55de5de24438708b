// The Appender's callers: each committed entry waits for the checkpoint that covers it; its caller
// is told it is durable at commit (or with the checkpoint, where entries commit with it), then answered with its proof.
import { NOT_FOLLOWED, type Appended } from './appending.js';
import { cachedReader, inclusionProof, type NodeReader } from './merkle.js';
import type { StoredEntry } from './storage.js';
import type { Pending } from './_append-batch.js';

/** A committed entry waiting for its checkpoint. */
export interface Waiter extends StoredEntry {
  /** Set once the caller has its durable answer (at commit, or with the checkpoint on a store that signs first). */
  told: boolean;
  item: Pending;
  /** Kept until the caller is told (a store that signs first). */
  signedPromise?: Promise<Appended>;
  resolve: (a: Appended) => void;
  reject: (e: unknown) => void;
}

/** A committed entry's waiter, and the promise of its signed answer (NOT_FOLLOWED when nobody reads it). */
export function waiterFor(e: StoredEntry, item: Pending): { w: Waiter; signed: Promise<Appended> } {
  const w = { ...e, told: false, item } as Waiter;
  let signed = NOT_FOLLOWED;
  if (item.follow === false) w.resolve = w.reject = () => undefined;
  else {
    signed = new Promise<Appended>((resolve, reject) => {
      w.resolve = resolve;
      w.reject = reject;
    });
    signed.catch(() => undefined); // a durable-only caller may never look
  }
  return { w, signed };
}

/** The caller learns its entry is durable (its seq), with the promise of the signed answer. */
export function tellDurable(w: Waiter, signed: Promise<Appended>): void {
  w.told = true;
  w.item.resolve({ seq: w.seq, bytes: w.bytes, leaf: w.leaf, signed });
}

/** The entries a checkpoint of `size` covers: each caller told (if not yet) and answered with its inclusion proof. */
export function answerCovered(done: Waiter[], size: number, note: string, storage: NodeReader): void {
  const reader = cachedReader(storage);
  for (const w of done) {
    if (!w.told) tellDurable(w, w.signedPromise!);
    if (w.item.follow === false) continue; // nobody reads it: no proof
    try {
      w.resolve({ seq: w.seq, bytes: w.bytes, leaf: w.leaf, size, proof: inclusionProof(w.seq, size, reader), checkpoint: note });
    } catch (err) {
      w.reject(err);
    }
  }
}

/** Each waiter fails with `err`: through its signed promise once told, else through its append. */
export function failWaiters(waiters: Waiter[], err: unknown): void {
  for (const w of waiters) {
    if (w.told) w.reject(err);
    else w.item.reject(err);
  }
}
