// What an answer waits for (issue 17): `signed` (default: the signed receipt) or `durable` (the
// entry is committed and fsync'd; a signed checkpoint covers it within the coverage bound, and
// its receipt is then at GET /v1/entries/:seq). Asked per request: REST's `wait` body field, or
// `_meta["io.vouch/wait"]` of executeChain on /mcp.
import { toBase64, toHex } from '../canonical/index.js';
import type { Wait } from '../decide/index.js';
import { InputError } from '../errors.js';

export const WAIT_META = 'io.vouch/wait';
/** The durable answer's part of _meta on /mcp (in place of io.vouch/receipt). */
export const DURABLE_META = 'io.vouch/durable';

export function waitOf(v: unknown, path: string): Wait | undefined {
  if (v === undefined || v === 'signed' || v === 'durable') return v;
  throw new InputError('ERR_INPUT', `${path.slice(1)} must be "signed" or "durable"`, [{ path, message: 'must be "signed" or "durable"' }]);
}

/** The committed entry, for an answer that did not wait for its signed checkpoint. */
export interface DurableAnswer {
  /** base64 of the exact entry bytes. */
  entry: string;
  leafHash: string;
  index: number;
  /** Where the complete receipt is once a signed checkpoint covers the entry. */
  receipt: string;
}

export function durableAnswer(a: { seq: number; bytes: Uint8Array; leaf: Uint8Array }): DurableAnswer {
  return { entry: toBase64(a.bytes), leafHash: toHex(a.leaf), index: a.seq, receipt: `/v1/entries/${a.seq}` };
}
