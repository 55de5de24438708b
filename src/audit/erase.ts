// Erasure on request (DESIGN.md section 5): the payload leaves the payload table, an `erasure`
// entry (signed like any other) says when and which digest. Entries hold only digests, so every
// entry, proof and signature stays valid; replay then reports those decisions as erased.
import type { Digest } from '../canonical/index.js';
import { InputError, VouchError } from '../errors.js';
import type { Appended, EntryBody } from '../log/index.js';
import { erasureEntryBody } from '../entries/index.js';
import { recordedLabel } from '../interceptors/builtin/recorded-text.js';

export interface ErasureTarget {
  payload(digest: Digest): Promise<Uint8Array | undefined>;
  erasePayload(digest: Digest): Promise<boolean>;
  append(body: EntryBody): Promise<Appended>;
}

export interface ErasureOptions {
  /** RFC 3339, from the caller's clock. */
  time: string;
  reason?: string;
  /** Who asked (principal), recorded in the entry. */
  by?: string;
}

export const MAX_REASON_LENGTH = 1000;

/**
 * The erasure entry is appended (durable, signed) before the bytes are deleted: a crash in
 * between leaves a recorded erasure whose payload is still there (run it again), never a payload
 * gone without a record.
 */
export async function eraseStoredPayload(target: ErasureTarget, digest: Digest, opts: ErasureOptions): Promise<{ digest: Digest; seq: number; appended: Appended }> {
  if (opts.reason !== undefined && opts.reason.length > MAX_REASON_LENGTH) throw new InputError('ERR_INPUT', `reason longer than ${MAX_REASON_LENGTH} characters`, [{ path: '/reason', message: 'too long' }]);
  if (!(await target.payload(digest))) throw new VouchError('ERR_NOT_FOUND', `no payload ${digest} (never stored, or already erased)`);
  // The reason is free text signed into an entry nothing can erase: a credential quoted in it (the very
  // one being erased, say) is recorded as the secret-redactor's placeholder, like every recorded label.
  const reason = opts.reason === undefined ? undefined : recordedLabel(opts.reason, MAX_REASON_LENGTH);
  const appended = await target.append(erasureEntryBody({ time: opts.time, digest, reason, by: opts.by }));
  await target.erasePayload(digest);
  return { digest, seq: appended.seq, appended };
}
