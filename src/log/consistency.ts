// Does a newer checkpoint extend an older one? What a verifier (witness, auditor, a client that
// kept an old receipt) asks before trusting a new checkpoint: a log that was cut back or
// rewritten must not be accepted as the same log. Signatures are checked by the caller
// (openCheckpoint); this compares the two trees only. Portable and pure.
import { bytesEqual } from '../canonical/index.js';
import type { Checkpoint } from './checkpoint.js';
import { EMPTY_ROOT, verifyConsistency } from './merkle.js';

export type ExtendsFailure = 'origin' | 'truncated' | 'fork' | 'proof';

export type ExtendsResult = { ok: true } | { ok: false; reason: ExtendsFailure; message: string };

const fail = (reason: ExtendsFailure, message: string): ExtendsResult => ({ ok: false, reason, message });

/**
 * Check that `newer` is an append-only extension of `older`, given the RFC 9162 consistency
 * proof from older.size to newer.size. A bad proof is a result, never an exception.
 */
export function checkExtends(older: Checkpoint, newer: Checkpoint, proof: Uint8Array[]): ExtendsResult {
  // Two different logs can share a tree by accident of content; only the same origin is "the same log".
  if (older.origin !== newer.origin) {
    return fail('origin', `checkpoints name different logs: ${JSON.stringify(older.origin)} and ${JSON.stringify(newer.origin)}`);
  }
  // A log never shrinks: a smaller tree means entries were cut off after they were signed.
  if (newer.size < older.size) {
    return fail('truncated', `log was cut back: size ${newer.size} is smaller than the ${older.size} already signed`);
  }
  // Two signed roots for one size: the log showed different histories to different readers.
  if (newer.size === older.size) {
    if (!bytesEqual(newer.root, older.root)) return fail('fork', `two different roots were signed for size ${older.size}`);
    if (proof.length !== 0) return fail('proof', `checkpoints of equal size ${older.size} need an empty proof, got ${proof.length} hash(es)`);
    return { ok: true };
  }
  // The empty tree is a prefix of every tree (RFC 9162 2.1.4 has no proof for it): only its root is checked.
  if (older.size === 0) {
    if (!bytesEqual(older.root, EMPTY_ROOT)) return fail('fork', 'checkpoint of size 0 does not carry the empty-tree root');
    if (proof.length !== 0) return fail('proof', `a proof from the empty tree must be empty, got ${proof.length} hash(es)`);
    return { ok: true };
  }
  // RFC 9162 2.1.4.2: the proof must rebuild both roots from shared subtrees. If it cannot, the
  // older entries were rewritten (a fork), or the proof is simply wrong; no verifier can tell
  // the two apart, and both mean the newer checkpoint must not be trusted.
  if (!verifyConsistency(older.size, newer.size, older.root, newer.root, proof)) {
    return fail('proof', `consistency proof from size ${older.size} to ${newer.size} does not verify: the log was rewritten or the proof is wrong`);
  }
  return { ok: true };
}
